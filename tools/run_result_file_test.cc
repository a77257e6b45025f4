// The result file dst sweep reads of its children: what is written reads back, and anything else
// is refused with its line.
#include "tools/run_result_file.h"

#include <gtest/gtest.h>

namespace dst {
namespace {

TEST(RunResultFile, RoundTrip) {
  RunResultFile r;
  r.seed = 18446744073709551615ull;
  r.trace_hash = "0x00000000deadbeef";
  r.verdict = "violation";
  r.exit_code = 1;
  r.first_failure = "watch: reliable: a gap";
  history::CheckRow c;
  c.name = "watch";
  c.status = history::CheckStatus::kFail;
  c.checked = 12;
  c.violations = 2;
  c.first_rule = "reliable";
  c.first_message = "a\tgap\nat 7";  // tabs and line breaks become spaces
  r.checks = {c};
  Result<RunResultFile> back = parse_result_file(format_result_file(r), "r.result");
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back->seed, r.seed);
  EXPECT_EQ(back->trace_hash, r.trace_hash);
  EXPECT_EQ(back->verdict, "violation");
  EXPECT_EQ(back->exit_code, 1);
  EXPECT_EQ(back->first_failure, r.first_failure);
  ASSERT_EQ(back->checks.size(), 1u);
  EXPECT_EQ(back->checks[0].first_message, "a gap at 7");
  EXPECT_EQ(back->checks[0].violations, 2u);
}

TEST(RunResultFile, RefusesWhatIsNotOne) {
  const auto error = [](const std::string& text) {
    Result<RunResultFile> r = parse_result_file(text, "r.result");
    return r.is_ok() ? std::string("accepted") : r.status().message();
  };
  EXPECT_EQ(error("seed\t1\n"), "r.result:1: not a dst run result file (expected 'dst-run-result<tab>1')");
  const std::string head = "dst-run-result\t1\n";
  EXPECT_EQ(error(head + "verdict\tmaybe\n"), "r.result:2: unknown key or bad value for 'verdict'");
  EXPECT_EQ(error(head + "verdict\tpass\n"), "r.result: no seed line (a cut-off file?)");
  EXPECT_EQ(error(head + "trace_hash\t0xzz00000000000000\n"), "r.result:2: unknown key or bad value for 'trace_hash'");
  EXPECT_EQ(error(head + "check\twatch\tpass\n"), "r.result:2: a check line has 8 tab-separated fields");
  EXPECT_EQ(error(head + "check\twatch\tok\t1\t0\t0\t\t\n"),
            "r.result:2: a check needs a name and a status pass, fail, gave-up or skipped");
  EXPECT_EQ(error(head + "exit_code\t-1\n"), "r.result:2: unknown key or bad value for 'exit_code'");
  EXPECT_EQ(error(std::string(kRunResultFileBytesMax + 1, 'x')), "r.result: larger than a result file can be");
}

}  // namespace
}  // namespace dst
