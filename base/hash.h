// Deterministic 64-bit hashing for trace digests and sub-stream derivation.
//
// Our own code, not std::hash: std::hash differs between standard libraries and may be seeded.
// Not cryptographic; it only has to spread bits well and be identical everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace dst {

// The splitmix64 finalizer: a bijective mix of 64 bits.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Combines a running hash with one more 64-bit value; order-sensitive.
constexpr uint64_t hash_combine(uint64_t seed, uint64_t value) {
  return mix64(seed ^ (value + 0x632be59bd9b4e019ULL + (seed << 6) + (seed >> 2)));
}

// Hash of a byte string, 8 bytes at a time.
// (Named apart from hash_bytes so that hash_bytes("abc", 1) cannot pick this with size 1.)
uint64_t hash_memory(const void* data, size_t size, uint64_t seed = 0);
inline uint64_t hash_bytes(std::string_view s, uint64_t seed = 0) {
  return hash_memory(s.data(), s.size(), seed);
}

}  // namespace dst
