#include "reports/defrag_summary.h"

#include <gtest/gtest.h>

namespace dst::reports {
namespace {

history::Operation op(uint64_t id, uint32_t member, int64_t from, int64_t to, bool defrag = false) {
  history::Operation o;
  o.id = id;
  o.member = member;
  o.invoke_ns = from;
  o.return_ns = to;
  o.outcome = history::Outcome::kOk;
  if (defrag) o.request.mutable_defragment();
  else o.request.mutable_range()->set_key("k");
  return o;
}

TEST(DefragSummary, TheWindowAndWhatItsMemberMadeWait) {
  history::History h;
  h.operations = {op(0, 2, 1'000, 5'000'000, true),  // n2 blocked ~5 ms
                  op(1, 2, 2'000, 5'100'000),        // waited for it
                  op(2, 1, 3'000, 4'000),            // another member: not counted
                  op(3, 2, 6'000'000, 6'100'000)};   // after the window
  const std::vector<DefragWindow> d = summarize_defrags(h);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].member, 2u);
  EXPECT_EQ(d[0].overlapped, 1u);
  EXPECT_EQ(d[0].overlapped_max_ns, 5'098'000);
  EXPECT_NE(defrags_markdown(d).find("| 0 | n2 | 0.000 | 0.005 | 4.999 | ok | 1 | 5.098 |"), std::string::npos)
      << defrags_markdown(d);
  EXPECT_EQ(defrags_html({}), "");
}

}  // namespace
}  // namespace dst::reports
