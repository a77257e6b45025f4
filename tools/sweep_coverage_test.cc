// A sweep's coverage: seeds added up name by name (the lowest seed first), must_reach names missed,
// the coverage.tsv round trip and its errors, shards that merge to the unsharded table, and the
// summary naming what no seed reached.
#include "tools/sweep_coverage.h"

#include <gtest/gtest.h>

namespace dst::sweep {
namespace {

SweepCoverage two_seeds() {
  SweepCoverage c;
  c.add_seed(7, {{"raft.leader-elected", 3}, {"api.put.any.ok", 10}}, {"watch.compaction-cancel"});
  c.add_seed(5, {{"raft.leader-elected", 2}}, {"watch.compaction-cancel", "raft.leader-elected"});
  return c;
}

TEST(SweepCoverage, SeedsAddUpWithTheLowestSeedFirst) {
  SweepCoverage c = two_seeds();
  EXPECT_EQ(c.seeds_reporting, 2u);
  EXPECT_EQ(c.reached.at("raft.leader-elected"), (CoverageEntry{2, 5, 5}));  // completion order does not matter
  EXPECT_EQ(c.reached.at("api.put.any.ok"), (CoverageEntry{1, 7, 10}));
  EXPECT_EQ(c.missed(), std::vector<std::string>{"watch.compaction-cancel"});
}

TEST(SweepCoverage, TheFileRoundTripsAndShardsMergeToTheWhole) {
  SweepCoverage whole = two_seeds();
  Result<SweepCoverage> back = parse_coverage(format_coverage(whole), "coverage.tsv");
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(*back, whole);
  SweepCoverage a, b;
  a.add_seed(7, {{"raft.leader-elected", 3}, {"api.put.any.ok", 10}}, {"watch.compaction-cancel"});
  b.add_seed(5, {{"raft.leader-elected", 2}}, {"watch.compaction-cancel", "raft.leader-elected"});
  a.merge(b);
  EXPECT_EQ(a, whole);
}

TEST(SweepCoverage, BadFilesNameTheFileAndLine) {
  EXPECT_NE(parse_coverage("nope\n", "c.tsv").status().message().find("c.tsv:1: not a sweep coverage file"), std::string::npos);
  const std::string head = "# dst sweep coverage v1\n# seeds_reporting\t2\nname\tseeds\tfirst_seed\thits\n";
  for (const char* row : {"x\t1\t2\n", "x\t0\t2\t3\n", "x\t1\t2\t-3\n", "a b\t1\t2\t3\n"}) {
    Result<SweepCoverage> bad = parse_coverage(head + row, "c.tsv");
    ASSERT_FALSE(bad.is_ok()) << row;
    EXPECT_NE(bad.status().message().find("c.tsv:4:"), std::string::npos) << bad.status().message();
  }
  EXPECT_FALSE(parse_coverage(head + "x\t1\t2\t3\nx\t1\t2\t3\n", "c.tsv").is_ok());  // twice
  EXPECT_FALSE(parse_coverage("# dst sweep coverage v1\n# seeds_reporting\t2\n", "c.tsv").is_ok());  // cut off
  EXPECT_FALSE(parse_coverage("# dst sweep coverage v1\n# what\t2\nname\tseeds\tfirst_seed\thits\n", "c.tsv").is_ok());
}

TEST(SweepCoverage, TheSummaryNamesWhatWasMissedAndNeverReached) {
  const std::string s = format_coverage_summary(two_seeds());
  EXPECT_NE(s.find("2 seeds reached 1 of " + std::to_string(static_cast<size_t>(Probe::kCount)) + " probes"), std::string::npos) << s;
  EXPECT_NE(s.find("MISSED 1 of 2"), std::string::npos) << s;
  EXPECT_NE(s.find("not reached: watch.compaction-cancel (a watcher was canceled"), std::string::npos) << s;
  EXPECT_NE(s.find("probes never reached"), std::string::npos) << s;
  EXPECT_EQ(s.find("  raft.leader-elected:"), std::string::npos) << s;  // reached: not listed
  const std::string md = format_coverage_markdown(two_seeds(), "Coverage");
  EXPECT_NE(md.find("| `raft.leader-elected` | a node became leader | 2 | 5 | 5 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `raft.snapshot-sent` |"), std::string::npos);
}

}  // namespace
}  // namespace dst::sweep
