#include "reports/restore_summary.h"

#include <gtest/gtest.h>

namespace dst::reports {
namespace {

history::Operation op(uint64_t id, int64_t at, int64_t rev, bool snapshot = false) {
  history::Operation o;
  o.id = id;
  o.member = 2;
  o.invoke_ns = at;
  o.return_ns = at + 10;
  o.outcome = history::Outcome::kOk;
  if (snapshot) {
    o.request.mutable_snapshot();
    o.response.mutable_snapshot()->mutable_header()->set_revision(rev);
  } else {
    o.request.mutable_put()->set_key("k");
    o.response.mutable_put()->mutable_header()->set_revision(rev);
  }
  return o;
}

TEST(RestoreSummary, CountsWhatTheSnapshotKeptAndWhatWasLost) {
  history::History h;
  h.operations = {op(0, 100, 2), op(1, 200, 3), op(2, 300, 3, true), op(3, 400, 4), op(4, 500, 5),
                  op(5, 2'000, 1'006)};
  h.restores.push_back(history::Restore{1'000, 1'500, 3, 1'000, "nightly|b"});
  const std::vector<RestoreSummary> s = summarize_restores(h);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].snapshot_saved_ns, 310);
  EXPECT_EQ(s[0].snapshot_member, 2u);
  EXPECT_EQ(s[0].writes_kept, 2u);
  EXPECT_EQ(s[0].writes_lost, 2u);
  EXPECT_EQ(s[0].served_again_ns, 2'010);
  const std::string md = restores_markdown(s);
  EXPECT_NE(md.find("| 1 | nightly\\|b | 0.000 s from n2 | 3 | 1000 |"), std::string::npos) << md;
  EXPECT_NE(restores_html(s).find("<h2>Disaster recovery</h2>"), std::string::npos);
  EXPECT_EQ(restores_html({}), "");
}

}  // namespace
}  // namespace dst::reports
