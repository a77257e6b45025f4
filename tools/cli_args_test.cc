// Tests of dst's command-line parser (tools/cli_args.h, dst::cli::Args): flags, options with a
// separate or an inline (--x=y) value, optional and required positionals, the usage errors and
// their messages, u64 and duration values, "--" passthrough, --help, and the usage text.
#include "tools/cli_args.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.h"

namespace dst::cli {
namespace {

// The declarations `dst run` uses, roughly.
Args make_run_args(std::vector<std::string> argv) {
  Args args("dst run", std::move(argv));
  args.positional("WORLD", "the world to run", true);
  args.option("seed", "N", "the seed");
  args.option("duration", "D", "virtual time to run");
  args.flag("no-faults", "run without the nemesis");
  args.flag("verbose", "say more");
  return args;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(CliArgs, EmptyCommandLineParses) {
  Args args = make_run_args({});
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_FALSE(args.has("seed"));
  EXPECT_FALSE(args.has("no-faults"));
  EXPECT_FALSE(args.has("help"));
  EXPECT_EQ(args.value("seed"), std::nullopt);
  EXPECT_EQ(args.positional_value("WORLD"), std::nullopt);
  EXPECT_TRUE(args.passthrough().empty());
}

TEST(CliArgs, FlagsAreSetWhenGiven) {
  Args args = make_run_args({"--no-faults"});
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_TRUE(args.has("no-faults"));
  EXPECT_FALSE(args.has("verbose"));
  EXPECT_EQ(args.value("no-faults"), "");  // a flag's value is empty
}

TEST(CliArgs, FlagWithInlineValueIsAnError) {
  Args args = make_run_args({"--no-faults=yes"});
  const Status st = args.parse();
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "dst run: --no-faults takes no value");
}

TEST(CliArgs, OptionWithSeparateValue) {
  Args args = make_run_args({"--seed", "1234"});
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_TRUE(args.has("seed"));
  EXPECT_EQ(args.value("seed"), "1234");
}

TEST(CliArgs, OptionWithInlineValue) {
  Args args = make_run_args({"--seed=1234", "--duration=10s"});
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_EQ(args.value("seed"), "1234");
  EXPECT_EQ(args.value("duration"), "10s");
}

TEST(CliArgs, InlineValueMayBeEmptyOrContainEquals) {
  Args args = make_run_args({"--seed=", "--duration=a=b"});
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_TRUE(args.has("seed"));
  EXPECT_EQ(args.value("seed"), "");
  EXPECT_EQ(args.value("duration"), "a=b");  // split at the first '='
}

TEST(CliArgs, AnOptionIsNotTakenAsTheValueOfTheOneBefore) {
  Args args = make_run_args({"--seed", "--verbose"});
  Status st = args.parse();
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("--seed expects a value"), std::string::npos) << st.message();
}

TEST(CliArgs, DashHIsHelpAndOtherSingleDashOptionsAreErrors) {
  Args help = make_run_args({"-h"});
  ASSERT_TRUE(help.parse().is_ok());
  EXPECT_TRUE(help.has("help"));
  Args bad = make_run_args({"-s", "1"});
  Status st = bad.parse();
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("unknown option '-s'"), std::string::npos) << st.message();
}

TEST(CliArgs, OptionsAndPositionalsMayInterleave) {
  Args args = make_run_args({"--seed", "7", "demo", "--no-faults"});
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_EQ(args.value("seed"), "7");
  EXPECT_EQ(args.positional_value("WORLD"), "demo");
  EXPECT_TRUE(args.has("no-faults"));
}

TEST(CliArgs, OptionalPositionalMayBeOmittedOrGiven) {
  Args without = make_run_args({"--verbose"});
  ASSERT_TRUE(without.parse().is_ok());
  EXPECT_EQ(without.positional_value("WORLD"), std::nullopt);

  Args with = make_run_args({"demo"});
  ASSERT_TRUE(with.parse().is_ok());
  EXPECT_EQ(with.positional_value("WORLD"), "demo");
}

