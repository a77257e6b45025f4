// The check suite: its rows and their order, the verdict decided from them, the world's findings
// and requirements read back from stored rows (the same verdict again), and the printed lines.
#include "checker/suite/check_suite.h"

#include <gtest/gtest.h>

#include "checker/linearizability/etcd_test_builder.h"
#include "checker/suite/suite_text.h"

namespace dst::checker::suite {
namespace {

using etcd::testing::HistoryBuilder;
using history::CheckRow;
using history::CheckStatus;

WorldFindings healthy_world() {
  WorldFindings w;
  w.raft_invariants = WorldFinding{true, "ok: election, vote, ...", "", 0};
  w.liveness = WorldFinding{true, "recovered in 50ms, then served in 20ms", "", 0};
  w.member_agreement = WorldFinding{true, "ok: same state hash at the same applied index", "", 0};
  return w;
}

HistoryBuilder puts_and_a_read() {
  using namespace etcd::testing;
  HistoryBuilder b;
  b.op(1, 0, 10, put_req("a", "1"), put_resp(2));
  b.op(2, 20, 30, get_req("a"), range_resp(2, {kv("a", "1", 2, 2, 1)}));
  return b;
}

// Lease 7 granted for 5 s, answered "gone" one second later: lease-keepalive-answered fails.
void add_early_gone_keepalive(HistoryBuilder& b) {
  etcdserverpb::ApiRequest grant;
  grant.mutable_lease_grant()->set_id(7);
  grant.mutable_lease_grant()->set_ttl(5);
  etcdserverpb::ApiResponse granted;
  granted.mutable_lease_grant()->set_id(7);
  granted.mutable_lease_grant()->set_ttl(5);
  granted.mutable_lease_grant()->mutable_header()->set_revision(2);
  b.op(3, 40, 50, grant, granted);
  etcdserverpb::ApiRequest keep;
  keep.mutable_lease_keep_alive()->set_id(7);
  etcdserverpb::ApiResponse gone;
  gone.mutable_lease_keep_alive()->set_id(7);
  gone.mutable_lease_keep_alive()->set_ttl(0);
  b.op(3, 1000, 1010, keep, gone);
}

std::vector<std::string> names_of(const std::vector<CheckRow>& rows) {
  std::vector<std::string> names;
  for (const CheckRow& r : rows) names.push_back(r.name);
  return names;
}

TEST(CheckSuite, EveryCheckHasItsRowInTheSuitesOrder) {
  const SuiteResult s = run_check_suite(puts_and_a_read().h, healthy_world(), {});
  EXPECT_EQ(names_of(s.rows), check_names());
  EXPECT_EQ(s.evidence.size(), s.rows.size());
  EXPECT_EQ(s.verdict.name, "pass");
  EXPECT_EQ(s.verdict.exit_code, 0);
  EXPECT_EQ(s.row("kube")->status, CheckStatus::kSkipped);  // no informers
  EXPECT_EQ(s.row("determinism")->status, CheckStatus::kSkipped);
  EXPECT_EQ(s.row("linearizability")->checked, 2u);
  EXPECT_EQ(s.first_violation(), nullptr);
}

TEST(CheckSuite, AWorldFindingDecidesWithoutEvidenceFromTheHistory) {
  WorldFindings w = healthy_world();
  w.raft_invariants = WorldFinding{false, "1 violations", "Election Safety: two leaders in term 3", 1};
  const SuiteResult s = run_check_suite(puts_and_a_read().h, w, {});
  EXPECT_EQ(s.verdict.name, "violation");
  ASSERT_TRUE(s.verdict.deciding);
  EXPECT_EQ(s.rows[*s.verdict.deciding].name, "raft-invariants");
  EXPECT_EQ(s.first_violation(), nullptr);  // the history shows nothing of it
  EXPECT_NE(render_check_lines(s).find("raft invariants   Election Safety: two leaders in term 3"), std::string::npos);
}

TEST(CheckSuite, AHistoryViolationDecidesWithItsEvidence) {
  HistoryBuilder b = puts_and_a_read();
  add_early_gone_keepalive(b);
  const SuiteResult s = run_check_suite(b.h, healthy_world(), {});
  EXPECT_EQ(s.verdict.name, "violation");
  EXPECT_EQ(s.verdict.exit_code, 1);
  ASSERT_NE(s.first_violation(), nullptr);
  EXPECT_EQ(s.first_violation()->check, "lease-keepalive-answered");
  EXPECT_EQ(s.row("lease-keepalive-answered")->first_rule, "lease-gone-early");
  const std::string lines = render_check_lines(s);
  EXPECT_NE(lines.find("lease keepalive answered VIOLATED"), std::string::npos) << lines;
}

TEST(CheckSuite, ACheckNotRequiredIsReportedButPasses) {
  HistoryBuilder b = puts_and_a_read();
  add_early_gone_keepalive(b);
  SuiteOptions options;
  options.required.linearizable = false;
  const SuiteResult s = run_check_suite(b.h, healthy_world(), options);
  EXPECT_EQ(s.row("lease-keepalive-answered")->status, CheckStatus::kFail);
  EXPECT_FALSE(s.row("lease-keepalive-answered")->required);
  EXPECT_EQ(s.verdict.name, "pass");
}

TEST(CheckSuite, AScenarioErrorIsAnErrorWhateverElseFailed) {
  HistoryBuilder b = puts_and_a_read();
  add_early_gone_keepalive(b);
  WorldFindings w = healthy_world();
  w.scenario_error = "scenarios/x.lua:3: attempt to call a nil value";
  const SuiteResult s = run_check_suite(b.h, w, {});
  EXPECT_EQ(s.verdict.name, "error");
  EXPECT_EQ(s.verdict.exit_code, 2);
}

TEST(CheckSuite, WithoutAWorldItsRowsAreSkippedSayingWhy) {
  WorldFindings none;
  none.not_observed = "not observed: an imported history";
  const SuiteResult s = run_check_suite(puts_and_a_read().h, none, {});
  EXPECT_EQ(s.row("liveness")->status, CheckStatus::kSkipped);
  EXPECT_EQ(s.row("liveness")->summary, "not observed: an imported history");
  EXPECT_EQ(s.verdict.name, "pass");
}

// `dst check RUN.db` and `dst report`: the stored rows give back the findings and requirements, so
// the suite decides the same verdict with the same deciding check and the same rows.
TEST(CheckSuite, StoredRowsGiveBackTheSameVerdict) {
  HistoryBuilder b = puts_and_a_read();
  add_early_gone_keepalive(b);
  for (int variant = 0; variant < 4; ++variant) {
    WorldFindings w = healthy_world();
    SuiteOptions options;
    if (variant == 1) w.liveness = WorldFinding{false, "no leader within 15s", "no leader within 15s", 1};
    if (variant == 2) options.required.linearizable = false, options.required.liveness = false;
    if (variant == 3) w.determinism_checked = true, w.deterministic = false, w.determinism_report = "runs differ at event 7\n...";
    const SuiteResult first = run_check_suite(b.h, w, options);
    SuiteOptions again;
    again.required = requirements_from_rows(first.rows);
    EXPECT_EQ(again.required, options.required) << variant;
    const SuiteResult second = run_check_suite(b.h, findings_from_rows(first.rows), again);
    EXPECT_EQ(second.verdict.name, first.verdict.name) << variant;
    EXPECT_EQ(second.verdict.exit_code, first.verdict.exit_code) << variant;
    EXPECT_EQ(second.verdict.deciding, first.verdict.deciding) << variant;
    ASSERT_EQ(second.rows.size(), first.rows.size());
    for (size_t i = 0; i < first.rows.size(); ++i) {
      CheckRow a = first.rows[i], c = second.rows[i];
      a.wall_us = c.wall_us = 0;
      EXPECT_EQ(a, c) << variant << " " << a.name;
    }
  }
}

TEST(CheckSuite, RowsARunDidNotStoreAreNotObservedAndRequired) {
  const WorldFindings w = findings_from_rows({});
  EXPECT_FALSE(w.raft_invariants);
  EXPECT_FALSE(w.scenario_error);
  EXPECT_EQ(requirements_from_rows({}), Requirements{});
}

}  // namespace
}  // namespace dst::checker::suite
