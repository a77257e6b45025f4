// Table-driven CRC-32C; see crc32c.h.
#include "base/crc32c.h"

#include <array>

namespace dst {
namespace {

constexpr uint32_t kPolynomialReflected = 0x82F63B78u;

// One table entry per byte value: the CRC of that byte alone, computed bit by bit at compile time.
constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? kPolynomialReflected : 0u);
    table[byte] = crc;
  }
  return table;
}

constexpr std::array<uint32_t, 256> kTable = make_table();

}  // namespace

uint32_t crc32c_extend(uint32_t crc, const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  // The pre- and post-inversion make extend() composable: the running value is kept un-inverted.
  uint32_t state = ~crc;
  for (size_t i = 0; i < size; ++i) state = kTable[(state ^ p[i]) & 0xFFu] ^ (state >> 8);
  return ~state;
}

}  // namespace dst