TEST(CliArgs, RequiredPositionalsInOrder) {
  Args args("dst check", {"run.db", "out.html"});
  args.positional("DB", "the run database", false);
  args.positional("REPORT", "where to write the report", false);
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_EQ(args.positional_value("DB"), "run.db");
  EXPECT_EQ(args.positional_value("REPORT"), "out.html");
}

TEST(CliArgs, MorePositionalsAreKeptInOrderUpToTheirBound) {
  Args args("dst check", {"a.edn", "--budget", "5", "b.edn", "c.edn"});
  args.positional("FILE", "a history", false);
  args.option("budget", "STEPS", "steps");
  args.more_positionals(2);
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_EQ(args.positional_value("FILE"), "a.edn");
  EXPECT_EQ(args.more(), (std::vector<std::string>{"b.edn", "c.edn"}));
  EXPECT_NE(args.usage().find("FILE ..."), std::string::npos);

  Args over("dst check", {"a", "b", "c", "d"});
  over.positional("FILE", "a history", false);
  over.more_positionals(2);
  const Status st = over.parse();
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(), "dst check: unexpected argument 'd' (at most 2 more)");

  Args none("dst check", {"a", "b"});
  none.positional("FILE", "a history", false);
  EXPECT_EQ(none.parse().message(), "dst check: unexpected argument 'b'");
}

TEST(CliArgs, MissingRequiredPositionalNamesIt) {
  Args args("dst check", {"run.db"});
  args.positional("DB", "the run database", false);
  args.positional("REPORT", "where to write the report", false);
  const Status st = args.parse();
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "dst check: missing REPORT");
}

TEST(CliArgs, RequiredAfterOptionalPositional) {
  Args args("dst x", {"a"});
  args.positional("FIRST", "required", false);
  args.positional("SECOND", "optional", true);
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_EQ(args.positional_value("FIRST"), "a");
  EXPECT_EQ(args.positional_value("SECOND"), std::nullopt);
}

TEST(CliArgs, TooManyPositionalsIsAnError) {
  Args args = make_run_args({"demo", "extra"});
  const Status st = args.parse();
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "dst run: unexpected argument 'extra'");
}

TEST(CliArgs, SingleDashArgumentIsAPositional) {
  // Only "--" introduces an option; "-" (stdin, by convention) and "-x" are positional values.
  Args args("dst x", {"-"});
  args.positional("FILE", "input", false);
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_EQ(args.positional_value("FILE"), "-");
}

TEST(CliArgs, UnknownOptionErrorNamesTheOption) {
  Args args = make_run_args({"--seed", "1", "--sed", "2"});
  const Status st = args.parse();
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "dst run: unknown option '--sed'");
}

TEST(CliArgs, UnknownOptionWithInlineValueNamesOnlyTheOption) {
  Args args = make_run_args({"--colour=red"});
  const Status st = args.parse();
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(), "dst run: unknown option '--colour'");
}

TEST(CliArgs, MissingValueErrorNamesOptionAndValue) {
  Args args = make_run_args({"--seed"});
  const Status st = args.parse();
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "dst run: --seed expects a value (N)");
}

TEST(CliArgs, U64ParsesValueOrDefault) {
  Args args = make_run_args({"--seed", "18446744073709551615"});
  ASSERT_TRUE(args.parse().is_ok());
  Result<uint64_t> seed = args.u64("seed", 5);
  ASSERT_TRUE(seed.is_ok()) << seed.status().to_string();
  EXPECT_EQ(*seed, UINT64_MAX);
  // Not given: the default.
  Args none = make_run_args({});
  ASSERT_TRUE(none.parse().is_ok());
  Result<uint64_t> dflt = none.u64("seed", 5);
  ASSERT_TRUE(dflt.is_ok());
  EXPECT_EQ(*dflt, 5u);
}

