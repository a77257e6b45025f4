// End to end: a run recorded from real clients under faults (world/kv_run_world.h), mutated
// so that the checkers report a violation, rendered as a page around it.
#include <gtest/gtest.h>

#include <cstdio>

#include "checker/linearizability/etcd_checker.h"
#include "checker/watch/watch_checker.h"
#include "history/run_db.h"
#include "world/kv_run_world.h"
#include "reports/report_limits.h"
#include "reports/violation_html.h"

namespace dst::reports {
namespace {

const history::History& recorded() {
  static const history::History h = [] {
    sim::Simulator sim(11);
    world::KvRunOptions o;
    o.duration = sim::seconds(4);
    history::MemoryRecorder rec;
    world::run_kv_world(sim, o, rec);
    return rec.history();
  }();
  return h;
}

size_t occurrences(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

TEST(ViolationRun, MutatedReadRendersAroundTheViolation) {
  history::History h = recorded();
  ASSERT_GT(h.operations.size(), 50u);
  size_t i = SIZE_MAX;
  for (size_t k = h.operations.size() / 2; k < h.operations.size() && i == SIZE_MAX; ++k) {
    const history::Operation& o = h.operations[k];
    if (o.outcome == history::Outcome::kOk && o.request.has_range() && !o.request.range().serializable() &&
        o.response.range().kvs_size() > 0)
      i = k;
  }
  ASSERT_NE(i, SIZE_MAX);
  h.operations[i].response.mutable_range()->mutable_kvs(0)->set_value("<mutated&>");
  auto verdict = checker::etcd::check_etcd(h);
  ASSERT_TRUE(verdict.is_ok());
  ASSERT_EQ(verdict->verdict, checker::Verdict::kViolation) << verdict->summary();
  const checker::etcd::EtcdViolation& v = verdict->violations.front();
  std::printf("violation: %s\n", v.to_string().c_str());
  const std::string page = render_violation_html(h, from_etcd_violation(h, v));
  for (uint64_t id : v.ops) EXPECT_NE(page.find("inv\" data-op=\"" + std::to_string(id) + "\""), std::string::npos) << id;
  EXPECT_NE(page.find("&lt;mutated&amp;&gt;"), std::string::npos);
  EXPECT_EQ(page.find("<mutated&>"), std::string::npos);
  EXPECT_GT(occurrences(page, "<g class=\"bar"), 3u);
  EXPECT_LE(occurrences(page, "<g class=\"bar"), kOpsDrawnMax);
  EXPECT_GT(occurrences(page, "lname wl"), 0u);  // watch lanes
  EXPECT_EQ(page, render_violation_html(h, from_etcd_violation(h, v)));
  std::printf("page: %zu bytes, %zu bars, %zu ticks\n", page.size(), occurrences(page, "<g class=\"bar"),
              occurrences(page, "<g class=\"tick"));
  if (const char* db = std::getenv("DST_REPORT_RUNDB")) {  // for the `dst check --html` test (CMakeLists.txt)
    auto w = history::RunDbWriter::create(db);
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    history::RunInfo info;
    info.scenario = "reports_test: a recorded run with one read mutated";
    ASSERT_TRUE((*w)->begin_run(info).is_ok());
    ASSERT_TRUE((*w)->add_history(h).is_ok());
    ASSERT_TRUE((*w)->finish_run(history::RunResult{}).is_ok());
    ASSERT_TRUE((*w)->close().is_ok());
  }
  if (const char* out = std::getenv("DST_REPORT_SAMPLE")) {  // to look at it: DST_REPORT_SAMPLE=/tmp/x.html
    if (FILE* f = std::fopen(out, "w")) std::fwrite(page.data(), 1, page.size(), f), std::fclose(f);
  }
}

TEST(ViolationRun, DroppedWatchEventRendersTheWatch) {
  history::History h = recorded();
  // Drop an event from the middle of some watch's stream: the watch checker reports it.
  bool dropped = false;
  for (auto& w : h.watches)
    for (auto& s : w.segments)
      for (size_t r = s.responses.size() / 2; r + 1 < s.responses.size() && !dropped; ++r)
        if (s.responses[r].response.events_size() == 1) {
          s.responses[r].response.mutable_events()->DeleteSubrange(0, 1);
          s.responses[r].response.mutable_header()->set_revision(s.responses[r + 1].response.header().revision());
          dropped = true;
        }
  ASSERT_TRUE(dropped);
  checker::watch::Report report = checker::watch::check(h);
  ASSERT_FALSE(report.ok());
  const checker::watch::Violation& v = report.violations.front();
  std::printf("violation: %s\n", v.to_string().c_str());
  const ViolationView view = from_watch_violation(h, v);
  const std::string page = render_violation_html(h, view);
  if (v.watch_id != checker::watch::Violation::kNoWatch) {
    EXPECT_NE(page.find("lname inv wl\""), std::string::npos);
  }
  EXPECT_NE(page.find(checker::watch::guarantee_name(v.guarantee)), std::string::npos);
  EXPECT_LE(occurrences(page, "<g class=\"bar"), kOpsDrawnMax);
}

}  // namespace
}  // namespace dst::reports
