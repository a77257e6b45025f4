// The run report's numbers on a hand-built run (run_report_test_util.h works them out): percentiles,
// throughput buckets, unavailability windows, the leader timeline, and the data files and scripts
// that carry them to gnuplot.
#include <gtest/gtest.h>

#include "reports/plot_data.h"
#include "reports/plot_gp.h"
#include "reports/plot_scripts.h"
#include "reports/run_report_test_util.h"

namespace dst::reports {
namespace {

constexpr int64_t kMs = 1'000'000;

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

const PlotFile* find_file(const PlotSet& set, const std::string& name) {
  for (const PlotFile& f : set.files)
    if (f.name == name) return &f;
  return nullptr;
}

TEST(PlotData, PercentilesAreNearestRank) {
  std::vector<int64_t> v;
  for (int64_t i = 1; i <= 100; ++i) v.push_back(i);
  EXPECT_EQ(percentile_nearest_rank(v, 500), 50);
  EXPECT_EQ(percentile_nearest_rank(v, 900), 90);
  EXPECT_EQ(percentile_nearest_rank(v, 990), 99);
  EXPECT_EQ(percentile_nearest_rank(v, 1000), 100);
  EXPECT_EQ(percentile_nearest_rank({7}, 500), 7);
  EXPECT_EQ(percentile_nearest_rank({7}, 990), 7);
  EXPECT_EQ(percentile_nearest_rank({}, 990), 0);
  // Four values: p50 is the 2nd (ceil(0.5*4)), p90 the 4th (ceil(3.6)).
  EXPECT_EQ(percentile_nearest_rank({10, 20, 30, 40}, 500), 20);
  EXPECT_EQ(percentile_nearest_rank({10, 20, 30, 40}, 900), 40);
}

TEST(PlotData, KindsCountsAndPercentiles) {
  const testing::SampleRun run = testing::sample_run();
  const RunPlotData d = build_plot_data(run.history, run.metrics);
  EXPECT_EQ(d.end_ns, 6000 * kMs);
  EXPECT_EQ(d.workload_start_ns, 1000 * kMs);
  EXPECT_EQ(d.workload_end_ns, 5000 * kMs);
  ASSERT_EQ(d.kinds.size(), 3u);
  EXPECT_EQ(d.kinds[0].kind, "put");
  EXPECT_EQ(d.kinds[1].kind, "range");
  EXPECT_EQ(d.kinds[2].kind, "txn");
  const KindStats& put = d.kinds[0];
  EXPECT_EQ(put.ok, 4u);
  EXPECT_EQ(put.failed, 1u);
  EXPECT_EQ(put.unknown, 1u);
  EXPECT_EQ(put.never_returned, 0u);
  EXPECT_EQ(put.p50_ns, 20 * kMs);
  EXPECT_EQ(put.p90_ns, 40 * kMs);
  EXPECT_EQ(put.p99_ns, 40 * kMs);
  EXPECT_EQ(put.max_ns, 40 * kMs);
  EXPECT_EQ(d.kinds[1].p50_ns, 2 * kMs);  // ranges took 5 and 2 ms
  EXPECT_EQ(d.kinds[1].max_ns, 5 * kMs);
  EXPECT_EQ(d.kinds[2].ok, 0u);
  EXPECT_EQ(d.kinds[2].never_returned, 1u);
  EXPECT_EQ(d.kinds[2].p99_ns, 0);
  // All ok latencies: 2 5 10 20 30 40.
  EXPECT_EQ(d.all.ok, 6u);
  EXPECT_EQ(d.all.total(), 9u);
  EXPECT_EQ(d.all.p50_ns, 10 * kMs);
  EXPECT_EQ(d.all.p90_ns, 40 * kMs);
  // The unknown put is drawn at its timeout, the txn that never returned at the end of the run.
  ASSERT_EQ(d.latency[0].size(), 6u);
  EXPECT_EQ(d.latency[0][3].latency_ns, 2000 * kMs);  // puts: ops 0, 2, 3, 4, ...
  EXPECT_EQ(d.latency[0][3].outcome, history::Outcome::kUnknown);
  ASSERT_EQ(d.latency[2].size(), 1u);
  EXPECT_TRUE(d.latency[2][0].never_returned);
  EXPECT_EQ(d.latency[2][0].latency_ns, (6000 - 1600) * kMs);
}

TEST(PlotData, ThroughputBucketsByReturnSecond) {
  const testing::SampleRun run = testing::sample_run();
  const RunPlotData d = build_plot_data(run.history, run.metrics);
  ASSERT_EQ(d.ok_per_bucket.size(), 6u);
  // Second 1: puts at 1.010, 1.220, 1.530 and the range at 1.105; the failed put (1.300).
  EXPECT_EQ(d.ok_per_bucket[1], (std::vector<uint64_t>{3, 1, 0}));
  EXPECT_EQ(d.ok_per_bucket[2], (std::vector<uint64_t>{1, 0, 0}));
  EXPECT_EQ(d.ok_per_bucket[5], (std::vector<uint64_t>{0, 1, 0}));
  EXPECT_EQ(d.not_ok_per_bucket, (std::vector<uint64_t>{0, 1, 0, 1, 0, 0}));  // failed 1.3 s, unknown 3.4 s
  const std::string dat = throughput_dat(d);
  EXPECT_NE(dat.find("bucket_start_s put range txn all_ok not_ok\n"), std::string::npos) << dat;
  EXPECT_NE(dat.find("\n1 3 1 0 4 1\n"), std::string::npos) << dat;
  EXPECT_NE(dat.find("\n3 0 0 0 0 1\n"), std::string::npos) << dat;
  EXPECT_NE(dat.find("\n5 0 1 0 1 0\n"), std::string::npos) << dat;
}

TEST(PlotData, UnavailabilityWindows) {
  const testing::SampleRun run = testing::sample_run();
  const RunPlotData d = build_plot_data(run.history, run.metrics);
  // Nothing ok returned between 2.140 s and the last invocation at 5.000 s.
  ASSERT_EQ(d.unavailable.size(), 1u);
  EXPECT_EQ(d.unavailable[0].start_ns, 2140 * kMs);
  EXPECT_EQ(d.unavailable[0].end_ns, 5000 * kMs);
  EXPECT_NE(unavailable_dat(d).find("\n2.140000 5.000000 2.860000\n"), std::string::npos) << unavailable_dat(d);
  // The edges: a gap from the workload's start, one to its end, and gaps just under 1 s.
  const int64_t s = 1'000'000'000;
  EXPECT_EQ(find_unavailable({}, 0, 3 * s, s).size(), 1u);
  const auto w = find_unavailable({s + s / 2, 2 * s}, 0, 5 * s, s);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].start_ns, 0);
  EXPECT_EQ(w[0].end_ns, s + s / 2);
  EXPECT_EQ(w[1].start_ns, 2 * s);
  EXPECT_EQ(w[1].end_ns, 5 * s);
  EXPECT_TRUE(find_unavailable({s - 1, 2 * s - 2}, 0, 3 * s - 3, s).empty());
}

