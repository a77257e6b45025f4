// The bug zoo's applied-index-not-atomic (base/bugs.h, etcd #13766 / #14685) as a layer beside the
// backend: the applied index is also written to a file of its own and fsynced at once, apart from
// the backend batch that holds the data it describes, and at open that file wins. A power loss
// after the file's sync but before the batch's commit leaves an applied index ahead of the data,
// so the entries in between are never applied on this member. The KV state machine builds one
// only when the bug is on; the backend knows nothing of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "sim/file_system.h"

namespace dst::node {

class AppliedIndexApart {
 public:
  // `path`: the file kept apart (the backend's path + ".applied").
  AppliedIndexApart(sim::FileSystem& fs, std::string path) : fs_(fs), path_(std::move(path)) {}
  // Writes and fsyncs `index` (and the directory, so the file itself survives a power loss).
  Status save(uint64_t index);
  // The index last saved and kept, if the file holds one.
  std::optional<uint64_t> load();

 private:
  sim::FileSystem& fs_;
  std::string path_;
};

}  // namespace dst::node
