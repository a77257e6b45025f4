// Switchable bugs in the node above Raft: the KV API, the watch stream and the store (issue #7's
// bug zoo). Each is a small, honest change of behaviour modelled on a bug etcd really had, off by
// default and switched on with `dst run/sweep ... --bug NAME`, so a run shows the checkers
// catching it. The Raft-level bugs are raft::Bug (node/raft/config.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dst::node {

enum class NodeBug : uint32_t {
  // A linearizable read served from the member's local state, without ReadIndex, whenever the
  // member believes it leads: an isolated or paused old leader answers stale reads (etcd #20418).
  kStaleRead = 1u << 0,
  // A progress request answered with the store's revision while events for the stream are still
  // queued or being caught up: the progress revision overtakes undelivered events (etcd #15220).
  kProgressNotifyAhead = 1u << 1,
  // The last event of a multi-event revision (a txn) is sent again in the next response of the
  // watcher (etcd #17247).
  kWatchDuplicateEvent = 1u << 2,
  // A watcher whose stream queue is full loses the revision instead of falling back to catching
  // up from the store (etcd #17529).
  kWatchLostUnderStarvation = 1u << 3,
  // The applied index is persisted apart from the data it describes (its own file, synced at
  // once): after a power loss the member skips the entries whose data was lost (etcd #13766 /
  // #14685).
  kAppliedIndexNotAtomic = 1u << 4,
  // Compaction removes the tombstone at the compaction revision itself: a watcher catching up
  // from exactly there loses that delete (etcd #18089 / #19179).
  kWatchDropAtCompaction = 1u << 5,
  // Compaction as etcd's did it (the tombstone at the compaction revision removed, each batch of
  // deletions committed at once), and the current revision restored from the newest key row and
  // the finished compaction only, ignoring the scheduled one: a crash in the middle of compacting
  // the newest revision (a delete) reopens the member a revision low, and it hands out used
  // revisions again (etcd #17780; mvcc::StoreOptions::bug_compaction_revision_decrease).
  kCompactionRevisionDecrease = 1u << 6,
  // When a raft snapshot replaces the store, synced watchers catch up from a revision before the
  // one they already reached: the member sends events the watcher has already seen
  // (etcd #15271).
  kWatchTimeTravel = 1u << 7,
  // Lease expiry is decided on the member's wall clock (which can be stepped or run ahead) instead
  // of its monotonic clock: a leader whose clock jumps forward revokes leases early.
  kLeaseExpiryOnFollowerClock = 1u << 8,
};

std::string_view node_bug_name(NodeBug bug);
// One name; the error lists the valid names.
Result<NodeBug> parse_node_bug(std::string_view name);
std::vector<NodeBug> all_node_bugs();
inline bool has_bug(uint32_t bugs, NodeBug b) { return (bugs & static_cast<uint32_t>(b)) != 0; }

}  // namespace dst::node
