// WAL replay semantics; see replay.h.
#include "node/wal/replay.h"

#include "base/limits.h"

namespace dst::wal {
namespace {

std::string describe(const walpb::SnapshotMarker& m) {
  return "(index " + std::to_string(m.index()) + ", term " + std::to_string(m.term()) + ")";
}

}  // namespace

Replay::Replay(std::optional<walpb::SnapshotMarker> from) : follow_markers_(!from.has_value()) {
  if (from) start_ = *from;
  // A start at index 0 is the empty log before any snapshot: nothing to find.
  from_seen_ = !from || from->index() == 0;
}

Status Replay::add(const walpb::WalRecord& record, const std::string& where) {
  switch (record.record_case()) {
    case walpb::WalRecord::kEntry:
      return add_entry(record.entry(), where);
    case walpb::WalRecord::kHardState:
      hard_state_ = record.hard_state();
      has_hard_state_ = true;
      return Status::ok();
    case walpb::WalRecord::kSnapshot:
      add_marker(record.snapshot());
      return Status::ok();
    case walpb::WalRecord::kMetadata:
      return Status::ok();
    case walpb::WalRecord::RECORD_NOT_SET:
      break;
  }
  DST_UNREACHABLE("scan_records only returns records with content");
}

Status Replay::add_entry(const raftpb::Entry& entry, const std::string& where) {
  const uint64_t index = entry.index();
  if (index <= start_.index()) return Status::ok();  // covered by the snapshot
  const uint64_t next = start_.index() + 1 + entries_.size();
  if (index > next) {
    return Status(StatusCode::kCorruption,
                  "wal: gap in the log at " + where + ": entry " + std::to_string(index) +
                      " follows entry " + std::to_string(next - 1) + " (records are missing)");
  }
  // index in [start+1, next]: drop the conflicting tail from `index` on, then append.
  entries_.resize(index - start_.index() - 1);
  if (entries_.size() >= limits::kWalReplayEntriesMax) {
    return Status(StatusCode::kResourceExhausted,
                  "wal: more than " + std::to_string(limits::kWalReplayEntriesMax) +
                      " entries after the snapshot at " + where + "; are snapshots being taken?");
  }
  entries_.push_back(entry);
  return Status::ok();
}

void Replay::add_marker(const walpb::SnapshotMarker& marker) {
  if (!newest_marker_ || marker.index() >= newest_marker_->index()) newest_marker_ = marker;
  if (marker.reset_log()) {
    // The whole log was replaced by this snapshot: what was read so far beyond it is stale.
    const uint64_t keep = marker.index() > start_.index() ? marker.index() - start_.index() : 0;
    if (entries_.size() > keep) entries_.resize(keep);
    if (!follow_markers_ && from_seen_ && marker.index() > start_.index() && !reset_after_start_) {
      reset_after_start_ = marker;
    }
  }
  if (!follow_markers_) {
    if (marker.index() == start_.index() && marker.term() == start_.term()) from_seen_ = true;
    return;
  }
  if (marker.index() <= start_.index()) return;
  // Entries up to the new start are in the snapshot now; keep the rest contiguous after it.
  const uint64_t drop = std::min<uint64_t>(marker.index() - start_.index(), entries_.size());
  entries_.erase(entries_.begin(), entries_.begin() + static_cast<ptrdiff_t>(drop));
  start_ = marker;
}

Status Replay::finish() const {
  if (reset_after_start_) {
    return Status(StatusCode::kNotFound, "wal: snapshot " + describe(*reset_after_start_) +
                                             " replaced the log after the requested start " +
                                             describe(start_) + "; replay needs that snapshot");
  }
  if (from_seen_) return Status::ok();
  return Status(StatusCode::kNotFound,
                "wal: snapshot " + describe(start_) + " has no marker in the log");
}

uint64_t Replay::last_index() const { return start_.index() + entries_.size(); }

}  // namespace dst::wal
