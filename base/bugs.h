// The bug zoo's one registry: every deliberate bug the harness can switch on, in whichever layer
// it lives (Raft, the member above Raft, the Kubernetes layer, the demo world), under one enum,
// one name table and one set type. A run's `Bugs` value is parsed once from `--bug NAMES` and
// passed down unchanged; a component asks `bugs.on(Bug::kStaleRead)`. Every bug is off by default
// and each is a small, honest change of behaviour modelled on a mistake a real system made, so a
// run shows the checkers catching it (docs/bug-zoo.md has the measured table).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dst {

enum class Bug : uint8_t {
  // --- Raft (node/raft): each removes exactly one safety rule --------------------------------
  // Answer votes before the vote is durable (must_sync stays false when only term/vote changed).
  // Rule: §5.1/Figure 2 "persistent state ... updated on stable storage before responding".
  kVoteBeforePersist,
  // Acknowledge appended entries before they are durable (must_sync false for new entries). The
  // same rule for log entries; in the demo world, records acknowledged before they are fsynced.
  kAckBeforePersist,
  // Commit by counting replicas of an entry from an earlier term. Rule: §5.4.2 / Figure 8.
  kCommitOldTermEntries,
  // Grant votes without comparing logs. Rule: §5.4.1 election restriction.
  kVoteIgnoresLog,
  // Heartbeats carry the leader's full commit index instead of min(commit, follower's match), and
  // followers trust it. Rule: a follower may only commit entries it knows match the leader's.
  kHeartbeatCommitUnchecked,
  // Serve ReadIndex from the leader's commit index without confirming leadership. Rule: §8.
  kReadIndexWithoutQuorum,

  // --- the member above Raft (node/server, node/watch, node/mvcc) ----------------------------
  // A linearizable read served from the member's local state, without ReadIndex, whenever the
  // member believes it leads: an isolated or paused old leader answers stale reads (etcd #20418).
  kStaleRead,
  // A progress request answered with the store's revision while events for the stream are still
  // queued or being caught up: the progress revision overtakes undelivered events (etcd #15220).
  kProgressNotifyAhead,
  // The last event of a multi-event revision (a txn) is sent again in the next response of the
  // watch (etcd #17247).
  kWatchDuplicateEvent,
  // A watcher whose stream queue is full loses the revision instead of falling back to catching
  // up from the store (etcd #17529).
  kWatchLostUnderStarvation,
  // The applied index is persisted apart from the data it describes (its own file, synced at
  // once): after a power loss the member skips the entries whose data was lost (etcd #13766 /
  // #14685).
  kAppliedIndexNotAtomic,
  // Compaction removes the tombstone at the compaction revision itself: a watcher catching up
  // from exactly there loses that delete (etcd #18089 / #19179).
  kWatchDropAtCompaction,
  // Compaction as etcd's did it (the tombstone at the compaction revision removed, each batch of
  // deletions committed at once), and the current revision restored from the newest key row and
  // the finished compaction only, ignoring the scheduled one: a crash in the middle of compacting
  // the newest revision (a delete) reopens the member a revision low, and it hands out used
  // revisions again (etcd #17780).
  kCompactionRevisionDecrease,
  // When a raft snapshot replaces the store, synced watchers catch up from a revision before the
  // one they already reached: the member sends events the watcher has already seen (etcd #15271).
  kWatchTimeTravel,
  // Lease expiry is decided on the member's wall clock (which can be stepped or run ahead) instead
  // of its monotonic clock: a leader whose clock jumps forward revokes leases early.
  kLeaseExpiryOnFollowerClock,
  // A member that believes it leads renews keep-alives and revokes expired leases without first
  // confirming its leadership with a quorum: a leader stuck on a slow disk keeps answering
  // keep-alives while the new leader, which hears none of them, expires the leases (etcd #15247
  // and #12528; fixed in etcd 3.4.28 and 3.5.11 by ensureLeadership). Found by the harness
  // itself: slow_fsync_leader.lua seed 5 once the workload sent keep-alives.
  kLeaseRenewOnStaleLeader,
  // A restore from a snapshot that loads the live keys into a fresh store (a dump and reload)
  // instead of restoring the backend as it was: revisions start again from 2, so the restored
  // cluster hands out revisions its clients already saw, with other contents, and watchers and
  // readers at a revision get answers from another history.
  kRestoreRestartsRevisions,

  // --- the Kubernetes layer (kube/) -----------------------------------------------------------
  // A LIST "not older than" R is answered from a watch cache that has not reached R yet, with the
  // cache's older objects labelled R, instead of waiting for the cache to catch up.
  kListNotCaughtUp,
  // After a re-list at R an informer watches from R + 1 instead of R: the watch's resourceVersion
  // is exclusive in Kubernetes and inclusive in etcd, and mixing the two loses the events at R + 1.
  kInformerResumeSkip,
  // A watcher that fell so far behind that its next event left the cache's ring is moved on to the
  // oldest event the ring still holds instead of being ended with 410 Gone.
  kDropOnRingWrap,

  kCount,
};

// Where a bug lives: which world can switch it on, and which checks are expected to catch it.
enum class BugLayer : uint8_t { kRaft, kMember, kKube };

// "vote-before-persist" etc.; every Bug has one name.
std::string_view bug_name(Bug bug);
BugLayer bug_layer(Bug bug);
// One name or one of the zoo's older aliases ("vote-not-persisted", "ack-before-fsync"); the
// error lists the valid names.
Result<Bug> parse_bug(std::string_view name);
// Every bug, in enum order.
std::vector<Bug> all_bugs();

// A set of switched-on bugs: the one value passed down from the command line to every layer.
class Bugs {
 public:
  Bugs() = default;
  static Bugs of(Bug bug) { return Bugs().with(bug); }

  bool on(Bug bug) const { return (bits_ & bit(bug)) != 0; }
  Bugs& with(Bug bug) {
    bits_ |= bit(bug);
    return *this;
  }
  bool empty() const { return bits_ == 0; }
  bool any_in(BugLayer layer) const;
  // The bugs in the set, in enum order.
  std::vector<Bug> list() const;
  // "stale-read,commit-old-term": the set as a --bug argument ("" when empty).
  std::string names() const;
  bool operator==(const Bugs&) const = default;

 private:
  static uint64_t bit(Bug bug) { return uint64_t{1} << static_cast<unsigned>(bug); }
  uint64_t bits_ = 0;
};
static_assert(static_cast<unsigned>(Bug::kCount) <= 64, "Bugs keeps one bit per bug");

// "commit-old-term,stale-read" -> the set; the error names the bad entry and lists the valid
// names. An empty entry ("", "a,,b") is an error: `--bug ''` is a mistake, not "no bugs".
Result<Bugs> parse_bugs(std::string_view names);
// The --bug help text: every bug's name and the aliases.
std::string bug_names_help();

}  // namespace dst
