// The read path of the WAL: listing segments, scanning them, telling a torn tail from
// corruption, repairing the tail and replaying. See wal.h for the rules.
#include "node/wal/wal.h"

#include <algorithm>

#include "base/probes.h"
#include "node/wal/record.h"
#include "node/wal/replay.h"

namespace dst::wal {

// Friend of Wal: builds the Wal from what it read.
class WalOpener {
 public:
  WalOpener(sim::FileSystem& fs, std::string dir, WalOptions options, OpenOptions open_options)
      : fs_(fs),
        dir_(std::move(dir)),
        options_(options),
        open_options_(std::move(open_options)),
        replay_(open_options_.snapshot) {}

  Result<OpenResult> run();

 private:
  Result<std::vector<Wal::Segment>> list_segments();
  // The newest snapshot marker in the valid records of `segments` (nullopt if none). Damage is
  // judged later by read_segment().
  Result<std::optional<walpb::SnapshotMarker>> newest_marker(
      const std::vector<Wal::Segment>& segments);
  Status read_segment(const Wal::Segment& segment, bool is_last);
  Status check_header(const Wal::Segment& segment, const SegmentScan& scan);
  // Torn tail (fills repair_) or corruption (returns it).
  Status judge_bad_record(const Wal::Segment& segment, const BadRecord& bad, uint64_t file_size,
                          bool is_last);
  // Truncates a torn tail and rewrites + fsyncs the valid bytes of the last segment.
  Status make_tail_durable();
  Status check_expected_metadata() const;

