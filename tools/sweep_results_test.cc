// Seed ranges, shards (from flags and the environment), the results file round trip, merging shard
// files and reading verdict lines out of `dst run` logs.
#include "tools/sweep_results.h"

#include <gtest/gtest.h>

#include <set>

namespace dst::sweep {
namespace {

TEST(SeedRange, ParsesRangesAndSingleSeeds) {
  EXPECT_EQ(*parse_seed_range("1..4"), (SeedRange{1, 4}));
  EXPECT_EQ(*parse_seed_range("7"), (SeedRange{7, 7}));
  EXPECT_EQ(*parse_seed_range("0..0"), (SeedRange{0, 0}));
  EXPECT_EQ(parse_seed_range("3..4")->count(), 2u);
  EXPECT_EQ(*parse_seed_range("18446744073709551614..18446744073709551615"),
            (SeedRange{18446744073709551614ull, 18446744073709551615ull}));
}

TEST(SeedRange, RejectsMalformedAndEmptyRanges) {
  for (const char* bad : {"", "..", "1..", "..4", "a..b", "4..1", "1...4", "-1..4", "1..4x", " 1..4", "1-4",
                          "0..18446744073709551615", "1..18446744073709551616"}) {
    Result<SeedRange> r = parse_seed_range(bad);
    EXPECT_FALSE(r.is_ok()) << "'" << bad << "'";
    if (!r.is_ok()) {
      EXPECT_NE(r.status().message().find("seeds"), std::string::npos);
    }
  }
}

TEST(SeedRange, CoalescesAndFormatsLists) {
  EXPECT_EQ(coalesce({{5, 8}, {1, 4}, {10, 12}, {11, 11}}), (std::vector<SeedRange>{{1, 8}, {10, 12}}));
  EXPECT_EQ(format_seed_ranges(coalesce({{5, 8}, {1, 4}, {10, 12}})), "1..8,10..12");
  EXPECT_EQ(*parse_seed_ranges("1..8,10..12,20"), (std::vector<SeedRange>{{1, 8}, {10, 12}, {20, 20}}));
  EXPECT_TRUE(parse_seed_ranges("")->empty());
  EXPECT_FALSE(parse_seed_ranges("1..2,").is_ok());
  const uint64_t max = ~0ull;
  EXPECT_EQ(coalesce({{max - 1, max}, {max, max}}), (std::vector<SeedRange>{{max - 1, max}}));
}

TEST(Shard, ParsesIndexOfCount) {
  EXPECT_EQ(*parse_shard("0/2"), (Shard{0, 2}));
  EXPECT_EQ(*parse_shard("1/2"), (Shard{1, 2}));
  EXPECT_EQ(*parse_shard("0/1"), (Shard{0, 1}));
  for (const char* bad : {"", "2/2", "3/2", "0/0", "1", "/2", "1/", "a/2", "1/2/3", "-1/2", "0/100001"}) {
    EXPECT_FALSE(parse_shard(bad).is_ok()) << "'" << bad << "'";
  }
  EXPECT_NE(parse_shard("2/2").status().message().find("0..1"), std::string::npos);
}

// The union of the shards is the range and no seed is in two shards, whatever the range's start.
TEST(Shard, ShardsPartitionTheRange) {
  for (const SeedRange range : {SeedRange{1, 4}, SeedRange{0, 99}, SeedRange{17, 17}, SeedRange{5, 23}}) {
    for (uint64_t n : {1, 2, 3, 7, 40}) {
      std::set<uint64_t> seen;
      uint64_t total = 0;
      for (uint64_t i = 0; i < n; ++i) {
        const std::vector<uint64_t> seeds = shard_seeds(range, Shard{i, n});
        EXPECT_EQ(seeds.size(), shard_seed_count(range, Shard{i, n}));
        for (uint64_t s : seeds) {
          EXPECT_EQ(s % n, i);
          EXPECT_TRUE(range.contains(s));
          EXPECT_TRUE(seen.insert(s).second) << "seed " << s << " in two shards";
        }
        total += seeds.size();
      }
      EXPECT_EQ(total, range.count()) << range.to_string() << " in " << n;
    }
  }
  EXPECT_EQ(shard_seeds({1, 4}, {0, 2}), (std::vector<uint64_t>{2, 4}));
  EXPECT_EQ(shard_seeds({1, 4}, {1, 2}), (std::vector<uint64_t>{1, 3}));
  const uint64_t max = ~0ull;
  EXPECT_EQ(shard_seeds({max - 3, max}, {max % 2, 2}), (std::vector<uint64_t>{max - 2, max}));
}

TEST(Shard, ResolvesFlagsThenEnvironment) {
  EXPECT_EQ(*resolve_shard({}), (Shard{0, 1}));
  EXPECT_EQ(*resolve_shard({.shard_flag = "1/3"}), (Shard{1, 3}));
  // The flag wins over the environment.
  EXPECT_EQ(*resolve_shard({.shard_flag = "1/3", .job_completion_index = "2", .dst_shards = "4"}), (Shard{1, 3}));
  EXPECT_EQ(*resolve_shard({.shards_flag = "4", .job_completion_index = "3"}), (Shard{3, 4}));
  EXPECT_EQ(*resolve_shard({.slurm_array_task_id = "2", .dst_shards = "5"}), (Shard{2, 5}));
  // Kubernetes' index first when both are set; --shards before DST_SHARDS.
  EXPECT_EQ(*resolve_shard({.shards_flag = "8", .job_completion_index = "1", .slurm_array_task_id = "6", .dst_shards = "2"}),
            (Shard{1, 8}));
  // Empty variables count as unset.
  EXPECT_EQ(*resolve_shard({.job_completion_index = "", .dst_shards = ""}), (Shard{0, 1}));
}

TEST(Shard, RejectsIncompleteOrInconsistentSources) {
  Result<Shard> no_count = resolve_shard({.job_completion_index = "1"});
  ASSERT_FALSE(no_count.is_ok());
  EXPECT_NE(no_count.status().message().find("JOB_COMPLETION_INDEX=1"), std::string::npos);
  EXPECT_NE(no_count.status().message().find("DST_SHARDS"), std::string::npos);
  Result<Shard> too_big = resolve_shard({.slurm_array_task_id = "4", .dst_shards = "4"});
  ASSERT_FALSE(too_big.is_ok());
  EXPECT_NE(too_big.status().message().find("SLURM_ARRAY_TASK_ID=4 is not below"), std::string::npos);
  EXPECT_FALSE(resolve_shard({.shards_flag = "4"}).is_ok());  // a count without an index
  EXPECT_FALSE(resolve_shard({.dst_shards = "4"}).is_ok());
  EXPECT_FALSE(resolve_shard({.shard_flag = "0/2", .shards_flag = "2"}).is_ok());
  EXPECT_FALSE(resolve_shard({.shards_flag = "0", .job_completion_index = "0"}).is_ok());
  EXPECT_FALSE(resolve_shard({.shards_flag = "x", .job_completion_index = "0"}).is_ok());
  EXPECT_FALSE(resolve_shard({.shards_flag = "2", .job_completion_index = "one"}).is_ok());
}

SweepResults sample(Shard shard, std::vector<uint64_t> seeds) {
  SweepResults r;
  r.header = {"etcd", {"--duration", "2s", "--profile", "kubernetes"}, {{1, 4}}, shard};
  for (uint64_t s : seeds) {
    SeedResult row{s, 0, Verdict::kPass, "0x00000000000000" + std::to_string(10 + s), static_cast<int64_t>(100 * s), ""};
    if (s == 3) row = {s, 1, Verdict::kViolation, "0x0000000000000033", 250, "watch guarantees VIOLATED: reliable: gap at 7"};
    r.rows.push_back(row);
  }
  return r;
}

TEST(ResultsFile, RoundTrips) {
  const SweepResults r = sample({0, 1}, {1, 2, 3, 4});
  const std::string text = format_results(r);
  EXPECT_EQ(text.substr(0, text.find("\n1\t")),
            "# dst sweep results v1\n# scenario\tetcd\n# extra\t--duration\t2s\t--profile\tkubernetes\n# seeds\t1..4\n"
            "# shard\t0/1\nseed\texit\tverdict\ttrace_hash\twall_ms\tfirst_violation");
  Result<SweepResults> back = parse_results(text, "sweep.tsv");
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->header, r.header);
  EXPECT_EQ(back->rows, r.rows);
  EXPECT_EQ(format_results(*back), text);

