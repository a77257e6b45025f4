// The write-ahead log of an etcd-style node, on the node's simulated disk.
//
// Files: segments "<dir>/wal/<seq>-<first_index>.wal" (file_names.h) holding framed records
// (record.h). Every segment starts with a header: the WalMetadata record, then the hard state and
// the newest snapshot marker as of the cut, so that older segments can be released without losing
// either. Segments are written whole under a ".tmp" name, fsynced, renamed into place and the
// directory synced, so a segment name never exists without its header durable.
//
// Durability contract ("fsync where durability is promised, nowhere else"):
// - save(..., sync=true), save_snapshot_marker() and create() return only once their records are
//   durable. save(..., sync=false) leaves its records in the page cache.
// - Cutting a segment fsyncs the old one first (later segments must never hold durable records
//   after a hole) and syncs the directory after creating the new one; a save that cuts is
//   therefore durable even with sync=false.
// - open() fsyncs what it returns: it rewrites the last segment's valid bytes and fsyncs them,
//   because after a failed fsync a page-cache write can read back fine yet never become durable
//   (Linux "fsyncgate"), and a node that survived as a process must not vote or ack on it.
// - release_to() only removes names; it promises nothing, so it syncs nothing.
//
// Every method blocks the calling fiber on disk I/O: call it from a fiber of the node's process.
// One Wal per directory at a time; it is not safe to use from two fibers at once.
//
// Failure: after any error from the disk while writing (fsync error, ENOSPC, ...) the Wal is
// failed: what reached the disk is unknown, so every later save/marker/release returns the
// original error. The caller must treat this like etcd's panic: crash the node and open() again,
// which repairs a torn tail or refuses corruption. Invalid arguments are refused before any write
// and do not fail the Wal.
//
// open(): a bad record (incomplete, zero length, checksum mismatch, unparseable) in the LAST
// segment with no valid record anywhere after it is a torn tail: the file is truncated there and
// the repair reported. A bad record followed by a valid one, or in any other segment, or in a
// segment's header, is corruption: kCorruption naming the file, the byte offset and the reason.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/limits.h"
#include "base/status.h"
#include "node/wal/file_names.h"
#include "proto/raft.pb.h"
#include "proto/wal.pb.h"
#include "sim/file_system.h"

namespace dst::wal {

struct WalOptions {
  // A save that leaves the current segment at or above this size cuts a new segment.
  // 1 .. limits::kWalSegmentBytesMax.
  uint64_t segment_bytes = limits::kWalSegmentBytesDefault;
};

struct OpenOptions {
  // Replay the entries after this snapshot (normally the newest snapshot file the Snapshotter
  // could load); its marker must be in the log. nullopt: after the newest marker in the log.
  std::optional<walpb::SnapshotMarker> snapshot;
  // Refuse (kInvalidArgument) a WAL written for another node or cluster.
  std::optional<walpb::WalMetadata> expected_metadata;
};

// What open() had to repair. Empty (`repaired` false) for a clean log.
struct RepairReport {
  bool repaired = false;
  std::string file;             // the last segment
  uint64_t offset = 0;          // where the torn tail began; the file now ends here
  uint64_t bytes_truncated = 0;
  std::string reason;           // why the first dropped byte was not a valid record
};

class Wal;

struct OpenResult {
  std::unique_ptr<Wal> wal;  // positioned at the end of the log, ready to append
  walpb::WalMetadata metadata;
  raftpb::HardState hard_state;  // the last one saved; all zero if none was
  std::vector<raftpb::Entry> entries;  // after `snapshot`, contiguous, overwrites applied
  walpb::SnapshotMarker snapshot;      // the start of `entries` (index 0: no snapshot)
  RepairReport repair;
};

class Wal {
 public:
  // Creates a new WAL in `dir` (kAlreadyExists if one is there) and makes its first segment
  // durable. Removes leftover temp files of an earlier attempt.
  static Result<std::unique_ptr<Wal>> create(sim::FileSystem& fs, std::string dir,
                                             walpb::WalMetadata metadata, WalOptions options = {});
  // Reads every segment, repairs a torn tail, replays (replay.h). kNotFound if `dir` has no WAL.
  static Result<OpenResult> open(sim::FileSystem& fs, std::string dir, WalOptions options = {},
                                 OpenOptions open_options = {});

  // Appends `entries` (contiguous indexes, the first at most last_index()+1 and above the newest
  // snapshot marker), then `hard_state` if not null; fsyncs if `sync`. Entries go first so that a
  // torn write can lose the hard state but never keep a commit index without its entries.
  Status save(const raftpb::HardState* hard_state, std::span<const raftpb::Entry> entries,
              bool sync);
  // Appends a durable marker: the snapshot (index, term) is saved. The snapshot file must be
  // durable first (Snapshotter::save), as in etcd. Markers never go backwards.
  // `reset_log`: the snapshot replaced the whole log (installed from the leader), so entries saved
  // earlier with a higher index are stale and replay drops them.
  Status save_snapshot_marker(uint64_t index, uint64_t term, bool reset_log = false);
  // Removes the oldest segments whose entries are all below `index` (the segment containing
  // `index` stays, and so does the current one). Normally called with the snapshot index.
  Status release_to(uint64_t index);

  uint64_t last_index() const { return last_index_; }
  // Segment file names, oldest first.
  std::vector<std::string> segment_files() const;
  // The error that failed this Wal, or ok.
  const Status& failure() const { return failure_; }

 private:
  struct Segment {
    SegmentName name;
    std::string file;
  };

  Wal(sim::FileSystem& fs, std::string dir, walpb::WalMetadata metadata, WalOptions options);
  Status check_writable() const;
  // Records that `st` (an I/O error) failed this Wal and returns it.
  Status fail(Status st);
  // Appends framed records to the current segment; cuts or fsyncs as the contract above says.
  Status append_and_persist(const std::string& framed, bool sync);
  Status cut();
  // Writes a segment with the header records under a temp name, fsyncs it, renames it into place
  // and syncs the directory. On success the segment is current.
  Status start_segment(SegmentName name);
  std::string encode_header() const;

  sim::FileSystem& fs_;
  std::string dir_;
  walpb::WalMetadata metadata_;
  WalOptions options_;
  std::vector<Segment> segments_;  // at most limits::kWalSegmentsMax, oldest first
  sim::FileId tail_file_ = 0;
  uint64_t tail_size_ = 0;
  uint64_t last_index_ = 0;
  raftpb::HardState hard_state_;
  bool has_hard_state_ = false;
  std::optional<walpb::SnapshotMarker> snapshot_;  // newest marker saved
  Status failure_;

  friend class WalOpener;
};

// Checks WalOptions; kInvalidArgument naming the bad field.
Status validate(const WalOptions& options);

}  // namespace dst::wal