  sim::FileSystem& fs_;
  std::string dir_;
  WalOptions options_;
  OpenOptions open_options_;
  Replay replay_;
  std::optional<walpb::WalMetadata> metadata_;
  RepairReport repair_;
  sim::FileId tail_file_ = 0;
  uint64_t tail_file_size_ = 0;  // as found, including a torn tail
  std::string tail_valid_bytes_;  // the last segment's valid prefix
};

namespace {

std::string at(const std::string& file, uint64_t offset) {
  return file + " at byte " + std::to_string(offset);
}

bool same_metadata(const walpb::WalMetadata& a, const walpb::WalMetadata& b) {
  return a.SerializeAsString() == b.SerializeAsString();
}

std::string describe(const walpb::WalMetadata& m) {
  return "node " + std::to_string(m.node_id()) + " cluster " + std::to_string(m.cluster_id());
}

}  // namespace

Result<OpenResult> Wal::open(sim::FileSystem& fs, std::string dir, WalOptions options,
                             OpenOptions open_options) {
  if (Status st = validate(options); !st.is_ok()) return st;
  return WalOpener(fs, std::move(dir), options, std::move(open_options)).run();
}

Result<OpenResult> WalOpener::run() {
  Result<std::vector<Wal::Segment>> segments = list_segments();
  if (!segments.is_ok()) return segments.status();
  if (!open_options_.snapshot) {
    // Start at the newest marker of the whole log, as etcd does (ValidSnapshotEntries): following
    // the markers while reading would start at an older one, such as the header of the oldest
    // segment left after release_to(), and report the released entries after it as a gap.
    Result<std::optional<walpb::SnapshotMarker>> newest = newest_marker(*segments);
    if (!newest.is_ok()) return newest.status();
    if (*newest) replay_ = Replay(*newest);
  }
  for (size_t k = 0; k < segments->size(); ++k) {
    if (Status st = read_segment((*segments)[k], k + 1 == segments->size()); !st.is_ok()) {
      return st;
    }
  }
  if (Status st = replay_.finish(); !st.is_ok()) return st;
  if (Status st = check_expected_metadata(); !st.is_ok()) return st;
  // Only now, with nothing left to refuse, does open() change the disk.
  if (Status st = make_tail_durable(); !st.is_ok()) return st;

  std::unique_ptr<Wal> wal(new Wal(fs_, dir_, *metadata_, options_));
  wal->segments_ = std::move(*segments);
  wal->tail_file_ = tail_file_;
  wal->tail_size_ = tail_valid_bytes_.size();
  wal->snapshot_ = replay_.newest_marker();
  wal->last_index_ = std::max(replay_.last_index(), wal->snapshot_ ? wal->snapshot_->index() : 0);
  wal->hard_state_ = replay_.hard_state();
  wal->has_hard_state_ = replay_.has_hard_state();

  OpenResult result;
  result.wal = std::move(wal);
  result.metadata = *metadata_;
  result.hard_state = replay_.hard_state();
  result.entries = replay_.take_entries();
  result.snapshot = replay_.start();
  result.repair = std::move(repair_);
  return result;
}

Result<std::vector<Wal::Segment>> WalOpener::list_segments() {
  const std::string prefix = wal_dir_prefix(dir_);
  std::vector<Wal::Segment> segments;
  // list() is sorted, and fixed-width hex names sort by sequence number.
  for (const std::string& file : fs_.list(prefix)) {
    if (ends_with_temp_suffix(file)) continue;  // an unfinished cut; never promised anything
    const std::optional<SegmentName> name = parse_segment_name(file.substr(prefix.size()));
    if (!name) {
      return Status(StatusCode::kCorruption, "wal: unexpected file " + file + " in " + prefix);
    }
    if (segments.size() >= limits::kWalSegmentsMax) {
      return Status(StatusCode::kResourceExhausted,
                    "wal: more than " + std::to_string(limits::kWalSegmentsMax) + " segments in " +
                        prefix);
    }
    if (!segments.empty() && name->seq != segments.back().name.seq + 1) {
      return Status(StatusCode::kCorruption, "wal: segment " + file + " follows " +
                                                 segments.back().file +
                                                 ": the segments between are missing");
    }
    segments.push_back(Wal::Segment{*name, file});
  }
  if (segments.empty()) return Status(StatusCode::kNotFound, "wal: no WAL in " + dir_);
  return segments;
}

Result<std::optional<walpb::SnapshotMarker>> WalOpener::newest_marker(
    const std::vector<Wal::Segment>& segments) {
  std::optional<walpb::SnapshotMarker> newest;
  for (const Wal::Segment& segment : segments) {  // at most limits::kWalSegmentsMax
    Result<sim::FileId> file = fs_.open(segment.file, sim::OpenMode::kExisting);
    if (!file.is_ok()) return file.status();
    Result<uint64_t> size = fs_.size(*file);
    if (!size.is_ok()) return size.status();
    // An oversized file is refused by read_segment(); here its records simply do not count.
    if (*size > limits::kWalSegmentFileBytesMax) continue;
    Result<std::string> bytes = fs_.read(*file, 0, *size);
    if (!bytes.is_ok()) return bytes.status();
    for (const DecodedRecord& decoded : scan_records(*bytes).records) {
      const walpb::WalRecord& r = decoded.record;
      // The first of equal markers, like a replay that follows them (markers never go backwards).
      if (r.has_snapshot() && (!newest || r.snapshot().index() > newest->index())) {
        newest = r.snapshot();
      }
    }
  }
  return newest;
}

Status WalOpener::read_segment(const Wal::Segment& segment, bool is_last) {
  Result<sim::FileId> file = fs_.open(segment.file, sim::OpenMode::kExisting);
  if (!file.is_ok()) return file.status();
  Result<uint64_t> size = fs_.size(*file);
  if (!size.is_ok()) return size.status();
  if (*size > limits::kWalSegmentFileBytesMax) {
    return Status(StatusCode::kCorruption, "wal: " + segment.file + " has " +
                                               std::to_string(*size) +
                                               " bytes, more than any segment can hold");
  }
  Result<std::string> bytes = fs_.read(*file, 0, *size);
  if (!bytes.is_ok()) return bytes.status();
  DST_ASSERT_EQ(bytes->size(), *size);
  const SegmentScan scan = scan_records(*bytes);
  if (scan.bad) {
    if (Status st = judge_bad_record(segment, *scan.bad, *size, is_last); !st.is_ok()) return st;
  }
  if (Status st = check_header(segment, scan); !st.is_ok()) return st;
  for (const DecodedRecord& decoded : scan.records) {
    if (Status st = replay_.add(decoded.record, at(segment.file, decoded.offset)); !st.is_ok()) {
      return st;
    }
  }
  if (is_last) {
    tail_file_ = *file;
    tail_file_size_ = *size;
    tail_valid_bytes_ = bytes->substr(0, scan.valid_bytes);
  }
  return Status::ok();
}

Status WalOpener::judge_bad_record(const Wal::Segment& segment, const BadRecord& bad,
                                   uint64_t file_size, bool is_last) {
  std::string why_not_torn;
  if (bad.valid_record_after) {
    why_not_torn = "a valid record follows at byte " + std::to_string(*bad.valid_record_after) +
                   ", so this is damage in the middle of the log, not a torn tail";
  } else if (!is_last) {
    why_not_torn = "this is not the last segment, and a segment is fully synced before the next "
                   "is created, so its end cannot be torn";
  } else if (bad.offset == 0) {
    why_not_torn = "the segment header is unreadable, and headers are synced before the segment "
                   "gets its name";
  } else if (bad.search_gave_up) {
    why_not_torn = "the search for valid records after it hit its limit, so it cannot be proven "
                   "to be a torn tail";
  }
  if (!why_not_torn.empty()) {
    DST_PROBE(kWalCorruptionRefused);
    return Status(StatusCode::kCorruption,
                  "wal: corruption in " + at(segment.file, bad.offset) + ": " + bad.reason + "; " +
                      why_not_torn);
  }
  DST_PROBE(kWalTornTailRepaired);
  repair_.repaired = true;
  repair_.file = segment.file;
  repair_.offset = bad.offset;
  repair_.bytes_truncated = file_size - bad.offset;
  repair_.reason = bad.reason;
  return Status::ok();
}

Status WalOpener::check_header(const Wal::Segment& segment, const SegmentScan& scan) {
  if (scan.records.empty()) {  // an empty file: a bad record at byte 0 was refused already
    return Status(StatusCode::kCorruption, "wal: " + segment.file + " is empty");
  }
  const walpb::WalRecord& first = scan.records.front().record;
  if (!first.has_metadata()) {
    return Status(StatusCode::kCorruption,
                  "wal: " + segment.file + " does not start with a metadata record");
  }
  if (!metadata_) {
    metadata_ = first.metadata();
  } else if (!same_metadata(*metadata_, first.metadata())) {
    return Status(StatusCode::kCorruption, "wal: " + segment.file + " belongs to " +
                                               describe(first.metadata()) +
                                               " but earlier segments to " + describe(*metadata_));
  }
  return Status::ok();
}

Status WalOpener::make_tail_durable() {
  if (tail_valid_bytes_.size() < tail_file_size_) {
    if (Status st = fs_.truncate(tail_file_, tail_valid_bytes_.size()); !st.is_ok()) return st;
  }
  // Rewriting the bytes we return covers page-cache writes a failed fsync left undurable.
  if (Status st = fs_.write(tail_file_, 0, tail_valid_bytes_); !st.is_ok()) return st;
  return fs_.fsync(tail_file_);
}

Status WalOpener::check_expected_metadata() const {
  DST_ASSERT(metadata_.has_value());
  const std::optional<walpb::WalMetadata>& expected = open_options_.expected_metadata;
  if (!expected || same_metadata(*expected, *metadata_)) return Status::ok();
  return Status(StatusCode::kInvalidArgument, "wal: the WAL in " + dir_ + " belongs to " +
                                                  describe(*metadata_) + ", expected " +
                                                  describe(*expected));
}

}  // namespace dst::wal
