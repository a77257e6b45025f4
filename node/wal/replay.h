// Replay of WAL records into what a restarting node needs: the last hard state and the log
// entries after its snapshot. Pure logic, no I/O; wal.cc feeds it the records of every segment in
// order.
//
// Semantics (etcd's wal.ReadAll):
// - The start is a snapshot marker: the one the caller names (OpenOptions::snapshot), or else the
//   newest marker read so far. Entries at or below the start are ignored: they are covered by the
//   snapshot and, being committed, can never change.
// - An entry with index i replaces every kept entry with index >= i: a follower overwriting a
//   conflicting uncommitted tail appends the new entries after the old ones in the log.
// - Kept entries are contiguous from start+1; an entry beyond last+1 is a gap, i.e. lost records,
//   reported as corruption.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "proto/raft.pb.h"
#include "proto/wal.pb.h"

namespace dst::wal {

class Replay {
 public:
  // `from`: replay after this snapshot (which must then appear as a marker in the log), or after
  // the newest marker in the log when nullopt.
  explicit Replay(std::optional<walpb::SnapshotMarker> from);

  // Applies one record; `where` names it in errors ("<file> at byte 120"). Metadata records are
  // the caller's business and ignored here.
  Status add(const walpb::WalRecord& record, const std::string& where);
  // After the last record: kNotFound if the `from` snapshot's marker never appeared.
  Status finish() const;

  const raftpb::HardState& hard_state() const { return hard_state_; }
  const walpb::SnapshotMarker& start() const { return start_; }
  // The newest marker in the log, whatever the start (written into new segments' headers).
  const std::optional<walpb::SnapshotMarker>& newest_marker() const { return newest_marker_; }
  bool has_hard_state() const { return has_hard_state_; }
  // Index of the last entry of the log: the last kept entry, or the start if none is kept.
  uint64_t last_index() const;
  std::vector<raftpb::Entry> take_entries() { return std::move(entries_); }

 private:
  Status add_entry(const raftpb::Entry& entry, const std::string& where);
  void add_marker(const walpb::SnapshotMarker& marker);

  bool follow_markers_;  // no `from`: each newer marker moves the start
  bool from_seen_ = false;
  walpb::SnapshotMarker start_;
  std::optional<walpb::SnapshotMarker> newest_marker_;
  raftpb::HardState hard_state_;
  bool has_hard_state_ = false;
  std::vector<raftpb::Entry> entries_;  // contiguous: entries_[k].index() == start_.index()+1+k
  // A reset marker beyond an explicit `from`: the log after `from` cannot be rebuilt without the
  // newer snapshot, so finish() refuses.
  std::optional<walpb::SnapshotMarker> reset_after_start_;
};

}  // namespace dst::wal
