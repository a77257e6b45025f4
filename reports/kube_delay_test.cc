// The kube propagation delays (kube_delay.h) on a hand-built history whose every delay and
// percentile is worked out in the comments, the window length, the data file and script, and the
// run report with and without informers (rendered by gnuplot, a declared dependency).
#include "reports/kube_delay.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/run_report_test_util.h"
#include "reports/run_report_writer.h"

namespace dst::reports {
namespace {

namespace fs = std::filesystem;
using namespace checker::etcd::testing;
using Type = history::KubeWatchEvent::Type;

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;

history::KubeWatchEvent event(Type type, const std::string& key, int64_t rv, int64_t cached_ms, int64_t at_ms) {
  history::KubeWatchEvent e;
  e.type = type;
  e.at_ns = at_ms * kMs;
  e.cached_ns = cached_ms * kMs;
  e.object = {key, type == Type::kBookmark ? "" : "v", rv};
  return e;
}

history::KubeWatch kube_watch(uint64_t step, std::vector<history::KubeWatchEvent> events) {
  history::KubeWatch w;
  w.step = step;
  w.apiserver = 1;
  w.created_ns = events.empty() ? 0 : events.front().at_ns - kMs;
  w.events = std::move(events);
  return w;
}

// Writes (ms; the revision each created, or why none):
//   op 0  put /p/a            1000..1010  rev 2
//   op 1  txn create /p/b     1100..1120  rev 3
//   op 2  delete /p/a         1500..1505  rev 4 (1 deleted)
//   op 3  delete /p/zz        1600..1602  none: nothing deleted (header says 5 after rev 5 was made)
//   op 4  put /p/x            1590..never unknown: rev 5, but no one learned when
//   op 5  range /p/           1700..1701  none: a read (header 5)
//   op 6  failed cas /p/a     1900..1901  none: compare failed, else branch read only (header 5)
//   op 7  put /p/c            2000..3000  rev 6: its ack came late, the etcd watch saw it at 2010
//   op 8  put /p/d            2500..2505  rev 7
// The apiserver's etcd watch saw rev 2 at 1004, rev 3 at 1130, rev 4 at 1503, rev 6 at 2010.
// etcd times: 2 -> 1004 (watch first), 3 -> 1120 (write first), 4 -> 1503, 6 -> 2010, 7 -> 2505;
// rev 5 has none.
//
// Informer 0, one watch:          rv  cached  at    etcd->cache  cache->informer  etcd->informer
//   ADDED /p/a                     2   1006   1009        2            3               5
//   ADDED /p/b                     3   1131   1140       11            9              20
//   BOOKMARK                       3      0   1200   (left out)
//   DELETED /p/a                   4   1504   1510        1            6               7
//   MODIFIED /p/x                  5   1999   2001   skipped: no etcd time
//   ADDED /p/c                     6   2012   2015        2            3               5
//   ADDED /p/d                     7   2503   2508   -2 -> 0 (clamped)  5              3
// Informer 1, two watches:
//   ADDED /p/a                     2      0   1012   skipped: no cache time
//   ADDED /p/b                     3   1131   1150       11           19              30
history::History sample_history() {
  HistoryBuilder b;
  b.op(1, 1000, 1010, put_req("/p/a", "1"), put_resp(2));
  b.op(2, 1100, 1120, cas_req("/p/b", 0, "1"), cas_ok(3));
  b.op(1, 1500, 1505, del_req("/p/a"), del_resp(4, 1));
  b.op(3, 1600, 1602, del_req("/p/zz"), del_resp(5, 0));
  b.unknown(4, 1590, put_req("/p/x", "1"));
  b.op(3, 1700, 1701, get_req("/p/", "/p0"), range_resp(5, {}));
  b.op(2, 1900, 1901, cas_req("/p/a", 9, "2"), cas_failed(5, {}));
  b.op(1, 2000, 3000, put_req("/p/c", "1"), put_resp(6));
  b.op(1, 2500, 2505, put_req("/p/d", "1"), put_resp(7));
  const size_t w = b.watch("/p/", "/p0", 2);
  b.events(w, 1004, 2, {put_event(kv("/p/a", "1", 2, 2, 1))});
  b.events(w, 1130, 3, {put_event(kv("/p/b", "1", 3, 3, 1))});
  b.events(w, 1503, 4, {delete_event("/p/a", 4)});
  b.events(w, 2010, 6, {put_event(kv("/p/c", "1", 6, 6, 1))});
  history::Informer i0;
  i0.id = 0;
  i0.client = 50;
  i0.prefix = "/p/";
  i0.watches.push_back(kube_watch(1, {event(Type::kAdded, "/p/a", 2, 1006, 1009),
                                      event(Type::kAdded, "/p/b", 3, 1131, 1140),
                                      event(Type::kBookmark, "", 3, 0, 1200),
                                      event(Type::kDeleted, "/p/a", 4, 1504, 1510),
                                      event(Type::kModified, "/p/x", 5, 1999, 2001),
                                      event(Type::kAdded, "/p/c", 6, 2012, 2015),
                                      event(Type::kAdded, "/p/d", 7, 2503, 2508)}));
  history::Informer i1;
  i1.id = 1;
  i1.client = 51;
  i1.prefix = "/p/";
  i1.watches.push_back(kube_watch(1, {event(Type::kAdded, "/p/a", 2, 0, 1012)}));
  i1.watches.back().end = "broken: test";
  i1.watches.back().ended_ns = 1013 * kMs;
  i1.watches.push_back(kube_watch(2, {event(Type::kAdded, "/p/b", 3, 1131, 1150)}));
  b.h.informers = {i0, i1};
  return b.h;
}

TEST(KubeDelay, EtcdTimeIsTheEarliestOfCreatingWriteAndEtcdWatch) {
  const std::map<int64_t, int64_t> t = etcd_revision_times(sample_history());
  const std::map<int64_t, int64_t> want = {
      {2, 1004 * kMs}, {3, 1120 * kMs}, {4, 1503 * kMs}, {6, 2010 * kMs}, {7, 2505 * kMs}};
  EXPECT_EQ(t, want);  // no 5: writes that changed nothing, reads and unknown writes say nothing
}

TEST(KubeDelay, DelaysPercentilesAndSkips) {
  const KubeDelays k = compute_kube_delays(sample_history());
  EXPECT_EQ(k.events, 8u);  // the bookmark is not an event here
  EXPECT_EQ(k.measured, 6u);
  EXPECT_EQ(k.skipped_no_etcd_time, 1u);   // rev 5
  EXPECT_EQ(k.skipped_no_cache_time, 1u);  // informer 1's first event
  EXPECT_EQ(k.clamped, (std::array<uint64_t, 3>{1, 0, 0}));
  EXPECT_EQ(k.last_at_ns, 2508 * kMs);
  EXPECT_EQ(k.window_ns, kS);
  // Whole run, sorted: etcd->cache 0 1 2 2 11 11; cache->informer 3 3 5 6 9 19; etcd->informer
  // 3 5 5 7 20 30. Nearest rank of 6: p50 the 3rd, p90 and p99 the 6th.
  const auto stats = [](int64_t p50, int64_t p90, int64_t p99, int64_t max) {
    return std::array<int64_t, 4>{p50 * kMs, p90 * kMs, p99 * kMs, max * kMs};
  };
  const std::array<int64_t, 4> want[3] = {stats(2, 11, 11, 11), stats(5, 19, 19, 19), stats(5, 30, 30, 30)};
  for (size_t i = 0; i < kDelaySeriesCount; ++i) {
    const DelayStats& s = k.whole[i];
    EXPECT_EQ(s.count, 6u) << delay_series_name(i);
    EXPECT_EQ((std::array<int64_t, 4>{s.p50_ns, s.p90_ns, s.p99_ns, s.max_ns}), want[i]) << delay_series_name(i);
  }
  // Window [1 s, 2 s): arrivals 1009, 1140, 1150, 1510: etcd->cache 1 2 11 11, cache->informer
  // 3 6 9 19, etcd->informer 5 7 20 30 (p50: the 2nd of 4, p99: the 4th). Window [2 s, 3 s):
  // arrivals 2015, 2508: etcd->cache 0 2, cache->informer 3 5, etcd->informer 3 5.
  ASSERT_EQ(k.windows.size(), 2u);
  const DelayWindow& w1 = k.windows[0];
  EXPECT_EQ(w1.start_ns, kS);
  EXPECT_EQ(w1.events, 4u);
  EXPECT_EQ(w1.p50_ns, (std::array<int64_t, 3>{2 * kMs, 6 * kMs, 7 * kMs}));
  EXPECT_EQ(w1.p99_ns, (std::array<int64_t, 3>{11 * kMs, 19 * kMs, 30 * kMs}));
  EXPECT_EQ(w1.max_ns, w1.p99_ns);
  const DelayWindow& w2 = k.windows[1];
  EXPECT_EQ(w2.start_ns, 2 * kS);
  EXPECT_EQ(w2.events, 2u);
  EXPECT_EQ(w2.p50_ns, (std::array<int64_t, 3>{0, 3 * kMs, 3 * kMs}));
  EXPECT_EQ(w2.p99_ns, (std::array<int64_t, 3>{2 * kMs, 5 * kMs, 5 * kMs}));
  const std::string dat = kube_delay_dat(k);
  EXPECT_NE(dat.find("\n1.000000 1.500000 4 2.000 11.000 11.000 6.000 19.000 19.000 7.000 30.000 30.000\n"
                     "2.000000 2.500000 2 0.000 2.000 2.000 3.000 5.000 5.000 3.000 5.000 5.000\n"),
            std::string::npos)
      << dat;
  EXPECT_NE(dat.find("# 6 of 8 events measured; skipped: 1 without an etcd time, 1 without a cache time"),
            std::string::npos)
      << dat;
}

TEST(KubeDelay, NoInformersNoEvents) {
  const KubeDelays k = compute_kube_delays(testing::sample_run().history);
  EXPECT_EQ(k.events, 0u);
  EXPECT_TRUE(k.windows.empty());
  EXPECT_EQ(k.whole[2].count, 0u);
  EXPECT_EQ(k.whole[2].p99_ns, 0);
}

TEST(KubeDelay, WindowsAreRoundAndAtMost200) {
  EXPECT_EQ(kube_delay_window_ns(0), kS);
  EXPECT_EQ(kube_delay_window_ns(200 * kS - 1), kS);
  EXPECT_EQ(kube_delay_window_ns(200 * kS), 2 * kS);
  EXPECT_EQ(kube_delay_window_ns(400 * kS), 5 * kS);
  EXPECT_EQ(kube_delay_window_ns(86'400 * kS), 600 * kS);      // a day: 10 min windows, 144 of them
  EXPECT_EQ(kube_delay_window_ns(720'000 * kS - 1), 3600 * kS);
  EXPECT_EQ(kube_delay_window_ns(720'000 * kS), 7200 * kS);    // 200 h: whole hours past 1 h
  for (int64_t last = 0; last < 1'000'000 * kS; last = last * 3 + 7 * kS) {
    const int64_t w = kube_delay_window_ns(last);
    EXPECT_LE(last / w + 1, static_cast<int64_t>(kKubeDelayWindowsMax)) << last;
    EXPECT_EQ(w % kS, 0) << last;
  }
}

TEST(KubeDelay, GapsBreakTheLinesAndFaultsAreShadedLikeEveryPlot) {
  // Arrivals at 0.5 s and 500 s: 5 s windows, a blank line between the two.
  HistoryBuilder b;
  b.op(1, 100, 110, put_req("/p/a", "1"), put_resp(2));
  b.op(1, 499'000, 499'010, put_req("/p/a", "2"), put_resp(3));
  b.h.faults.push_back({"partition", "n1|n2,n3", 200 * kS, 300 * kS});
  history::Informer inf;
  inf.prefix = "/p/";
  inf.watches.push_back(kube_watch(1, {event(Type::kAdded, "/p/a", 2, 120, 500),
                                       event(Type::kModified, "/p/a", 3, 499'020, 500'000)}));
  b.h.informers.push_back(inf);
  const KubeDelays k = compute_kube_delays(b.h);
  EXPECT_EQ(k.window_ns, 5 * kS);
  ASSERT_EQ(k.windows.size(), 2u);
  EXPECT_EQ(k.windows[1].start_ns, 500 * kS);
  const std::string dat = kube_delay_dat(k);
  EXPECT_NE(dat.find("\n0.000000 2.500000 1 "), std::string::npos) << dat;
  EXPECT_NE(dat.find("\n\n500.000000 502.500000 1 "), std::string::npos) << dat;

  const RunPlotData d = build_plot_data(b.h, {});
  EXPECT_EQ(d.end_ns, 500 * kS);
  PlotSet set;
  add_kube_delay_plot(k, d, "dst run kube, seed 1", gp::PngTerminal::kPngCairo, set);
  ASSERT_EQ(set.plots, std::vector<std::string>{"kube_delay"});
  ASSERT_EQ(set.files.size(), 2u);
  EXPECT_EQ(set.files[0].name, "kube_delay.dat");
  EXPECT_EQ(set.files[1].name, "kube_delay.gp");
  const std::string& gp_text = set.files[1].content;
  // The x axis reaches the last window's midpoint (502.5 s), rounded up to a whole second.
  RunPlotData frame = d;
  frame.end_ns = 503 * kS;
  EXPECT_NE(gp_text.find(gp::fault_shading(frame)), std::string::npos) << gp_text;
  EXPECT_NE(gp_text.find("set xrange [0:503.000]"), std::string::npos) << gp_text;
  EXPECT_NE(gp_text.find("faults: 1 (each lane one kind"), std::string::npos) << gp_text;
  EXPECT_NE(gp_text.find("set logscale y"), std::string::npos);
  EXPECT_NE(gp_text.find("title 'etcd -> informer p99'"), std::string::npos) << gp_text;
  EXPECT_NE(gp_text.find("title 'cache -> informer p50'"), std::string::npos) << gp_text;
}

// --- the run report -------------------------------------------------------------------------

using testing::slurp;
fs::path fresh_dir(const std::string& name) { return testing::fresh_dir("kube_delay_test", name); }

// sample_run() (run_report_test_util.h) with an informer over its puts of x: revisions 2, 3 and 5
// were acknowledged at 1010, 1220 and 2140 ms; the informer got them 10, 10 and 160 ms later
// (the last inside the partition), and a revision no write or watch knows (9).
testing::SampleRun run_with_informer() {
  testing::SampleRun r = testing::sample_run();
  history::Informer inf;
  inf.client = 9;
  inf.prefix = "x";
  inf.watches.push_back(kube_watch(1, {event(Type::kAdded, "x", 2, 1015, 1020),
                                       event(Type::kModified, "x", 3, 1225, 1230),
                                       event(Type::kModified, "x", 5, 2250, 2300),
                                       event(Type::kModified, "x", 9, 4000, 4010)}));
  r.history.informers.push_back(inf);
  r.info.scenario = "scenarios/kube.lua";
  return r;
}

TEST(KubeDelayReport, SectionAndPlotOnlyWithInformers) {
  const fs::path dir = fresh_dir("with");
  ASSERT_TRUE(testing::write_sample((dir / "run.db").string(), run_with_informer()).is_ok());
  Result<RunReportPaths> paths = write_run_report((dir / "run.db").string(), (dir / "report").string());
  ASSERT_TRUE(paths.is_ok()) << paths.status().to_string();
  const std::string index = slurp(dir / "report/index.html");
  const size_t section = index.find("<h3 id=\"kube_delay\">Kube event propagation delay</h3>");
  ASSERT_NE(section, std::string::npos) << index;
  EXPECT_GT(section, index.find("<h3 id=\"unavailability\">"));  // the last of the plots
  EXPECT_LT(section, index.find("<h2>Operations by kind</h2>"));
  EXPECT_NE(index.find("<img src=\"plots/kube_delay.png\""), std::string::npos);
  // etcd -> informer: 10, 10, 160 ms.
  EXPECT_NE(index.find("<tr><td>etcd -&gt; informer</td><td class=\"n\">3</td><td class=\"n\">10.000</td>"
                       "<td class=\"n\">160.000</td><td class=\"n\">160.000</td><td class=\"n\">160.000</td></tr>"),
            std::string::npos)
      << index;
  EXPECT_NE(index.find("4 informer watch events (ADDED, MODIFIED, DELETED): 3 measured, 1 skipped"), std::string::npos);
  const std::string md = slurp(dir / "report/summary.md");
  const size_t md_section = md.find("### Kube event propagation delay (ms)");
  ASSERT_NE(md_section, std::string::npos) << md;
  EXPECT_LT(md_section, md.find("\nPlots: "));
  EXPECT_NE(md.find("| etcd -> informer | 3 | 10.000 | 160.000 | 160.000 | 160.000 |"), std::string::npos) << md;
  const std::string png = slurp(dir / "report/plots/kube_delay.png");
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_NE(slurp(dir / "report/plots/kube_delay.svg").find("virtual time (s)"), std::string::npos);
  EXPECT_EQ(slurp(dir / "report/plots/gnuplot.log"), "");  // the script ran clean

  const fs::path plain = fresh_dir("without");
  ASSERT_TRUE(testing::write_sample((plain / "run.db").string(), testing::sample_run()).is_ok());
  paths = write_run_report((plain / "run.db").string(), (plain / "report").string());
  ASSERT_TRUE(paths.is_ok()) << paths.status().to_string();
  EXPECT_EQ(slurp(plain / "report/index.html").find("kube"), std::string::npos);
  EXPECT_EQ(slurp(plain / "report/summary.md").find("Kube"), std::string::npos);
  EXPECT_FALSE(fs::exists(plain / "report/plots/kube_delay.gp"));
  EXPECT_FALSE(fs::exists(plain / "report/plots/kube_delay.png"));
}

TEST(KubeDelayReport, InformersWithoutMeasurableEventsStillRenderClean) {
  testing::SampleRun r = testing::sample_run();
  history::Informer inf;
  inf.prefix = "x";
  inf.watches.push_back(kube_watch(1, {event(Type::kBookmark, "", 5, 0, 2500), event(Type::kAdded, "x", 42, 0, 2600)}));
  r.history.informers.push_back(inf);
  const fs::path dir = fresh_dir("empty");
  ASSERT_TRUE(testing::write_sample((dir / "run.db").string(), r).is_ok());
  Result<RunReportPaths> paths = write_run_report((dir / "run.db").string(), (dir / "report").string());
  ASSERT_TRUE(paths.is_ok()) << paths.status().to_string();
  EXPECT_NE(slurp(dir / "report/index.html")
                .find("1 informer watch events (ADDED, MODIFIED, DELETED): 0 measured, 1 skipped"),
            std::string::npos);
  EXPECT_NE(slurp(dir / "report/plots/kube_delay.gp").find("no informer watch event could be measured"),
            std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "report/plots/kube_delay.png"));
  EXPECT_EQ(slurp(dir / "report/plots/gnuplot.log"), "");
}

}  // namespace
}  // namespace dst::reports
