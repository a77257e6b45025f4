// The file `etcdctl snapshot save` writes and `snapshot status` / `snapshot restore` read: an image
// of the member's backend (every bucket's rows, as a Raft snapshot carries them: KvSnapshot) with
// an integrity trailer, as etcd appends a SHA-256 of its bbolt file. What restore does with it is
// etcd's procedure: every member of the new cluster starts from the same image (with a new
// membership), so the store, its revision, its compaction point, the leases and the alarms
// continue from the snapshot, and optionally the revision jumps ahead and is marked compacted
// (etcd 3.5's --bump-revision / --mark-compacted) so that watchers of the old cluster are told
// "compacted" instead of silently missing what was lost.
//
// Layout: image bytes, then a 20-byte trailer: "dstsnap1", the image length (8 bytes, big
// endian), the CRC-32C of the image (4 bytes, big endian).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/bugs.h"
#include "base/status.h"
#include "proto/etcd_internal.pb.h"

namespace dst::node {

inline constexpr std::string_view kSnapshotFileMagic = "dstsnap1";
inline constexpr size_t kSnapshotTrailerBytes = 20;

// The file for a KvSnapshot image (KvStateMachine::snapshot()).
std::string encode_snapshot_file(std::string_view image);

// Reads a snapshot file. `name` is used in errors. Without a trailer the file is refused unless
// `skip_hash_check` (etcd: a db copied from a data directory has no hash); a trailer whose CRC
// does not match is refused unless `skip_hash_check`. kInvalidArgument for a file that is not a
// snapshot, kCorruption for a hash mismatch.
Result<etcdserverpb::KvSnapshot> read_snapshot_file(std::string_view bytes, std::string_view name,
                                                    bool skip_hash_check = false);

// `etcdctl snapshot status`: a CRC-32C over every bucket's name and rows (etcd's hash), the
// revision of the newest row in the key bucket, the number of rows in all buckets, and the file's
// size.
struct SnapshotStatus {
  uint32_t hash = 0;
  int64_t revision = 0;
  uint64_t total_keys = 0;
  uint64_t total_size = 0;
};
Result<SnapshotStatus> snapshot_status(const etcdserverpb::KvSnapshot& snapshot, uint64_t file_size);

// The store's revision in an image: the newest row of the key bucket, or the scheduled
// compaction when that is later (what KvStore::open would report); 1 for an empty store.
Result<int64_t> image_revision(const etcdserverpb::KvSnapshot& snapshot);

struct RestoreOptions {
  // etcd 3.5's --bump-revision: the restored store's revision is the snapshot's plus this; with
  // --mark-compacted (required when bumping) that revision is also its compaction point.
  int64_t bump_revision = 0;
  bool mark_compacted = false;
  // kRestoreRestartsRevisions rewrites the live keys at revisions from 2 up (base/bugs.h).
  Bugs bugs;
};

// Checks the options as etcdutl does (kInvalidArgument naming the flag).
Status validate_restore_options(const RestoreOptions& options);

// The image every member of the restored cluster starts from (a Raft snapshot's data at the new
// cluster's first index): the snapshot without a member's applied index, with the options applied.
Result<std::string> restored_image(const etcdserverpb::KvSnapshot& snapshot, const RestoreOptions& options);

}  // namespace dst::node
