// CRC-32C against published check values (RFC 3720 appendix B.4 and the CRC catalogue).
#include "base/crc32c.h"

#include <gtest/gtest.h>

#include <string>

namespace dst {
namespace {

TEST(Crc32c, CatalogueCheckValue) { EXPECT_EQ(crc32c("123456789"), 0xE3069283u); }

TEST(Crc32c, EmptyInputIsZero) { EXPECT_EQ(crc32c(""), 0u); }

TEST(Crc32c, Rfc3720Vectors) {
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  EXPECT_EQ(crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c(descending), 0x113FDB5Cu);
}

TEST(Crc32c, ExtendEqualsOneShot) {
  const std::string a = "write-ahead ", b = "log";
  EXPECT_EQ(crc32c_extend(crc32c(a), b.data(), b.size()), crc32c(a + b));
}

TEST(Crc32c, OneFlippedBitChangesTheChecksum) {
  std::string data(100, 'x');
  const uint32_t clean = crc32c(data);
  data[50] ^= 0x04;
  EXPECT_NE(crc32c(data), clean);
}

}  // namespace
}  // namespace dst
