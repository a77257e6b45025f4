// Big-endian fixed-width integers, as etcd's keys encode them (revisions, lease ids, alarm keys,
// the backend's meta values) and as dst's own file formats write their trailers: one rule for
// every place that writes or reads one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/assert.h"

namespace dst {

// Appends the low `width` bytes of v (1..8), most significant first.
inline void append_be(std::string& out, uint64_t v, size_t width = 8) {
  DST_ASSERT(width >= 1 && width <= 8);
  for (size_t i = width; i-- > 0;) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// v as 8 bytes, most significant first.
inline std::string be64(uint64_t v) {
  std::string out;
  out.reserve(8);
  append_be(out, v);
  return out;
}

// All of `in` (at most 8 bytes; none reads as 0) as one big-endian number.
inline uint64_t read_be(std::string_view in) {
  DST_ASSERT_LE(in.size(), 8u);
  uint64_t v = 0;
  for (char c : in) v = (v << 8) | static_cast<uint8_t>(c);
  return v;
}

}  // namespace dst
