#include "node/server/state_machine.h"

#include <cstring>

#include "base/hash.h"

namespace dst::node {

Status HashChain::apply(const raftpb::Entry& entry) {
  if (entry.index() <= applied_index_) return Status::ok();  // a replay
  DST_ASSERT_EQ(entry.index(), applied_index_ + 1);
  applied_index_ = entry.index();
  if (entry.type() != raftpb::ENTRY_NORMAL || entry.data().empty()) return Status::ok();
  ++entries_;
  hash_ = hash_combine(hash_combine(hash_, entry.index()), hash_bytes(entry.data()));
  return Status::ok();
}

Result<std::string> HashChain::snapshot() {
  std::string image(24, '\0');
  std::memcpy(image.data(), &applied_index_, 8);
  std::memcpy(image.data() + 8, &entries_, 8);
  std::memcpy(image.data() + 16, &hash_, 8);
  return image;
}

Status HashChain::restore(const std::string& image, uint64_t index) {
  if (image.empty()) {  // the bootstrap snapshot: nothing applied yet
    applied_index_ = index;
    entries_ = hash_ = 0;
    return Status::ok();
  }
  if (image.size() != 24)
    return Status(StatusCode::kCorruption, "hash-chain snapshot has " + std::to_string(image.size()) +
                                               " bytes, expected 24");
  std::memcpy(&applied_index_, image.data(), 8);
  std::memcpy(&entries_, image.data() + 8, 8);
  std::memcpy(&hash_, image.data() + 16, 8);
  if (applied_index_ != index)
    return Status(StatusCode::kCorruption, "hash-chain snapshot at " + std::to_string(applied_index_) +
                                               " labelled as index " + std::to_string(index));
  return Status::ok();
}

}  // namespace dst::node