TEST(PlotData, PercentileFile) {
  const testing::SampleRun run = testing::sample_run();
  const std::string dat = percentiles_dat(build_plot_data(run.history, run.metrics));
  EXPECT_NE(dat.find("\nput 4 20.000 40.000 40.000 40.000\n"), std::string::npos) << dat;
  EXPECT_NE(dat.find("\nrange 2 2.000 5.000 5.000 5.000\n"), std::string::npos) << dat;
  EXPECT_NE(dat.find("\ntxn 0 0.000 0.000 0.000 0.000\n"), std::string::npos) << dat;
  EXPECT_NE(dat.find("\nall 6 10.000 40.000 40.000 40.000\n"), std::string::npos) << dat;
}

TEST(PlotData, LeaderTimeline) {
  const testing::SampleRun run = testing::sample_run();
  const LeaderTimeline t = build_plot_data(run.history, run.metrics).leader;
  EXPECT_EQ(t.members, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(t.leader_changes, 1u);  // n1, (none), n2
  EXPECT_EQ(t.term_max, 3);
  ASSERT_EQ(t.no_leader.size(), 1u);
  EXPECT_EQ(t.no_leader[0].start_ns, 1500 * kMs);
  EXPECT_EQ(t.no_leader[0].end_ns, 2000 * kMs);
  ASSERT_EQ(t.spans.size(), 3u);
  // By start: n1 leader 0.5..1.5, n1 down 1.5..2.5, n2 leader 2.0..2.5.
  EXPECT_EQ(t.spans[0].member, 1u);
  EXPECT_EQ(t.spans[0].state, MemberSpan::State::kLeader);
  EXPECT_EQ(t.spans[0].start_ns, 500 * kMs);
  EXPECT_EQ(t.spans[0].end_ns, 1500 * kMs);
  EXPECT_EQ(t.spans[1].state, MemberSpan::State::kDown);
  EXPECT_EQ(t.spans[1].start_ns, 1500 * kMs);
  EXPECT_EQ(t.spans[1].end_ns, 2500 * kMs);
  EXPECT_EQ(t.spans[2].member, 2u);
  EXPECT_EQ(t.spans[2].start_ns, 2000 * kMs);
  ASSERT_EQ(t.terms.size(), 5u);
  EXPECT_EQ(t.terms[2].term, 3);  // n1 was down: n2's term
  EXPECT_EQ(t.terms[0].term, 2);
}

TEST(PlotScripts, FilesCarryTheFaultsAndBothTerminals) {
  const testing::SampleRun run = testing::sample_run();
  const RunPlotData d = build_plot_data(run.history, run.metrics);
  const PlotSet set = make_plot_files(d, "dst run etcd, seed 42", gp::PngTerminal::kPngCairo);
  EXPECT_EQ(set.plots, (std::vector<std::string>{"latency", "throughput", "percentiles", "leader", "unavailability"}));
  for (const std::string& p : set.plots) {
    const PlotFile* gp = find_file(set, p + ".gp");
    ASSERT_NE(gp, nullptr) << p;
    EXPECT_EQ(count(gp->content, "set output '" + p + ".svg'"), 1u) << p;
    EXPECT_EQ(count(gp->content, "set output '" + p + ".png'"), 1u) << p;
    EXPECT_NE(gp->content.find("set terminal pngcairo"), std::string::npos);
    if (p == "percentiles") continue;
    // Time plots: the fault strip with a lane per kind and the targets as labels (both passes).
    EXPECT_EQ(count(gp->content, "set label 'n1|n2,n3' at 2.200,"), 2u) << p;
    EXPECT_EQ(count(gp->content, "set label 'n2' at 3.000,"), 2u) << p;
    EXPECT_NE(gp->content.find("set ytics scale 0 font ',8' ('partition' 1.5, 'crash' 0.5)"), std::string::npos) << p;
    EXPECT_NE(gp->content.find("set xrange [0:6.000]"), std::string::npos) << p;
  }
  for (const char* dat : {"latency_put.dat", "latency_range.dat", "latency_txn.dat", "throughput.dat",
                          "percentiles.dat", "leader.dat", "term.dat", "unavailable.dat"})
    EXPECT_NE(find_file(set, dat), nullptr) << dat;
  // The latency data: op id, invoke s, latency ms, outcome, never returned.
  const std::string& put = find_file(set, "latency_put.dat")->content;
  EXPECT_NE(put.find("\n4 1.400000 2000.000 2 0\n"), std::string::npos) << put;
  EXPECT_NE(put.find("\n3 1.300000 0.000 1 0\n"), std::string::npos) << put;
  EXPECT_NE(find_file(set, "latency_txn.dat")->content.find("\n6 1.600000 4400.000 2 1\n"), std::string::npos);
  EXPECT_NE(find_file(set, "leader.dat")->content.find("\n1 leader 0.500000 1.500000\n"), std::string::npos);
  EXPECT_NE(find_file(set, "leader.dat")->content.find("\n0 no-leader 1.500000 2.000000\n"), std::string::npos);
  // The libgd fallback terminal.
  const PlotSet gd = make_plot_files(d, "x", gp::PngTerminal::kPngGd);
  EXPECT_NE(find_file(gd, "latency.gp")->content.find("set terminal png size"), std::string::npos);
}

TEST(PlotScripts, QuotingAndCrowdedFaultLabels) {
  EXPECT_EQ(gp::quote("it's {n1}"), "'it''s {n1}'");
  EXPECT_EQ(gp::quote("a\nb"), "'a b'");
  // 200 crashes 10 ms apart in one lane: bars and ticks for all, labels only where they fit.
  RunPlotData d;
  d.end_ns = 10'000 * kMs;
  for (int i = 0; i < 200; ++i) d.faults.push_back({"crash", "n" + std::to_string(i % 3 + 1), i * 10 * kMs, (i * 10 + 5) * kMs});
  d.faults_total = d.faults.size();
  int height = 0;
  const std::string strip = gp::fault_strip(d, 1000, 0, &height);
  EXPECT_EQ(count(strip, "set arrow from"), 200u);
  const size_t labels = count(strip, "set label 'n");
  EXPECT_GT(labels, 0u);
  EXPECT_LT(labels, 20u);  // 2 s of 10 s is ~200 px: a label is ~18 px wide
  EXPECT_NE(strip.find(std::to_string(200 - labels) + " labels left out for room"), std::string::npos);
}

}  // namespace
}  // namespace dst::reports
