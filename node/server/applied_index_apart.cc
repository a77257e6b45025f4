#include "node/server/applied_index_apart.h"

#include "base/big_endian.h"

namespace dst::node {

namespace {
constexpr size_t kIndexBytes = 8;
}  // namespace

Status AppliedIndexApart::save(uint64_t index) {
  Result<sim::FileId> f = fs_.open(path_, sim::OpenMode::kCreate);
  if (!f.is_ok()) return f.status();
  static_assert(kIndexBytes == 8);
  const std::string bytes = be64(index);
  if (Status s = fs_.write(*f, 0, bytes); !s.is_ok()) return s;
  if (Status s = fs_.fsync(*f); !s.is_ok()) return s;
  return fs_.sync_dir();
}

std::optional<uint64_t> AppliedIndexApart::load() {
  Result<sim::FileId> f = fs_.open(path_, sim::OpenMode::kExisting);
  if (!f.is_ok()) return std::nullopt;
  Result<std::string> bytes = fs_.read(*f, 0, kIndexBytes);
  if (!bytes.is_ok() || bytes->size() != kIndexBytes) return std::nullopt;
  return read_be(*bytes);
}

}  // namespace dst::node
