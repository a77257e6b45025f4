// A log of fault actions as they happen, one line each ("t=1.200s partition n1|n2,n3"), with the
// virtual time of each line kept beside it, so that the logs of several fault sources (the etcd
// nemesis, the kube world) merge in time order without reading the times back out of the text.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/assert.h"
#include "sim/time.h"

namespace dst::sim {

class FaultLog {
 public:
  // Beyond this many lines a run is a runaway loop, not a fault schedule: later lines are counted
  // but not kept.
  static constexpr size_t kLinesMax = 100'000;

  // Times never go back within one log: lines are added as the actions happen.
  void add(TimeNs at, const std::string& what) {
    DST_ASSERT(times_.empty() || at >= times_.back());
    if (lines_.size() >= kLinesMax) {
      ++dropped_;
      return;
    }
    times_.push_back(at);
    lines_.push_back("t=" + format_seconds(at) + " " + what);
  }
  const std::vector<std::string>& lines() const { return lines_; }
  size_t dropped() const { return dropped_; }

  // Both logs' lines in time order; at equal times, `a`'s lines first.
  static std::vector<std::string> merge(const FaultLog& a, const FaultLog& b) {
    std::vector<std::string> out;
    out.reserve(a.lines_.size() + b.lines_.size());
    size_t i = 0, j = 0;
    while (i < a.lines_.size() || j < b.lines_.size()) {
      const bool take_a = j == b.lines_.size() || (i < a.lines_.size() && a.times_[i] <= b.times_[j]);
      out.push_back(take_a ? a.lines_[i++] : b.lines_[j++]);
    }
    return out;
  }

 private:
  std::vector<TimeNs> times_;
  std::vector<std::string> lines_;
  size_t dropped_ = 0;
};

}  // namespace dst::sim
