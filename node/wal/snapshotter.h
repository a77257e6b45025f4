// Snapshot files of an etcd-style node: "<dir>/snap/<term>-<index>.snap" (file_names.h), each a
// walpb::SnapshotFile holding the serialized raftpb::Snapshot and its CRC-32C.
//
// save() is durable when it returns: the file is written under a ".tmp" name, fsynced, renamed
// into place and the directory synced, so a snapshot name never exists without its content. The
// WAL's snapshot marker must be saved only after that (etcd's order), so a marker always has its
// file unless the file later decays; then load_newest() falls back to an older snapshot and the
// caller opens the WAL from that one's marker.
//
// All methods block the calling fiber on disk I/O. Broken files are reported, never deleted or
// renamed: what to do with them is the operator's decision, and they are evidence.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/limits.h"
#include "base/status.h"
#include "proto/raft.pb.h"
#include "sim/file_system.h"

namespace dst::wal {

struct NewestSnapshot {
  std::optional<raftpb::Snapshot> snapshot;  // nullopt: no snapshot could be loaded
  // Newer snapshot files that were skipped, as "<file>: <reason>", newest first.
  std::vector<std::string> broken;
};

class Snapshotter {
 public:
  Snapshotter(sim::FileSystem& fs, std::string dir) : fs_(fs), dir_(std::move(dir)) {}

  // kInvalidArgument for a snapshot at index 0 or larger than limits::kSnapshotFileBytesMax.
  Status save(const raftpb::Snapshot& snapshot);
  // The newest snapshot whose file is whole and verifies; broken newer ones are skipped and listed.
  // Errors only for I/O failures, not for broken files.
  Result<NewestSnapshot> load_newest();
  // kNotFound if there is no such file; kCorruption (naming the file and the reason) if broken.
  Result<raftpb::Snapshot> load(uint64_t index, uint64_t term);
  // Removes all but the newest `keep` (>= 1) snapshot files, and leftover temp files. Promises no
  // durability, so it syncs nothing.
  Status remove_older(size_t keep = limits::kSnapshotsKeptDefault);
  // Snapshot file names, oldest first.
  Result<std::vector<std::string>> files() const;

 private:
  Result<raftpb::Snapshot> load_file(const std::string& file, uint64_t index, uint64_t term);

  sim::FileSystem& fs_;
  std::string dir_;
};

}  // namespace dst::wal