TEST(CliArgs, U64ErrorsNameTheFlagAndTheBadValue) {
  for (const std::string bad : {"", "abc", "12x", "-1", "+1", " 1", "1 ", "1.5", "0x10",
                                "18446744073709551616", "99999999999999999999999"}) {
    Args args = make_run_args({"--seed=" + bad});
    ASSERT_TRUE(args.parse().is_ok());
    Result<uint64_t> seed = args.u64("seed", 0);
    ASSERT_FALSE(seed.is_ok()) << "accepted '" << bad << "'";
    EXPECT_EQ(seed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(seed.status().message(),
              "dst run: --seed expects an unsigned 64-bit integer, got '" + bad + "'");
  }
}

TEST(CliArgs, U64AcceptsZeroAndLeadingZeros) {
  Args args = make_run_args({"--seed", "000"});
  ASSERT_TRUE(args.parse().is_ok());
  Result<uint64_t> seed = args.u64("seed", 9);
  ASSERT_TRUE(seed.is_ok());
  EXPECT_EQ(*seed, 0u);
}

TEST(CliArgs, DurationParsesValueOrDefault) {
  Args args = make_run_args({"--duration", "1.5s"});
  ASSERT_TRUE(args.parse().is_ok());
  Result<int64_t> d = args.duration_ns("duration", sim::seconds(10), 1, sim::seconds(3600));
  ASSERT_TRUE(d.is_ok()) << d.status().to_string();
  EXPECT_EQ(*d, sim::milliseconds(1500));

  Args none = make_run_args({});
  ASSERT_TRUE(none.parse().is_ok());
  Result<int64_t> dflt = none.duration_ns("duration", sim::seconds(10), 1, sim::seconds(3600));
  ASSERT_TRUE(dflt.is_ok());
  EXPECT_EQ(*dflt, sim::seconds(10));
}

TEST(CliArgs, DurationAcceptsEveryUnit) {
  const std::vector<std::pair<std::string, int64_t>> cases = {
      {"17ns", 17},
      {"300us", sim::microseconds(300)},
      {"250ms", sim::milliseconds(250)},
      {"10s", sim::seconds(10)},
      {"2m", sim::seconds(120)},
      {"1h", sim::seconds(3600)},
  };
  for (const auto& [text, want] : cases) {
    Args args = make_run_args({"--duration=" + text});
    ASSERT_TRUE(args.parse().is_ok());
    Result<int64_t> d = args.duration_ns("duration", 0, 0, sim::seconds(3600));
    ASSERT_TRUE(d.is_ok()) << text;
    EXPECT_EQ(*d, want) << text;
  }
}

TEST(CliArgs, DurationOutsideItsRangeIsRefused) {
  for (const std::string bad : {"0s", "0ms", "500ms", "2h"}) {
    Args args = make_run_args({"--duration", bad});
    ASSERT_TRUE(args.parse().is_ok());
    Result<int64_t> d = args.duration_ns("duration", sim::seconds(10), sim::seconds(1), sim::seconds(3600));
    ASSERT_FALSE(d.is_ok()) << "accepted '" << bad << "'";
    EXPECT_NE(d.status().message().find("expected 1.0s..3600.0s"), std::string::npos) << d.status().message();
  }
}

TEST(CliArgs, AnOptionGivenTwiceIsRefused) {
  for (const std::vector<std::string>& argv : std::vector<std::vector<std::string>>{
           {"--seed", "1", "--seed", "2"}, {"--seed=1", "--seed", "1"}, {"--no-faults", "--no-faults"}}) {
    Args args = make_run_args(argv);
    Status st = args.parse();
    ASSERT_FALSE(st.is_ok());
    EXPECT_NE(st.message().find("is given more than once"), std::string::npos) << st.message();
  }
}

TEST(CliArgs, DurationErrorsNameTheFlagAndTheBadValue) {
  for (const std::string bad : {"", "10", "ms", "-1s", "10 s", "1e3s", "99999999999999999999s"}) {
    Args args = make_run_args({"--duration", bad});
    ASSERT_TRUE(args.parse().is_ok());
    Result<int64_t> d = args.duration_ns("duration", 0, 0, sim::seconds(3600));
    ASSERT_FALSE(d.is_ok()) << "accepted '" << bad << "'";
    EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(d.status().message(),
              "dst run: --duration expects a duration like 500ms, 10s or 2m, got '" + bad + "'");
  }
}

TEST(CliArgs, DoubleDashPassesTheRestThrough) {
  Args args = make_run_args({"--seed", "3", "--", "--not-ours", "demo", "--", "x"});
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_EQ(args.value("seed"), "3");
  EXPECT_EQ(args.passthrough(), (std::vector<std::string>{"--not-ours", "demo", "--", "x"}));
  // Nothing after "--" is interpreted.
  EXPECT_EQ(args.positional_value("WORLD"), std::nullopt);
}

TEST(CliArgs, DoubleDashAtTheEndGivesEmptyPassthrough) {
  Args args = make_run_args({"demo", "--"});
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_EQ(args.positional_value("WORLD"), "demo");
  EXPECT_TRUE(args.passthrough().empty());
}

TEST(CliArgs, DoubleDashDoesNotSatisfyARequiredPositional) {
  Args args("dst x", {"--", "file"});
  args.positional("FILE", "input", false);
  const Status st = args.parse();
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(), "dst x: missing FILE");
}

