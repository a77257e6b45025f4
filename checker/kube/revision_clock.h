// When each etcd revision was known to exist, for the kube checks: a write invoked at time t gets a
// revision above every revision the history showed before t, and a consistent read sent at t must
// answer at least at that revision.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "history/history.h"

namespace dst::checker::kube {

// When revisions became known to exist: the highest revision any ok response header, etcd watch
// response or event showed, as a function of time. A write invoked at t gets a revision above
// existed_before(t).
class RevisionClock {
 public:
  explicit RevisionClock(const history::History& history);
  // The highest revision shown strictly before `at_ns` (1 if none: the initial store).
  int64_t existed_before(int64_t at_ns) const;
  // What showed existed_before(at_ns): "etcd op 12 (client 3) returned at 1.200000s showing revision 40".
  std::string shown_before(int64_t at_ns) const;
  int64_t highest() const { return highest_; }

 private:
  struct Point {
    int64_t at_ns = 0;
    int64_t revision = 0;
    bool watch = false;  // a watch response, else an operation
    uint64_t id = 0;     // operation or watch id
    uint32_t client = 0;
    size_t setter = 0;   // the point (index) with the highest revision up to here
  };
  const Point* before(int64_t at_ns) const;
  std::vector<Point> points_;  // by time
  int64_t highest_ = 1;
};

}  // namespace dst::checker::kube
