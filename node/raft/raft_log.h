// The Raft log as one node sees it: a compaction point (the snapshot), the entries after it, and
// three cursors (stabled, committed, applied).
//
//   snapshot.index < first_index() .. stabled .. last_index()
//                      applied <= committed <= last_index()
//
// Entries after `stabled` have not been handed out for persistence yet (they go into the next
// Ready); everything up to `stabled` is on the node's disk. The whole tail after the snapshot stays
// in memory: the node compacts it after every kSnapshotEveryEntries applied entries, which bounds it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proto/raft.pb.h"

namespace dst::raft {

class RaftLog {
 public:
  // An empty log whose compaction point is `snapshot` (index 0, term 0 for a brand-new node).
  // `entries` follow it contiguously and are already durable.
  // `tolerate_broken_safety`: a safety bug is switched on (Config::bugs), so states that correct
  // Raft never reaches (a commit index beyond the log, a conflict below it) are counted in
  // committed_overwrites() for the invariants checker instead of stopping the process.
  RaftLog(raftpb::SnapshotMetadata snapshot, std::vector<raftpb::Entry> entries, uint64_t committed,
          uint64_t applied, bool tolerate_broken_safety = false);

  uint64_t first_index() const { return snapshot_.index() + 1; }
  uint64_t last_index() const { return snapshot_.index() + entries_.size(); }
  uint64_t committed() const { return committed_; }
  uint64_t applied() const { return applied_; }
  uint64_t stabled() const { return stabled_; }
  const raftpb::SnapshotMetadata& snapshot_metadata() const { return snapshot_; }

  // Term of entry i, or nullopt when i was compacted away (i < snapshot index) or is beyond the end.
  // The snapshot's own index answers with the snapshot's term.
  std::optional<uint64_t> term(uint64_t i) const;
  uint64_t last_term() const { return *term(last_index()); }
  bool match_term(uint64_t i, uint64_t t) const {
    auto tt = term(i);
    return tt.has_value() && *tt == t;
  }
  // §5.4.1: a candidate's log is at least as up-to-date as ours.
  bool is_up_to_date(uint64_t last_index, uint64_t last_term) const {
    return last_term > this->last_term() || (last_term == this->last_term() && last_index >= this->last_index());
  }

  const raftpb::Entry& entry(uint64_t i) const;
  // Entries [lo, hi) with at most max_bytes of data (always at least one when lo < hi).
  // Requires first_index() <= lo <= hi <= last_index() + 1.
  std::vector<raftpb::Entry> slice(uint64_t lo, uint64_t hi, uint64_t max_bytes) const;

  // The follower side of AppendEntries (§5.3): if our entry at `index` has `log_term`, append
  // `entries` after it, replacing a conflicting tail, commit up to min(commit, last new index) and
  // return the last new index; otherwise nullopt.
  // A conflict at or below the commit index means safety is already broken: an assertion, unless
  // tolerated (see the constructor); then the tail is replaced anyway and counted.
  std::optional<uint64_t> maybe_append(uint64_t index, uint64_t log_term, uint64_t commit,
                                       const google::protobuf::RepeatedPtrField<raftpb::Entry>& entries);
  uint64_t committed_overwrites() const { return committed_overwrites_; }
  // Appends at the end (the leader's own proposals); returns the new last index.
  uint64_t append(std::vector<raftpb::Entry> entries);

  // For the fast back-off of a rejected append: the largest index <= `index` whose term is <= `term`
  // (§5.3's optimisation: skip a whole term of conflicting entries per round trip).
  uint64_t find_conflict_by_term(uint64_t index, uint64_t term) const;

  void commit_to(uint64_t index);
  void applied_to(uint64_t index);
  // Entries up to (index, term) reached the disk; ignored when the log changed under them.
  void stable_to(uint64_t index, uint64_t term);

  // Entries not yet handed out for persistence.
  std::vector<raftpb::Entry> unstable_entries() const;
  // Committed, not yet applied entries, at most max_bytes (at least one if any).
  std::vector<raftpb::Entry> next_committed(uint64_t max_bytes) const;
  bool has_next_committed() const { return committed_ > applied_; }

  // Replace everything by a snapshot received from the leader (§7): the log restarts after it.
  void restore(const raftpb::SnapshotMetadata& snapshot);
  // Drop entries up to `index` (the application saved a snapshot covering them). index <= applied.
  void compact(uint64_t index);


 private:
  uint64_t find_conflict(const google::protobuf::RepeatedPtrField<raftpb::Entry>& entries) const;
  void truncate_and_append(const google::protobuf::RepeatedPtrField<raftpb::Entry>& entries, int from);

  raftpb::SnapshotMetadata snapshot_;
  std::vector<raftpb::Entry> entries_;  // entries_[k] has index snapshot_.index() + 1 + k
  uint64_t committed_ = 0;
  uint64_t applied_ = 0;
  uint64_t stabled_ = 0;
  uint64_t committed_overwrites_ = 0;
  bool tolerate_ = false;
};

}  // namespace dst::raft
