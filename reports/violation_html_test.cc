// The violation page for hand-built histories: the involved operations highlighted, a lane per
// client and per watch, the fault band, HTML special characters escaped, the same bytes every
// time, and a bounded page for a huge history. Also the imported-history page.
#include <gtest/gtest.h>

#include <string>

#include "checker/linearizability/etcd_test_builder.h"
#include "checker/linearizability/imported_check.h"
#include "history/import_jepsen.h"
#include "history/import_porcupine.h"
#include "reports/html_text.h"
#include "reports/report_limits.h"
#include "reports/violation_html.h"

namespace dst::reports {
namespace {

using namespace checker::etcd::testing;

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

// c1 writes x=a at rev 2 (0..10ms), c2 writes x=b at rev 3 (20..30ms); c3 then reads x and gets a
// at rev 2 (40..50ms): a stale read. A watch sees both writes; a partition runs 15..35ms.
HistoryBuilder stale_read_history() {
  HistoryBuilder b;
  b.op(1, 0, 10, put_req("x", "a"), put_resp(2));
  b.op(2, 20, 30, put_req("x", "b"), put_resp(3));
  b.op(3, 40, 50, get_req("x"), range_resp(2, {kv("x", "a", 2, 2, 1)}));
  b.unknown(4, 5, put_req("y", "u"));
  const size_t w = b.watch("x", "", 1);
  b.events(w, 12, 2, {put_event(kv("x", "a", 2, 2, 1))});
  b.events(w, 32, 3, {put_event(kv("x", "b", 2, 3, 2))});
  b.h.faults.push_back({"partition", "n1|n2,n3", 15 * HistoryBuilder::kMs, 35 * HistoryBuilder::kMs});
  return b;
}

TEST(ViolationHtml, EtcdViolationPageShowsLanesHighlightsAndFault) {
  HistoryBuilder b = stale_read_history();
  auto verdict = checker::etcd::check_etcd(b.h);
  ASSERT_TRUE(verdict.is_ok());
  ASSERT_EQ(verdict->verdict, checker::Verdict::kViolation) << verdict->summary();
  const checker::etcd::EtcdViolation& v = verdict->violations.front();
  ViolationView view = from_etcd_violation(b.h, v);
  EXPECT_EQ(view.rule, v.rule);
  const std::string page = render_violation_html(b.h, view);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find(v.rule), std::string::npos);
  for (uint32_t c : {1, 2, 3, 4}) EXPECT_NE(page.find(">c" + std::to_string(c) + "</text>"), std::string::npos) << c;
  EXPECT_NE(page.find(">w0 c100</text>"), std::string::npos);  // the watch lane
  EXPECT_NE(page.find("partition n1|n2,n3"), std::string::npos);  // the fault band's label
  EXPECT_NE(page.find("class=\"band\""), std::string::npos);
  for (uint64_t id : v.ops) EXPECT_NE(page.find("bar ok inv\" data-op=\"" + std::to_string(id) + "\""), std::string::npos) << id;
  EXPECT_NE(page.find("get x -&gt; a @2"), std::string::npos);   // the stale read's label
  EXPECT_NE(page.find("put x=b -&gt; rev 3"), std::string::npos);
  EXPECT_NE(page.find("bar unknown\" data-op=\"3\""), std::string::npos);  // the unknown write, hatched
  EXPECT_NE(page.find("r3"), std::string::npos);  // the watch tick's revision
  EXPECT_NE(page.find("<h2>Involved operations</h2>"), std::string::npos);
  // No network resources: the only URL is the SVG namespace.
  EXPECT_EQ(count(page, "http"), count(page, "http://www.w3.org/2000/svg"));
}

TEST(ViolationHtml, EscapesHtmlInKeysAndValues) {
  HistoryBuilder b;
  b.op(1, 0, 10, put_req("<script>alert(1)</script>", "\"&'<b>"), put_resp(2));
  b.op(2, 20, 30, get_req("<script>alert(1)</script>"), range_resp(1, {}));
  ViolationView view;
  view.title = "title <i>";
  view.rule = "rule&";
  view.explanation = "a <script> key";
  view.ops = {0, 1};
  view.lines = {"evidence <script>x</script>", std::string("nul \0 byte", 10)};
  const std::string page = render_violation_html(b.h, view);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_EQ(page.find("<i>"), std::string::npos);
  EXPECT_EQ(count(page, "<script>"), 1u);  // only the page's own hover script
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("&quot;&amp;&#39;&lt;b&gt;"), std::string::npos);
  EXPECT_NE(page.find("nul \\x00 byte"), std::string::npos);
  EXPECT_EQ(html_escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
}

TEST(ViolationHtml, SameInputSameBytes) {
  HistoryBuilder b = stale_read_history();
  auto verdict = checker::etcd::check_etcd(b.h);
  ASSERT_TRUE(verdict.is_ok() && !verdict->violations.empty());
  const ViolationView view = from_etcd_violation(b.h, verdict->violations.front());
  const std::string a = render_violation_html(b.h, view);
  HistoryBuilder b2 = stale_read_history();
  EXPECT_EQ(a, render_violation_html(b2.h, from_etcd_violation(b2.h, verdict->violations.front())));
}

TEST(ViolationHtml, HugeHistoryStaysBounded) {
  // 200k puts by 50 clients, 1ms apart each; the violation names two in the middle.
  HistoryBuilder b;
  constexpr size_t kOps = 200'000;
  b.h.operations.reserve(kOps);
  for (size_t i = 0; i < kOps; ++i) {
    const int64_t t = static_cast<int64_t>(i) / 50;  // 50 operations per ms across 50 clients
    b.op(static_cast<uint32_t>(i % 50), t, t + 1, put_req("k" + std::to_string(i % 97), "v" + std::to_string(i)),
         put_resp(static_cast<int64_t>(i) + 2));
  }
  for (int64_t i = 0; i < 2000; ++i) b.h.faults.push_back({"pause", "n" + std::to_string(i % 3 + 1), i * 2'000'000, i * 2'000'000 + 1'000'000});
  ViolationView view;
  view.title = "huge";
  view.rule = "real-time";
  view.ops = {100'000, 100'100};
  const std::string page = render_violation_html(b.h, view);
  EXPECT_LE(count(page, "<g class=\"bar"), kOpsDrawnMax);
  EXPECT_EQ(count(page, "bar ok inv"), 2u);
  EXPECT_LE(count(page, "class=\"band\""), kFaultsDrawnMax);
  EXPECT_LT(page.size(), 400u * 1024) << page.size();
  // An explicit window far wider than the history draws no more.
  view.window_start_ns = 0;
  view.window_end_ns = 10'000'000'000;
  const std::string wide = render_violation_html(b.h, view);
  EXPECT_LE(count(wide, "<g class=\"bar"), kOpsDrawnMax);
  EXPECT_EQ(count(wide, "bar ok inv"), 2u);
  EXPECT_LT(wide.size(), 400u * 1024);
}

TEST(ViolationHtml, WatchViolationPageNamesTheWatchAndResponse) {
  HistoryBuilder b = stale_read_history();
  checker::watch::Violation v;
  v.guarantee = checker::watch::Guarantee::kReliable;
  v.watch_id = 0;
  v.client = 100;
  v.member = 1;
  v.at_ns = 32 * HistoryBuilder::kMs;
  v.what = "1 matching event(s) never delivered";
  v.evidence = {"truth: PUT 'x'='b' @3 from op 1 (client 2) returned 0.030000s"};
  ViolationView view = from_watch_violation(b.h, v);
  EXPECT_EQ(view.rule, "reliable");
  EXPECT_EQ(view.watches, std::vector<uint64_t>{0});
  EXPECT_EQ(view.ops, std::vector<uint64_t>{1});
  EXPECT_NE(std::find(view.revisions.begin(), view.revisions.end(), 3), view.revisions.end());
  const std::string page = render_violation_html(b.h, view);
  EXPECT_NE(page.find("lname inv wl"), std::string::npos);  // the watch lane highlighted
  EXPECT_NE(page.find("tick ev inv"), std::string::npos);   // the offending response
  EXPECT_NE(page.find("class=\"marker\""), std::string::npos);
  EXPECT_NE(page.find("<h2>Involved watch responses</h2>\n<table>"), std::string::npos);
}

TEST(ViolationHtml, ImportedCounterexamplePage) {
  auto h = history::import_porcupine_kv_file(std::string(DST_TESTDATA_DIR) + "/porcupine-kv/c10-bad.txt");
  ASSERT_TRUE(h.is_ok()) << h.status().message();
  auto r = checker::check_imported(*h, checker::ImportedModel::kKv);
  ASSERT_TRUE(r.is_ok());
  ASSERT_EQ(r->verdict, checker::Verdict::kViolation);
  const std::string page = render_imported_html(*h, *r);
  EXPECT_EQ(page, render_imported_html(*h, *r));
  EXPECT_NE(page.find("Operations that cannot come next"), std::string::npos);
  EXPECT_NE(page.find(" inv\" data-op="), std::string::npos);  // unplaced highlighted
  EXPECT_NE(page.find(" ctx\" data-op="), std::string::npos);  // the prefix outlined
  EXPECT_LE(count(page, "<g class=\"bar"), kOpsDrawnMax);
  EXPECT_NE(page.find(">p"), std::string::npos);  // process lanes
}

// A stale read in a Jepsen log: the page leads with the minimal core, marks where it ends, and
// numbers the prefix's operations by their place in the partial linearization.
TEST(ViolationHtml, ImportedPageShowsTheMinimalCore) {
  const std::string log =
      "0\t:invoke\t:write\t1\n0\t:ok\t:write\t1\n"
      "1\t:invoke\t:write\t9\n"  // never returns, nothing reads 9: left out
      "2\t:invoke\t:write\t2\n2\t:ok\t:write\t2\n"
      "0\t:invoke\t:read\tnil\n0\t:ok\t:read\t1\n";
  auto h = history::import_jepsen(log, "stale.log");
  ASSERT_TRUE(h.is_ok()) << h.status().message();
  auto r = checker::check_imported(*h, checker::ImportedModel::kRegister);
  ASSERT_TRUE(r.is_ok());
  ASSERT_TRUE(r->minimal.has_value());
  const std::string page = render_imported_html(*h, *r);
  EXPECT_NE(page.find("These 3 operation(s) in register cannot be ordered"), std::string::npos);
  EXPECT_NE(page.find("<h2>The operations that cannot be ordered</h2>"), std::string::npos);
  EXPECT_LT(page.find("The operations that cannot be ordered</h2>"), page.find("Operations that cannot come next</h2>"));
  EXPECT_NE(page.find("the core&#39;s last return"), std::string::npos) << "the cut is marked";
  EXPECT_NE(page.find(">#1 write(1)<"), std::string::npos) << "the prefix numbered";
  EXPECT_EQ(count(page, " inv\" data-op="), 3u);  // the core, highlighted
}

}  // namespace
}  // namespace dst::reports