TEST(CliArgs, HelpIsAlwaysDeclared) {
  Args args("dst x", {"--help"});
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_TRUE(args.has("help"));
}

TEST(CliArgs, HelpSkipsTheRequiredPositionalCheck) {
  Args args("dst check", {"--help"});
  args.positional("DB", "the run database", false);
  ASSERT_TRUE(args.parse().is_ok());
  EXPECT_TRUE(args.has("help"));
  EXPECT_EQ(args.positional_value("DB"), std::nullopt);
}

TEST(CliArgs, HelpDoesNotExcuseAnUnknownOption) {
  Args args("dst check", {"--help", "--bogus"});
  const Status st = args.parse();
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(), "dst check: unknown option '--bogus'");
}

TEST(CliArgs, UsageListsEveryOptionPositionalAndHelp) {
  Args args = make_run_args({});
  args.positional("EXTRA", "a required extra", false);
  const std::string usage = args.usage();
  EXPECT_EQ(usage.rfind("usage: dst run [options] [WORLD] EXTRA\n", 0), 0u) << usage;
  EXPECT_TRUE(contains(usage, "  WORLD\n      the world to run\n")) << usage;
  EXPECT_TRUE(contains(usage, "  EXTRA\n      a required extra\n")) << usage;
  EXPECT_TRUE(contains(usage, "  --seed N\n      the seed\n")) << usage;
  EXPECT_TRUE(contains(usage, "  --duration D\n      virtual time to run\n")) << usage;
  EXPECT_TRUE(contains(usage, "  --no-faults\n      run without the nemesis\n")) << usage;
  EXPECT_TRUE(contains(usage, "  --verbose\n      say more\n")) << usage;
  EXPECT_TRUE(contains(usage, "  --help\n      show this help\n")) << usage;
}

TEST(CliArgs, UsageListsOptionsInNameOrder) {
  Args args("dst x", {});
  args.flag("zeta", "last");
  args.option("alpha", "A", "first");
  const std::string usage = args.usage();
  const size_t alpha = usage.find("--alpha");
  const size_t help = usage.find("--help");
  const size_t zeta = usage.find("--zeta");
  ASSERT_NE(alpha, std::string::npos);
  ASSERT_NE(help, std::string::npos);
  ASSERT_NE(zeta, std::string::npos);
  EXPECT_LT(alpha, help);
  EXPECT_LT(help, zeta);
}

TEST(CliArgs, UsageWithoutPositionals) {
  Args args("dst bench", {});
  EXPECT_EQ(args.usage(), "usage: dst bench [options]\n  --help\n      show this help\n");
}

TEST(CliArgs, ParseOrExitGivesTheExitCodeOnlyForErrorsAndHelp) {
  {
    Args args("dst x", {"--seed", "4"});
    args.option("seed", "N", "the seed");
    EXPECT_EQ(args.parse_or_exit(), std::nullopt);
  }
  {
    Args args("dst x", {"--nope"});
    EXPECT_EQ(args.parse_or_exit(), std::optional<int>(2));
  }
  {
    Args args("dst x", {"--help"});
    EXPECT_EQ(args.parse_or_exit(), std::optional<int>(0));
  }
}

}  // namespace
}  // namespace dst::cli
