#include "node/server/state_machine.h"

#include <cstring>

#include "base/hash.h"

namespace dst::node {

void HashChain::apply(const raftpb::Entry& entry) {
  DST_ASSERT_GT(entry.index(), applied_index_);
  applied_index_ = entry.index();
  if (entry.data().empty()) return;  // a leader's empty entry
  ++entries_;
  hash_ = hash_combine(hash_combine(hash_, entry.index()), hash_bytes(entry.data()));
}

std::string HashChain::snapshot() const {
  std::string image(24, '\0');
  std::memcpy(image.data(), &applied_index_, 8);
  std::memcpy(image.data() + 8, &entries_, 8);
  std::memcpy(image.data() + 16, &hash_, 8);
  return image;
}

Status HashChain::restore(const std::string& image) {
  if (image.empty()) {  // the bootstrap snapshot: nothing applied yet
    applied_index_ = entries_ = hash_ = 0;
    return Status::ok();
  }
  if (image.size() != 24)
    return Status(StatusCode::kCorruption, "hash-chain snapshot has " + std::to_string(image.size()) +
                                               " bytes, expected 24");
  std::memcpy(&applied_index_, image.data(), 8);
  std::memcpy(&entries_, image.data() + 8, 8);
  std::memcpy(&hash_, image.data() + 16, 8);
  return Status::ok();
}

}  // namespace dst::node
