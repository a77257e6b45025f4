// The Go formatting helpers against values whose Go output is known.
#include <gtest/gtest.h>

#include <cstdint>

#include "client/etcdctl/go_format.h"

namespace dst::etcdctl {
namespace {

TEST(GoFormat, QuoteLikeStrconvQuote) {
  EXPECT_EQ(go_quote("bar3"), "\"bar3\"");
  EXPECT_EQ(go_quote("a\"b\\c\n\t\x01\x7f"), "\"a\\\"b\\\\c\\n\\t\\x01\\x7f\"");
  EXPECT_EQ(go_quote("\xc3\xa9"), "\"\xc3\xa9\"");  // valid UTF-8 stays
  EXPECT_EQ(go_quote("\xff"), "\"\\xff\"");
}

TEST(GoFormat, ParseIntErrorsAndRange) {
  EXPECT_EQ(*go_parse_int("-42", 10), -42);
  EXPECT_EQ(*go_parse_int("7fffffffffffffff", 16), INT64_MAX);
  EXPECT_EQ(go_parse_int("8000000000000000", 16).status().message(),
            "strconv.ParseInt: parsing \"8000000000000000\": value out of range");
  EXPECT_EQ(go_parse_int("", 10).status().message(), "strconv.ParseInt: parsing \"\": invalid syntax");
  EXPECT_EQ(go_parse_int("1_0", 10).status().message(), "strconv.ParseInt: parsing \"1_0\": invalid syntax");
  EXPECT_EQ(*go_parse_uint("ffffffffffffffff", 16), UINT64_MAX);
  EXPECT_EQ(go_parse_uint("10000000000000000", 16).status().message(),
            "strconv.ParseUint: parsing \"10000000000000000\": value out of range");
  EXPECT_EQ(go_parse_uint("-1", 10).status().message(), "strconv.ParseUint: parsing \"-1\": invalid syntax");
  // Go stops at the overflow: a bad character after it is not reported, one before it is.
  EXPECT_EQ(go_parse_uint("1ffffffffffffffffz", 16).status().message(),
            "strconv.ParseUint: parsing \"1ffffffffffffffffz\": value out of range");
  EXPECT_EQ(go_parse_int("99999999999999999999z", 10).status().message(),
            "strconv.ParseInt: parsing \"99999999999999999999z\": value out of range");
  EXPECT_EQ(go_parse_int("9223372036854775808z", 10).status().message(),
            "strconv.ParseInt: parsing \"9223372036854775808z\": invalid syntax");
}

TEST(GoFormat, HexAndHumanize) {
  EXPECT_EQ(hex16(0x694d5765fc71500b), "694d5765fc71500b");
  EXPECT_EQ(hex16(42), "000000000000002a");
  EXPECT_EQ(hex16(-1), "-000000000000001");
  EXPECT_EQ(hex(10673258747690515173ull), "941f08481bec7ae5");
  // The DB SIZE column of the reference page's endpoint status tables.
  EXPECT_EQ(humanize_bytes(20480), "20 kB");
  EXPECT_EQ(humanize_bytes(1048576), "1.0 MB");
  EXPECT_EQ(humanize_bytes(21 * 1000 * 1000 + 123), "21 MB");
  EXPECT_EQ(humanize_bytes(9), "9 B");
  EXPECT_EQ(humanize_bytes(999), "999 B");
  EXPECT_EQ(humanize_bytes(1000), "1.0 kB");
}

// Go's time.Duration.String(), as endpoint health's "took" prints it.
TEST(GoFormat, DurationStringLikeGo) {
  EXPECT_EQ(go_duration_string(0), "0s");
  EXPECT_EQ(go_duration_string(1), "1ns");
  EXPECT_EQ(go_duration_string(999), "999ns");
  EXPECT_EQ(go_duration_string(1000), "1\xc2\xb5s");
  EXPECT_EQ(go_duration_string(1500), "1.5\xc2\xb5s");
  EXPECT_EQ(go_duration_string(6328624), "6.328624ms");
  EXPECT_EQ(go_duration_string(13723790), "13.72379ms");
  EXPECT_EQ(go_duration_string(1000000000), "1s");
  EXPECT_EQ(go_duration_string(1500000000), "1.5s");
  EXPECT_EQ(go_duration_string(61000000000), "1m1s");
  EXPECT_EQ(go_duration_string(90500000001), "1m30.500000001s");
  EXPECT_EQ(go_duration_string(3600000000000), "1h0m0s");
  EXPECT_EQ(go_duration_string(-2500000), "-2.5ms");
  EXPECT_EQ(go_duration_string(INT64_MIN), "-2562047h47m16.854775808s");
  EXPECT_EQ(go_duration_string(INT64_MAX), "2562047h47m16.854775807s");
}

}  // namespace
}  // namespace dst::etcdctl
