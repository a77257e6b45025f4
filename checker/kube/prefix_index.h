// What a history says about keys, indexed once so that many PrefixTruths (one per informer
// selector: hundreds of kubelets each watch their own node's prefix) each pick out their own part
// by key range instead of walking the whole history: writes' keys and ranges, keys put with a
// lease, the truth's events, complete reads and unfiltered etcd watches' covered revisions.
//
// It keeps no judgement of its own: PrefixTruth asks "which of these meet my prefix" and applies
// the same rules as before (prefix_truth.h's file comment).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "checker/kube/revision_clock.h"
#include "checker/watch/truth.h"
#include "history/history.h"

namespace dst::checker::kube {

class PrefixIndex {
 public:
  // A write that is not known to have failed.
  struct Write {
    // > 0: answered ok with this revision; 0: outcome unknown (or an ok answer without one).
    int64_t revision = 0;
    bool pinned = false;    // revision > 0 and the truth counted that revision by this write
    int64_t open_from = 0;  // revision == 0: the first revision it may have made
    std::vector<std::pair<std::string, std::string>> ranges;  // delete ranges: (key, range_end)
  };
  // An ok range read with no filter, limit cut, keys-only or count-only: every key in its range.
  struct CompleteRead {
    std::string key, range_end;
    int64_t at = 0;  // the revision it read
    const etcdserverpb::RangeResponse* response = nullptr;
    bool sorted = false;  // kvs by key ascending (etcd's order): a prefix's kvs found by search
  };
  // An unfiltered watch segment's revisions it showed complete, [from, through].
  struct WatchRun {
    std::string key, range_end;
    int64_t from = 0, through = 0;
  };
  struct KeyedEvent {
    const std::string* key = nullptr;
    int64_t revision = 0;
    const watch::TruthEvent* event = nullptr;
  };

  PrefixIndex(const watch::Truth& truth, const RevisionClock& clock, const history::History& history);

  const std::vector<Write>& writes() const { return writes_; }
  // (key, index into writes()) for every key a write puts or deletes alone, by key.
  const std::vector<std::pair<std::string, uint32_t>>& point_keys() const { return point_keys_; }
  // Indexes of writes with delete ranges, ascending.
  const std::vector<uint32_t>& range_writes() const { return range_writes_; }
  // Keys a write not known to have failed put with a lease, by key, once each.
  const std::vector<std::string>& lease_keys() const { return lease_keys_; }
  // The truth's events by key, then revision.
  const std::vector<KeyedEvent>& events() const { return events_; }
  // In operation order.
  const std::vector<CompleteRead>& reads() const { return reads_; }
  const std::vector<WatchRun>& watch_runs() const { return watch_runs_; }

 private:
  void add_write(const history::Operation& op, const watch::Truth& truth, const RevisionClock& clock);
  void add_read(const history::Operation& op);
  void add_watch_runs(const history::History& history);

  std::vector<Write> writes_;
  std::vector<std::pair<std::string, uint32_t>> point_keys_;
  std::vector<uint32_t> range_writes_;
  std::vector<std::string> lease_keys_;
  std::vector<KeyedEvent> events_;
  std::vector<CompleteRead> reads_;
  std::vector<WatchRun> watch_runs_;
};

}  // namespace dst::checker::kube
