#include "base/hash.h"

#include <cstring>

namespace dst {

uint64_t hash_memory(const void* data, size_t size, uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = mix64(seed ^ (size * 0x9ddfea08eb382d69ULL));
  while (size >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);  // little-endian machines only; asserted in hash_test
    h = hash_combine(h, word);
    p += 8;
    size -= 8;
  }
  uint64_t tail = 0;
  for (size_t i = 0; i < size; ++i) tail |= static_cast<uint64_t>(p[i]) << (8 * i);
  return hash_combine(h, tail ^ (static_cast<uint64_t>(size) << 56));
}

}  // namespace dst
