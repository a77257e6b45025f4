// Snapshot files; see snapshotter.h.
#include "node/wal/snapshotter.h"

#include "base/crc32c.h"
#include "node/wal/file_names.h"
#include "proto/wal.pb.h"

namespace dst::wal {
namespace {

Status corrupt(const std::string& file, const std::string& reason) {
  return Status(StatusCode::kCorruption, "snap: " + file + ": " + reason);
}

}  // namespace

Status Snapshotter::save(const raftpb::Snapshot& snapshot) {
  const uint64_t index = snapshot.metadata().index();
  if (index == 0) return Status(StatusCode::kInvalidArgument, "snap: snapshot at index 0");
  walpb::SnapshotFile contents;
  const bool serialized = snapshot.SerializeToString(contents.mutable_snapshot());
  DST_ASSERT(serialized);
  contents.set_crc32c(crc32c(contents.snapshot()));
  const std::string bytes = contents.SerializeAsString();
  if (bytes.size() > limits::kSnapshotFileBytesMax) {
    return Status(StatusCode::kInvalidArgument,
                  "snap: snapshot of " + std::to_string(bytes.size()) + " bytes exceeds the limit");
  }
  const std::string file = snapshot_file_name(dir_, {snapshot.metadata().term(), index});
  const std::string temp = file + std::string(kTempSuffix);
  Result<sim::FileId> id = fs_.open(temp, sim::OpenMode::kCreate);
  if (!id.is_ok()) return id.status();
  // A leftover temp file of a crashed save: start it empty.
  if (Status st = fs_.truncate(*id, 0); !st.is_ok()) return st;
  if (Status st = fs_.write(*id, 0, bytes); !st.is_ok()) return st;
  if (Status st = fs_.fsync(*id); !st.is_ok()) return st;
  if (Status st = fs_.rename(temp, file); !st.is_ok()) return st;
  return fs_.sync_dir();
}

Result<std::vector<std::string>> Snapshotter::files() const {
  const std::string prefix = snap_dir_prefix(dir_);
  std::vector<std::string> names;
  for (const std::string& file : fs_.list(prefix)) {  // sorted: oldest (term, index) first
    if (!parse_snapshot_name(file.substr(prefix.size()))) continue;  // temp or foreign file
    if (names.size() >= limits::kSnapshotFilesMax) {
      return Status(StatusCode::kResourceExhausted, "snap: more than " +
                                                        std::to_string(limits::kSnapshotFilesMax) +
                                                        " snapshot files in " + prefix);
    }
    names.push_back(file);
  }
  return names;
}

Result<raftpb::Snapshot> Snapshotter::load_file(const std::string& file, uint64_t index,
                                                uint64_t term) {
  Result<sim::FileId> id = fs_.open(file, sim::OpenMode::kExisting);
  if (!id.is_ok()) return id.status();
  Result<uint64_t> size = fs_.size(*id);
  if (!size.is_ok()) return size.status();
  if (*size > limits::kSnapshotFileBytesMax) {
    return corrupt(file, std::to_string(*size) + " bytes, more than any snapshot can be");
  }
  Result<std::string> bytes = fs_.read(*id, 0, *size);
  if (!bytes.is_ok()) return bytes.status();
  walpb::SnapshotFile contents;
  if (bytes->empty() || !contents.ParseFromString(*bytes)) {
    return corrupt(file, "does not parse as a snapshot file (" + std::to_string(*size) + " bytes)");
  }
  const uint32_t computed = crc32c(contents.snapshot());
  if (computed != contents.crc32c()) {
    return corrupt(file, "checksum mismatch (stored " + std::to_string(contents.crc32c()) +
                             ", computed " + std::to_string(computed) + ")");
  }
  raftpb::Snapshot snapshot;
  if (!snapshot.ParseFromString(contents.snapshot())) {
    return corrupt(file, "checksum matches but the snapshot does not parse");
  }
  if (snapshot.metadata().index() != index || snapshot.metadata().term() != term) {
    return corrupt(file, "holds the snapshot at index " +
                             std::to_string(snapshot.metadata().index()) + " term " +
                             std::to_string(snapshot.metadata().term()) + ", not its name's");
  }
  return snapshot;
}

Result<NewestSnapshot> Snapshotter::load_newest() {
  Result<std::vector<std::string>> names = files();
  if (!names.is_ok()) return names.status();
  const std::string prefix = snap_dir_prefix(dir_);
  NewestSnapshot newest;
  for (auto it = names->rbegin(); it != names->rend(); ++it) {
    const std::optional<SnapshotName> name = parse_snapshot_name(it->substr(prefix.size()));
    DST_ASSERT(name.has_value());  // files() keeps only parseable names
    Result<raftpb::Snapshot> loaded = load_file(*it, name->index, name->term);
    if (loaded.is_ok()) {
      newest.snapshot = std::move(*loaded);
      return newest;
    }
    if (loaded.status().code() != StatusCode::kCorruption) return loaded.status();
    newest.broken.push_back(loaded.status().message());
  }
  return newest;
}

Result<raftpb::Snapshot> Snapshotter::load(uint64_t index, uint64_t term) {
  const std::string file = snapshot_file_name(dir_, {term, index});
  if (!fs_.exists(file)) {
    return Status(StatusCode::kNotFound, "snap: no snapshot file " + file);
  }
  return load_file(file, index, term);
}

Status Snapshotter::remove_older(size_t keep) {
  if (keep == 0) return Status(StatusCode::kInvalidArgument, "snap: must keep at least one");
  const std::string prefix = snap_dir_prefix(dir_);
  for (const std::string& file : fs_.list(prefix)) {
    if (!ends_with_temp_suffix(file)) continue;
    if (Status st = fs_.remove(file); !st.is_ok()) return st;
  }
  Result<std::vector<std::string>> names = files();
  if (!names.is_ok()) return names.status();
  for (size_t k = 0; k + keep < names->size(); ++k) {
    if (Status st = fs_.remove((*names)[k]); !st.is_ok()) return st;
  }
  return Status::ok();
}

}  // namespace dst::wal
