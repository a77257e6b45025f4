// Tests of virtual-time helpers (sim/time.h): the unit constructors, format_duration's output for
// each unit range and for negatives, format_time's fixed-precision form, and parse_duration's
// accepted and rejected inputs, including overflow.
//
// format_duration's expected strings pin the current implementation (three significant digits below
// one second, a trimmed nanosecond fraction from one second up).
#include "sim/time.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace dst::sim {
namespace {

TEST(TimeUnits, Constructors) {
  EXPECT_EQ(nanoseconds(17), 17);
  EXPECT_EQ(microseconds(3), 3'000);
  EXPECT_EQ(milliseconds(250), 250'000'000);
  EXPECT_EQ(seconds(2), 2'000'000'000);
  EXPECT_EQ(seconds(-1), -1'000'000'000);
  EXPECT_EQ(kForever, INT64_MAX);
  EXPECT_EQ(kTimeNever, INT64_MAX);
}

// --- format_duration -----------------------------------------------------------------------------

TEST(FormatDuration, Nanoseconds) {
  EXPECT_EQ(format_duration(0), "0ns");
  EXPECT_EQ(format_duration(1), "1ns");
  EXPECT_EQ(format_duration(17), "17ns");
  EXPECT_EQ(format_duration(999), "999ns");
}

TEST(FormatDuration, MicrosecondsHaveThreeSignificantDigits) {
  EXPECT_EQ(format_duration(microseconds(1)), "1us");
  EXPECT_EQ(format_duration(1'001), "1us");
  EXPECT_EQ(format_duration(1'500), "1.5us");
  EXPECT_EQ(format_duration(1'234), "1.23us");
  EXPECT_EQ(format_duration(12'345), "12.3us");
  EXPECT_EQ(format_duration(microseconds(250)), "250us");
  EXPECT_EQ(format_duration(99'999), "100us");  // rounded to three digits
  EXPECT_EQ(format_duration(999'499), "999us");
}

TEST(FormatDuration, MillisecondsHaveThreeSignificantDigits) {
  EXPECT_EQ(format_duration(milliseconds(1)), "1ms");
  EXPECT_EQ(format_duration(1'050'000), "1.05ms");
  EXPECT_EQ(format_duration(1'500'000), "1.5ms");
  EXPECT_EQ(format_duration(12'500'000), "12.5ms");
  EXPECT_EQ(format_duration(milliseconds(10)), "10ms");
  EXPECT_EQ(format_duration(9'999'500), "10ms");
  EXPECT_EQ(format_duration(milliseconds(100)), "100ms");
  EXPECT_EQ(format_duration(123'456'789), "123ms");
  EXPECT_EQ(format_duration(milliseconds(999)), "999ms");
  EXPECT_EQ(format_duration(999'499'999), "999ms");
}

TEST(FormatDuration, SecondsKeepEveryNanosecondButTrimZeros) {
  EXPECT_EQ(format_duration(seconds(1)), "1.0s");
  EXPECT_EQ(format_duration(1'500'000'000), "1.5s");
  EXPECT_EQ(format_duration(seconds(2)), "2.0s");
  EXPECT_EQ(format_duration(1'234'567'890), "1.23456789s");
  EXPECT_EQ(format_duration(1'000'000'001), "1.000000001s");
  EXPECT_EQ(format_duration(seconds(10) + milliseconds(250)), "10.25s");
  EXPECT_EQ(format_duration(seconds(60)), "60.0s");  // no minutes: seconds all the way up
  EXPECT_EQ(format_duration(seconds(3600)), "3600.0s");
}

TEST(FormatDuration, Negatives) {
  EXPECT_EQ(format_duration(-1), "-1ns");
  EXPECT_EQ(format_duration(-999), "-999ns");
  EXPECT_EQ(format_duration(-1'500), "-1.5us");
  EXPECT_EQ(format_duration(-milliseconds(12) - 500'000), "-12.5ms");
  EXPECT_EQ(format_duration(-1'500'000'000), "-1.5s");
  EXPECT_EQ(format_duration(-seconds(2)), "-2.0s");
}

TEST(FormatDuration, Extremes) {
  EXPECT_EQ(format_duration(INT64_MAX), "9223372036.854775807s");
  EXPECT_EQ(format_duration(INT64_MIN), "-9223372036.854775808s");
}

TEST(FormatDuration, NegativeIsPositiveWithASign) {
  for (DurationNs d : {DurationNs{1}, DurationNs{42}, DurationNs{1'234}, DurationNs{5'000'000},
                       DurationNs{77'700'000}, seconds(3) + 1, seconds(12345)}) {
    EXPECT_EQ(format_duration(-d), "-" + format_duration(d)) << d;
  }
}

// Below one second the output is rounded to three significant digits, so parsing it back gives
// the value within 0.5% (and exactly from one second up).
TEST(FormatDuration, OutputParsesBackCloseToTheValue) {
  std::vector<DurationNs> values = {0,         1,         17,         999,         1'000,
                                    1'234,     12'345,    99'999,     250'000,     999'499,
                                    1'000'000, 1'050'000, 12'500'000, 123'456'789, 999'499'999};
  for (DurationNs d : {seconds(1), seconds(1) + 1, DurationNs{1'234'567'890}, seconds(3600) + 7}) {
    values.push_back(d);
  }
  for (DurationNs d : values) {
    const std::string text = format_duration(d);
    DurationNs back = -1;
    ASSERT_TRUE(parse_duration(text, &back)) << d << " -> " << text;
    if (d >= seconds(1)) {
      EXPECT_EQ(back, d) << text;
    } else {
      EXPECT_LE(std::abs(static_cast<double>(back - d)), 0.005 * static_cast<double>(d) + 1)
          << d << " -> " << text << " -> " << back;
    }
  }
}

// DEFECT (sim/time.cc:25 and :27, format_duration's "%.3g" branches): a value that rounds up to
// 1000 of its unit is printed in exponent notation: 999'500ns gives "1e+03us" and 999'500'000ns
// gives "1e+03ms", which neither reads well nor parses back. Intended: no exponent, and the same
// round-trip accuracy as every other value (e.g. "1ms" / "1.0s", or the next unit's exact form).
// Enable when fixed.
TEST(FormatDuration, RoundingUpToTheNextUnitHasNoExponent) {
  for (DurationNs d : {DurationNs{999'500}, DurationNs{999'999}, DurationNs{999'500'000},
                       DurationNs{999'999'999}}) {
    const std::string text = format_duration(d);
    EXPECT_EQ(text.find('e'), std::string::npos) << d << " -> " << text;
    DurationNs back = -1;
    ASSERT_TRUE(parse_duration(text, &back)) << d << " -> " << text;
    EXPECT_LE(std::abs(static_cast<double>(back - d)), 0.005 * static_cast<double>(d))
        << d << " -> " << text << " -> " << back;
    EXPECT_EQ(format_duration(-d), "-" + text);
  }
}

// --- format_time ---------------------------------------------------------------------------------

TEST(FormatTime, NineFractionDigitsAlways) {
  EXPECT_EQ(format_time(0), "0.000000000s");
  EXPECT_EQ(format_time(1), "0.000000001s");
  EXPECT_EQ(format_time(milliseconds(1)), "0.001000000s");
  EXPECT_EQ(format_time(1'500'000'000), "1.500000000s");
  EXPECT_EQ(format_time(seconds(2)), "2.000000000s");
  EXPECT_EQ(format_time(12'345'678'901), "12.345678901s");
}

TEST(FormatTime, FixedWidthWithinTheSameNumberOfWholeSeconds) {
  // Every instant below 10s has the same width, so trace columns line up.
  const size_t width = format_time(0).size();
  EXPECT_EQ(width, 12u);
  for (TimeNs t : {TimeNs{1}, TimeNs{999}, microseconds(5), milliseconds(123), seconds(1),
                   seconds(9) + 999'999'999}) {
    EXPECT_EQ(format_time(t).size(), width) << format_time(t);
  }
  // The whole-second part is not padded: one more character per extra digit (see the report).
  EXPECT_EQ(format_time(seconds(10)).size(), width + 1);
  EXPECT_EQ(format_time(seconds(100)).size(), width + 2);
}

TEST(FormatTime, Negatives) {
  EXPECT_EQ(format_time(-1), "-0.000000001s");
  EXPECT_EQ(format_time(-1'500'000'000), "-1.500000000s");
}

TEST(FormatTime, Extremes) {
  EXPECT_EQ(format_time(INT64_MAX), "9223372036.854775807s");
  EXPECT_EQ(format_time(INT64_MIN), "-9223372036.854775808s");
}

// --- parse_duration ------------------------------------------------------------------------------

DurationNs parsed(const std::string& text) {
  DurationNs out = -12345;
  EXPECT_TRUE(parse_duration(text, &out)) << "rejected \"" << text << "\"";
  return out;
}

bool rejects(const std::string& text) {
  DurationNs out = 0;
  return !parse_duration(text, &out);
}

TEST(ParseDuration, AcceptsEveryUnit) {
  EXPECT_EQ(parsed("17ns"), 17);
  EXPECT_EQ(parsed("300us"), microseconds(300));
  EXPECT_EQ(parsed("250ms"), milliseconds(250));
  EXPECT_EQ(parsed("10s"), seconds(10));
  EXPECT_EQ(parsed("2m"), seconds(120));
  EXPECT_EQ(parsed("1h"), seconds(3600));
}

TEST(ParseDuration, AcceptsZeroAndLeadingZeros) {
  EXPECT_EQ(parsed("0s"), 0);
  EXPECT_EQ(parsed("0ns"), 0);
  EXPECT_EQ(parsed("00010ms"), milliseconds(10));
}

TEST(ParseDuration, AcceptsFractions) {
  EXPECT_EQ(parsed("1.5s"), 1'500'000'000);
  EXPECT_EQ(parsed("0.5ms"), microseconds(500));
  EXPECT_EQ(parsed("1.25us"), 1'250);
  EXPECT_EQ(parsed("1.5m"), seconds(90));
  EXPECT_EQ(parsed("0.25h"), seconds(900));
  EXPECT_EQ(parsed("1.000000001s"), seconds(1) + 1);
  EXPECT_EQ(parsed("12.345678901s"), 12'345'678'901);
}

TEST(ParseDuration, SubNanosecondFractionsAreTruncated) {
  EXPECT_EQ(parsed("1.5ns"), 1);
  EXPECT_EQ(parsed("0.9ns"), 0);
  EXPECT_EQ(parsed("1.9999999999s"), 1'999'999'999);  // the tenth digit is dropped, not rounded
  EXPECT_EQ(parsed("0.0000000001s"), 0);
}

TEST(ParseDuration, LenientAboutAMissingSideOfTheDot) {
  // Current behaviour: one side of the dot may be empty.
  EXPECT_EQ(parsed(".5s"), milliseconds(500));
  EXPECT_EQ(parsed("5.s"), seconds(5));
  EXPECT_TRUE(rejects(".s"));
  EXPECT_TRUE(rejects("."));
}

TEST(ParseDuration, RejectsMalformedInput) {
  EXPECT_TRUE(rejects(""));
  EXPECT_TRUE(rejects("ms"));
  EXPECT_TRUE(rejects("s"));
  EXPECT_TRUE(rejects("10"));   // no unit
  EXPECT_TRUE(rejects("1.5"));  // no unit
  EXPECT_TRUE(rejects("-1s"));  // negative
  EXPECT_TRUE(rejects("+1s"));
  EXPECT_TRUE(rejects("10 s"));  // inner space
  EXPECT_TRUE(rejects(" 10s"));  // leading space
  EXPECT_TRUE(rejects("10s "));  // trailing space
  EXPECT_TRUE(rejects("1e3s"));  // no exponents
  EXPECT_TRUE(rejects("10S"));   // units are case-sensitive
  EXPECT_TRUE(rejects("10MS"));
  EXPECT_TRUE(rejects("10sec"));
  EXPECT_TRUE(rejects("10d"));  // no days
  EXPECT_TRUE(rejects("1.2.3s"));
  EXPECT_TRUE(rejects("1..5s"));
  EXPECT_TRUE(rejects("1s500ms"));  // no compound durations
  EXPECT_TRUE(rejects("0x10s"));
  EXPECT_TRUE(rejects("1,5s"));
}

TEST(ParseDuration, RejectsOverflow) {
  EXPECT_TRUE(rejects("99999999999999999999s"));
  EXPECT_TRUE(rejects("99999999999999999999ns"));
  EXPECT_TRUE(rejects("9999999999999999999999999999999ns"));
  EXPECT_TRUE(rejects("9223372037s"));  // just above INT64_MAX ns
  EXPECT_TRUE(rejects("153722868m"));
  EXPECT_TRUE(rejects("2562048h"));
  EXPECT_TRUE(rejects("9223372036.9s"));  // the fraction pushes it over
}

TEST(ParseDuration, AcceptsTheLargestValuesThatFit) {
  EXPECT_EQ(parsed("9223372036s"), 9'223'372'036'000'000'000);
  EXPECT_EQ(parsed("9223372036.854775807s"), INT64_MAX);
  EXPECT_EQ(parsed("153722867m"), 153'722'867 * seconds(60));
  EXPECT_EQ(parsed("2562047h"), 2'562'047 * seconds(3600));
  EXPECT_EQ(parsed("922337203685477580ns"), 922'337'203'685'477'580);
}

// DEFECT (sim/time.cc:49, parse_duration, the digit loop's guard `whole > (INT64_MAX - 9) / 10`):
// it rejects any 19-digit count starting 92233720368547758, although values up to INT64_MAX fit, so
// "9223372036854775807ns" (INT64_MAX) is refused. Enable when the guard checks the actual digit.
TEST(ParseDuration, AcceptsInt64MaxNanoseconds) {
  EXPECT_EQ(parsed("9223372036854775807ns"), INT64_MAX);
  EXPECT_EQ(parsed("9223372036854775800ns"), INT64_MAX - 7);
  EXPECT_TRUE(rejects("9223372036854775808ns"));
}

TEST(ParseDuration, RoundTripsFormatDurationFromOneSecondUp) {
  for (DurationNs d : {seconds(1), seconds(1) + 1, DurationNs{1'234'567'890}, seconds(59),
                       seconds(86'400) + 999'999'999, INT64_MAX}) {
    EXPECT_EQ(parsed(format_duration(d)), d) << format_duration(d);
  }
}

}  // namespace
}  // namespace dst::sim
