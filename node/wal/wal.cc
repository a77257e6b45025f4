// The write path of the WAL: create, save, markers, segment cuts, release. See wal.h; the read
// path (open, torn-tail repair) is in wal_open.cc.
#include "node/wal/wal.h"

#include <algorithm>

#include "base/probes.h"
#include "node/wal/record.h"

namespace dst::wal {

Status validate(const WalOptions& options) {
  if (options.segment_bytes == 0 || options.segment_bytes > limits::kWalSegmentBytesMax) {
    return Status(StatusCode::kInvalidArgument,
                  "wal: segment_bytes " + std::to_string(options.segment_bytes) +
                      " outside 1.." + std::to_string(limits::kWalSegmentBytesMax));
  }
  return Status::ok();
}

Wal::Wal(sim::FileSystem& fs, std::string dir, walpb::WalMetadata metadata, WalOptions options)
    : fs_(fs), dir_(std::move(dir)), metadata_(std::move(metadata)), options_(options) {}

Result<std::unique_ptr<Wal>> Wal::create(sim::FileSystem& fs, std::string dir,
                                         walpb::WalMetadata metadata, WalOptions options) {
  if (Status st = validate(options); !st.is_ok()) return st;
  const std::string prefix = wal_dir_prefix(dir);
  // list() returns at most limits::kDiskFilesMax names, so this loop is bounded.
  for (const std::string& name : fs.list(prefix)) {
    if (ends_with_temp_suffix(name)) {
      // A segment an earlier create or cut never finished; its name was never promised.
      if (Status st = fs.remove(name); !st.is_ok()) return st;
    } else if (name.ends_with(".wal")) {
      return Status(StatusCode::kAlreadyExists,
                    "wal: " + dir + " already has a WAL (" + name + ")");
    }
  }
  std::unique_ptr<Wal> wal(new Wal(fs, std::move(dir), std::move(metadata), options));
  // Entries start at index 1 (raft's first index without a snapshot).
  if (Status st = wal->start_segment(SegmentName{0, 1}); !st.is_ok()) return st;
  return wal;
}

std::vector<std::string> Wal::segment_files() const {
  std::vector<std::string> files;
  for (const Segment& s : segments_) files.push_back(s.file);
  return files;
}

Status Wal::check_writable() const {
  if (failure_.is_ok()) return Status::ok();
  return Status(failure_.code(),
                "wal: refusing writes after an earlier failure: " + failure_.message());
}

Status Wal::fail(Status st) {
  DST_ASSERT(!st.is_ok());
  if (failure_.is_ok()) failure_ = st;
  return st;
}

std::string Wal::encode_header() const {
  std::string framed;
  walpb::WalRecord record;
  *record.mutable_metadata() = metadata_;
  Status st = append_record(record, framed);
  DST_ASSERT_MSG(st.is_ok(), st.to_string());  // small fixed-size records cannot exceed limits
  if (has_hard_state_) {
    *record.mutable_hard_state() = hard_state_;
    st = append_record(record, framed);
    DST_ASSERT_MSG(st.is_ok(), st.to_string());
  }
  if (snapshot_) {
    *record.mutable_snapshot() = *snapshot_;
    // A copy, not the event: replaying it must not reset the log again (that would drop the
    // valid entries written after the original marker, in the previous segment).
    record.mutable_snapshot()->set_reset_log(false);
    st = append_record(record, framed);
    DST_ASSERT_MSG(st.is_ok(), st.to_string());
  }
  return framed;
}

Status Wal::start_segment(SegmentName name) {
  if (segments_.size() >= limits::kWalSegmentsMax) {
    return Status(StatusCode::kResourceExhausted,
                  "wal: " + std::to_string(segments_.size()) +
                      " segments; release_to() must be called after snapshots");
  }
  const std::string file = segment_file_name(dir_, name);
  const std::string temp = file + std::string(kTempSuffix);
  Result<sim::FileId> id = fs_.open(temp, sim::OpenMode::kCreate);
  if (!id.is_ok()) return id.status();
  const std::string header = encode_header();
  // The temp file may be a leftover of a crashed attempt: start it empty.
  if (Status st = fs_.truncate(*id, 0); !st.is_ok()) return st;
  if (Status st = fs_.write(*id, 0, header); !st.is_ok()) return st;
  if (Status st = fs_.fsync(*id); !st.is_ok()) return st;
  if (Status st = fs_.rename(temp, file); !st.is_ok()) return st;
  // The new name must be durable before anything written to it is promised durable.
  if (Status st = fs_.sync_dir(); !st.is_ok()) return st;
  segments_.push_back(Segment{name, file});
  tail_file_ = *id;
  tail_size_ = header.size();
  return Status::ok();
}

Status Wal::cut() {
  DST_ASSERT(!segments_.empty());
  // The old segment must be whole on disk before a later one can hold durable records.
  if (Status st = fs_.fsync(tail_file_); !st.is_ok()) return fail(st);
  const SegmentName next{segments_.back().name.seq + 1, last_index_ + 1};
  DST_PROBE(kWalSegmentCut);
  if (Status st = start_segment(next); !st.is_ok()) return fail(st);
  return Status::ok();
}

Status Wal::append_and_persist(const std::string& framed, bool sync) {
  DST_ASSERT(!framed.empty());
  if (Status st = fs_.write(tail_file_, tail_size_, framed); !st.is_ok()) return fail(st);
  tail_size_ += framed.size();
  if (tail_size_ >= options_.segment_bytes) return cut();
  if (!sync) return Status::ok();
  if (Status st = fs_.fsync(tail_file_); !st.is_ok()) return fail(st);
  return Status::ok();
}

Status Wal::save(const raftpb::HardState* hard_state, std::span<const raftpb::Entry> entries,
                 bool sync) {
  if (Status st = check_writable(); !st.is_ok()) return st;
  if (hard_state == nullptr && entries.empty()) return Status::ok();  // like etcd: nothing to do
  const uint64_t snapshot_index = snapshot_ ? snapshot_->index() : 0;
  std::string framed;
  walpb::WalRecord record;
  for (size_t k = 0; k < entries.size(); ++k) {
    const uint64_t index = entries[k].index();
    const uint64_t first = entries[0].index();
    // Contiguous, after the snapshot, and no gap after the log (a gap would be unreadable).
    if (index != first + k || first <= snapshot_index || first > last_index_ + 1) {
      return Status(StatusCode::kInvalidArgument,
                    "wal: entry " + std::to_string(index) + " at batch position " +
                        std::to_string(k) + " does not extend the log (last index " +
                        std::to_string(last_index_) + ", snapshot " +
                        std::to_string(snapshot_index) + ")");
    }
    *record.mutable_entry() = entries[k];
    if (Status st = append_record(record, framed); !st.is_ok()) return st;
    if (framed.size() > limits::kWalSaveBytesMax) {
      return Status(StatusCode::kInvalidArgument, "wal: save of more than " +
                                                      std::to_string(limits::kWalSaveBytesMax) +
                                                      " bytes");
    }
  }
  if (hard_state != nullptr) {
    *record.mutable_hard_state() = *hard_state;
    if (Status st = append_record(record, framed); !st.is_ok()) return st;
  }
  // Update before persisting: a cut writes the new last index and hard state into its header.
  if (!entries.empty()) last_index_ = entries.back().index();
  if (hard_state != nullptr) {
    hard_state_ = *hard_state;
    has_hard_state_ = true;
  }
  return append_and_persist(framed, sync);
}

Status Wal::save_snapshot_marker(uint64_t index, uint64_t term, bool reset_log) {
  if (Status st = check_writable(); !st.is_ok()) return st;
  if (snapshot_ && index < snapshot_->index()) {
    return Status(StatusCode::kInvalidArgument,
                  "wal: snapshot marker " + std::to_string(index) + " is older than the saved " +
                      std::to_string(snapshot_->index()));
  }
  walpb::WalRecord record;
  record.mutable_snapshot()->set_index(index);
  record.mutable_snapshot()->set_term(term);
  record.mutable_snapshot()->set_reset_log(reset_log);
  std::string framed;
  if (Status st = append_record(record, framed); !st.is_ok()) return st;
  snapshot_ = record.snapshot();
  // A follower that installs a snapshot continues right after it (a reset drops the old tail).
  last_index_ = reset_log ? index : std::max(last_index_, index);
  return append_and_persist(framed, /*sync=*/true);
}

Status Wal::release_to(uint64_t index) {
  if (Status st = check_writable(); !st.is_ok()) return st;
  // Segment k holds entries below the next segment's first index, so it can go when that first
  // index is <= `index`. Stop at the first segment that must stay: only a prefix is removed, so a
  // crash that keeps part of the removals still leaves consecutive segments.
  size_t removable = 0;
  while (removable + 1 < segments_.size() &&
         segments_[removable + 1].name.first_index <= index) {
    ++removable;
  }
  for (size_t k = 0; k < removable; ++k) {
    if (Status st = fs_.remove(segments_[k].file); !st.is_ok()) {
      segments_.erase(segments_.begin(), segments_.begin() + static_cast<ptrdiff_t>(k));
      return fail(st);
    }
  }
  segments_.erase(segments_.begin(), segments_.begin() + static_cast<ptrdiff_t>(removable));
  return Status::ok();
}

}  // namespace dst::wal
