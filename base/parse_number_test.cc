// The one number parser's one rule: the whole text, nothing around it, in range.
#include "base/parse_number.h"

#include <gtest/gtest.h>

namespace dst {
namespace {

TEST(ParseNumber, TheWholeTextIsTheNumber) {
  EXPECT_EQ(parse_u64("0"), 0u);
  EXPECT_EQ(parse_u64("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_i64("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(parse_u64("ff", 16), 255u);
  for (const char* bad : {"", " 1", "1 ", "+1", "1x", "0x10", "18446744073709551616", "-1", "1.0", "\n1"})
    EXPECT_FALSE(parse_u64(bad)) << "'" << bad << "'";
  for (const char* bad : {"", "+1", " -1", "9223372036854775808", "--1", "-"}) EXPECT_FALSE(parse_i64(bad)) << bad;
}

TEST(ParseNumber, RangeOfTheAskedType) {
  EXPECT_EQ(parse_unsigned<uint8_t>("255"), 255);
  EXPECT_FALSE(parse_unsigned<uint8_t>("256"));
  EXPECT_EQ(parse_signed<int32_t>("-2147483648"), INT32_MIN);
  EXPECT_FALSE(parse_signed<int32_t>("2147483648"));
}

TEST(ParseNumber, DoublesAreFiniteAndWhole) {
  EXPECT_EQ(parse_double("1.5"), 1.5);
  EXPECT_EQ(parse_double("-2"), -2.0);
  EXPECT_EQ(parse_double("1e3"), 1000.0);
  for (const char* bad : {"", "inf", "nan", " 1", "+1", "1.5s", "1e999"}) EXPECT_FALSE(parse_double(bad)) << bad;
}

}  // namespace
}  // namespace dst