  SweepResults odd = r;  // no extra args, an empty hash, a crash and a timeout
  odd.header.extra = {};
  odd.rows[0].trace_hash = "";
  odd.rows[1] = {2, 134, Verdict::kCrash, "", 5, "node/raft/raft.cc:12: assertion failed: x"};
  odd.rows[3] = {4, 137, Verdict::kTimeout, "", 9000, "timed out after 1.0s of wall time (killed)"};
  Result<SweepResults> odd_back = parse_results(format_results(odd), "odd.tsv");
  ASSERT_TRUE(odd_back.is_ok()) << odd_back.status().to_string();
  EXPECT_EQ(odd_back->header, odd.header);
  EXPECT_EQ(odd_back->rows, odd.rows);
}

TEST(ResultsFile, RejectsBrokenFilesWithTheLine) {
  const std::string good = format_results(sample({0, 1}, {1, 2, 3, 4}));
  auto error_of = [](const std::string& text) {
    Result<SweepResults> r = parse_results(text, "f.tsv");
    return r.is_ok() ? std::string("parsed") : r.status().message();
  };
  EXPECT_NE(error_of("seed\texit\n").find("f.tsv:1: not a dst sweep results file"), std::string::npos);
  std::string no_shard = good;
  no_shard.erase(no_shard.find("# shard"), no_shard.find("seed\t") - no_shard.find("# shard"));
  EXPECT_NE(error_of(no_shard).find("no '# shard' line"), std::string::npos);
  EXPECT_NE(error_of(good + "5\t0\tpass\t-\t1\t-\n").find("f.tsv:11: seed 5 is outside"), std::string::npos);
  EXPECT_NE(error_of(good + "4\t0\tpass\t-\t1\t-\n").find("f.tsv:11: seed 4 is not above"), std::string::npos);
  std::string bad_verdict = good;
  bad_verdict.replace(bad_verdict.find("\tpass\t"), 6, "\tfail\t");
  EXPECT_NE(error_of(bad_verdict).find("f.tsv:7: unknown verdict 'fail'"), std::string::npos);
  std::string mismatch = good;
  mismatch.replace(mismatch.find("1\t0\tpass"), 8, "1\t1\tpass");
  EXPECT_NE(error_of(mismatch).find("does not match exit code 1"), std::string::npos);
  // A shard file may only hold its own shard's seeds.
  SweepResults shard0 = sample({0, 2}, {2});
  std::string text = format_results(shard0) + "3\t0\tpass\t-\t1\t-\n";
  EXPECT_NE(error_of(text).find("outside the header's seeds 1..4 shard 0/2"), std::string::npos);
}

TEST(Merge, ShardsGiveTheUnshardedResults) {
  const SweepResults whole = sample({0, 1}, {1, 2, 3, 4});
  Result<MergeOutcome> m = merge_results({{"b.tsv", sample({1, 2}, {1, 3})}, {"a.tsv", sample({0, 2}, {2, 4})}});
  ASSERT_TRUE(m.is_ok()) << m.status().to_string();
  EXPECT_EQ(m->missing_count, 0u);
  EXPECT_EQ(format_results(m->merged), format_results(whole));
  EXPECT_EQ(format_summary(m->merged), format_summary(whole));
  EXPECT_EQ(sweep_exit_code(m->merged.rows), 1);
}

TEST(Merge, ReportsMissingShardsAndRefusesMismatches) {
  Result<MergeOutcome> partial = merge_results({{"a.tsv", sample({0, 2}, {2, 4})}});
  ASSERT_TRUE(partial.is_ok());
  EXPECT_EQ(partial->missing_count, 2u);
  EXPECT_EQ(partial->missing_first, (std::vector<uint64_t>{1, 3}));

  SweepResults other_args = sample({1, 2}, {1, 3});
  other_args.header.extra = {"--duration", "5s"};
  Result<MergeOutcome> m = merge_results({{"a.tsv", sample({0, 2}, {2, 4})}, {"b.tsv", other_args}});
  ASSERT_FALSE(m.is_ok());
  EXPECT_NE(m.status().message().find("b.tsv: run arguments --duration 5s differ"), std::string::npos);

  SweepResults other_scenario = sample({1, 2}, {1, 3});
  other_scenario.header.scenario = "scenarios/leader.lua";
  m = merge_results({{"a.tsv", sample({0, 2}, {2, 4})}, {"b.tsv", other_scenario}});
  ASSERT_FALSE(m.is_ok());
  EXPECT_NE(m.status().message().find("b.tsv: scenario 'scenarios/leader.lua' differs"), std::string::npos);

  m = merge_results({{"a.tsv", sample({0, 2}, {2, 4})}, {"again.tsv", sample({0, 2}, {2, 4})}});
  ASSERT_FALSE(m.is_ok());
  EXPECT_NE(m.status().message().find("again.tsv: seed 2 is also in a.tsv"), std::string::npos);
}

TEST(Merge, AdjacentRangesJoin) {
  SweepResults low = sample({0, 1}, {1, 2, 3, 4});
  SweepResults high = sample({0, 1}, {});
  high.header.seeds = {{5, 6}};
  high.rows = {{5, 0, Verdict::kPass, "", 1, ""}, {6, 3, Verdict::kUnknown, "", 1, "unknown: budget"}};
  Result<MergeOutcome> m = merge_results({{"high", high}, {"low", low}});
  ASSERT_TRUE(m.is_ok());
  EXPECT_EQ(m->merged.header.seeds, (std::vector<SeedRange>{{1, 6}}));
  EXPECT_EQ(m->merged.rows.size(), 6u);
  EXPECT_EQ(m->missing_count, 0u);
}

TEST(ExitCode, ViolationThenGaveUpThenError) {
  auto rows = [](std::vector<Verdict> vs) {
    std::vector<SeedResult> out;
    for (Verdict v : vs) out.push_back({out.size(), 0, v, "", 0, ""});
    return out;
  };
  EXPECT_EQ(sweep_exit_code({}), 0);
  EXPECT_EQ(sweep_exit_code(rows({Verdict::kPass, Verdict::kPass})), 0);
  EXPECT_EQ(sweep_exit_code(rows({Verdict::kError, Verdict::kUnknown, Verdict::kViolation})), 1);
  EXPECT_EQ(sweep_exit_code(rows({Verdict::kPass, Verdict::kCrash})), 1);
  EXPECT_EQ(sweep_exit_code(rows({Verdict::kTimeout})), 1);
  EXPECT_EQ(sweep_exit_code(rows({Verdict::kError, Verdict::kUnknown})), 3);
  EXPECT_EQ(sweep_exit_code(rows({Verdict::kPass, Verdict::kError})), 2);
}

TEST(Summary, ListsFailingSeedsWithReproduceCommands) {
  SweepResults r = sample({0, 1}, {1, 2, 3, 4});
  r.header.extra = {"--note", "it's here"};
  const std::string s = format_summary(r);
  EXPECT_NE(s.find("sweep             etcd -- --note 'it'\\''s here'\n"), std::string::npos) << s;
  EXPECT_NE(s.find("  pass              3\n  violation         1\n"), std::string::npos) << s;
  EXPECT_NE(s.find("failing seeds     1\n  seed 3  violation (exit 1)  watch guarantees VIOLATED"), std::string::npos) << s;
  EXPECT_NE(s.find("    reproduce: dst run etcd --seed 3 --note 'it'\\''s here'\n"), std::string::npos) << s;
}

TEST(Log, QuotesWhyAChildStoppedWithoutAResultFile) {
  EXPECT_EQ(stop_reason_from_log("seed 1   reproduce: x\ndst run: scenarios/x.lua:3: unknown node 7\n\nusage: ...\n"),
            "dst run: scenarios/x.lua:3: unknown node 7");
  EXPECT_EQ(stop_reason_from_log("dst run etcd: unknown option '--bogus'\nusage: dst run etcd\n"),
            "dst run etcd: unknown option '--bogus'");
  EXPECT_EQ(stop_reason_from_log("seed 1\nworkload 3\nnode/raft/log.cc:10: assertion failed: a < b\n"),
            "node/raft/log.cc:10: assertion failed: a < b");
  EXPECT_EQ(stop_reason_from_log("seed 1\nsomething odd\nverdict           FAIL\n"), "something odd");
  EXPECT_EQ(stop_reason_from_log(""), "");
  const std::string long_line = "error " + std::string(1000, 'x') + "\n";
  EXPECT_LE(stop_reason_from_log(long_line).size(), kMaxViolationLineChars + 3);
}

}  // namespace
}  // namespace dst::sweep
