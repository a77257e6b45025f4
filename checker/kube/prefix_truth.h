// etcd's events and states under one key prefix P, as far as the history proves them: the view the
// kube checks compare informers against.
//
// Facts come from the watch checker's truth (write responses and etcd watch events, truth.h) and
// from complete reads of P (an ok range over all of P at a known revision: every key of P's state
// there). What is not known is tracked per revision, so a comparison is skipped exactly where a
// change the history does not show could have touched the key:
// - A revision whose P-events are all known: the truth knows all its events (complete), or a watch
//   over all of P delivered past it (etcd's reliable/bookmarkable guarantees, which the watch
//   checker holds it to, say it then delivered every P-event there).
// - A revision made by a known ok write whose events are not all known (a range delete without
//   prev_kv): only the keys of P that write's request could touch may have unknown events there.
// - Any other revision (missing, or known only in part from watches of a smaller range): it was
//   made by a write whose outcome is unknown (an unknown-outcome or unreadable write invoked before
//   anything showed that revision to exist), or by a lease revocation or expiry. So only keys of P
//   such a write's request could touch, or that were ever put with a lease, may have unknown events
//   there. This assumes every client's writes are in the history, as in a dst run.
// Revisions start at 1 with an empty store; revision v's state includes v's events.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "checker/kube/prefix_index.h"
#include "checker/kube/revision_clock.h"
#include "checker/watch/truth.h"
#include "history/history.h"

namespace dst::checker::kube {

// Above this many revisions the per-revision bookkeeping stops: every state above it is unknown
// (a run has at most limits::kHistoryOperationsMax writes, so real histories stay far below).
inline constexpr int64_t kRevisionsTrackedMax = int64_t{1} << 25;

// One key's change at one revision, as etcd made it.
struct PrefixEvent {
  int64_t revision = 0;
  std::string key;
  bool deleted = false;
  std::optional<std::string> value;          // puts; unset where no source told it
  const watch::TruthEvent* truth = nullptr;  // where it came from
};

// A key's state at a revision, as far as it is known.
struct PrefixState {
  enum class Kind : uint8_t { kUnknown, kAbsent, kPresent };
  Kind kind = Kind::kUnknown;
  int64_t mod_revision = 0;            // kPresent
  std::optional<std::string> value;    // kPresent, where known
  // Since which revision it is known to be so, and what showed it: the event (nullptr for the
  // initial empty store or a read of P).
  int64_t since = 1;
  const PrefixEvent* event = nullptr;
  std::string describe() const;  // "absent", "'v2' rv 7", "unknown"
};

class PrefixTruth {
 public:
  // `index` is built once from the same truth, clock and history, and shared by every prefix.
  PrefixTruth(const watch::Truth& truth, const RevisionClock& clock, const history::History& history,
              const PrefixIndex& index, std::string prefix);

  const std::string& prefix() const { return prefix_; }
  bool contains(const std::string& key) const;

  // Known P-events by revision, then key.
  const std::map<int64_t, std::map<std::string, PrefixEvent>>& events() const { return events_; }
  const PrefixEvent* event(int64_t revision, const std::string& key) const;
  // Whether etcd may have changed `key` at `revision` without the history showing it.
  bool may_have_unknown_event(const std::string& key, int64_t revision) const;
  // The key's state at `revision` (after that revision's events).
  PrefixState state(const std::string& key, int64_t revision) const;
  // Every key of P the history shows at all (in an event or a read of P).
  const std::set<std::string>& keys() const { return keys_; }
  // The key's last known event (nullptr if none).
  const PrefixEvent* last_event(const std::string& key) const;
  const RevisionClock& clock() const { return clock_; }

 private:
  // One fact about a key: an event, or its presence in a read of P.
  struct Fact {
    int64_t revision = 0;
    bool from_event = false;
    bool present = false;
    int64_t mod_revision = 0;
    std::optional<std::string> value;
    const PrefixEvent* event = nullptr;
  };
  // Which keys of P something could touch: all of P, or these keys.
  struct Touch {
    bool all = false;
    std::set<std::string> keys;
    void add(const Touch& t);
  };

  Touch touch_of(const etcdserverpb::ApiRequest& request) const;
  void touch_put(const etcdserverpb::PutRequest& put, Touch& out) const;
  void touch_delete(const etcdserverpb::DeleteRangeRequest& del, Touch& out) const;
  void touch_txn(const etcdserverpb::TxnRequest& txn, Touch& out) const;
  void touch_of_ops(const google::protobuf::RepeatedPtrField<etcdserverpb::RequestOp>& ops, Touch& out) const;
  bool range_meets_prefix(const std::string& key, const std::string& range_end) const;
  bool range_covers_prefix(const std::string& key, const std::string& range_end) const;

  // The index's entries of keys in P: [first, last) of a vector sorted by key.
  template <typename T, typename KeyOf>
  std::pair<typename std::vector<T>::const_iterator, typename std::vector<T>::const_iterator> keys_in_prefix(
      const std::vector<T>& sorted, KeyOf key_of) const;

  void add_events(const PrefixIndex& index);
  void add_reads(const PrefixIndex& index);
  void add_read(const PrefixIndex::CompleteRead& read);
  // Revisions a watch over all of P showed complete, as disjoint [first, last] runs, ascending.
  std::vector<std::pair<int64_t, int64_t>> covered_revisions(const PrefixIndex& index) const;
  void classify(const watch::Truth& truth, const history::History& history, const PrefixIndex& index);
  void open_from(const std::string& key, int64_t from);
  std::map<int64_t, Touch> open_keys_of_leases_and_writes(const PrefixIndex& index);
  // Whether some revision in (after, through] may hold an unknown change of `key`.
  bool uncertain_between(const std::string& key, int64_t after, int64_t through) const;

  std::string prefix_;
  std::string prefix_end_;  // empty: no upper bound
  const RevisionClock& clock_;
  std::map<int64_t, std::map<std::string, PrefixEvent>> events_;
  std::map<std::string, std::vector<Fact>> facts_;  // by key, by revision
  std::vector<int64_t> reads_;                      // revisions of complete reads of P, ascending
  std::set<std::string> keys_;

  // Uncertainty. "Open" revisions: made by an unknown write or a lease (see the file comment); a
  // key may have an unknown change at an open revision r >= its first_open_ (all keys: >=
  // first_open_all_). Other revisions' doubts are listed per revision.
  std::vector<std::pair<int64_t, int64_t>> open_;  // [first, last] runs, ascending
  std::map<std::string, int64_t> first_open_;
  int64_t first_open_all_ = INT64_MAX;
  std::vector<int64_t> doubt_all_;                         // ascending
  std::map<std::string, std::vector<int64_t>> doubt_key_;  // ascending per key
  int64_t unknown_above_ = INT64_MAX;                      // past the tracked revisions
};

}  // namespace dst::checker::kube
