// The checks a run report lists, read back from the run's `checks` rows: one outcome per row in
// order, then the verdict with the check that decided it.
#include "reports/run_checks.h"

#include <gtest/gtest.h>

namespace dst::reports {
namespace {

history::CheckRow check(const char* name, history::CheckStatus status, bool required = true) {
  history::CheckRow c;
  c.name = name;
  c.status = status;
  c.required = required;
  c.summary = std::string(name) + " summary";
  return c;
}

history::RunRecord run_with(std::vector<history::CheckRow> checks, const std::string& verdict, int exit_code) {
  history::RunRecord r;
  r.info.seed = 1;
  r.info.scenario = "scenarios/x.lua";
  history::RunResult result;
  result.verdict = verdict;
  result.exit_code = exit_code;
  result.checks = std::move(checks);
  r.result = result;
  return r;
}

using history::CheckStatus;

TEST(RunChecks, OneOutcomePerRecordedCheckThenTheVerdict) {
  const std::vector<CheckOutcome> c =
      run_checks(run_with({check("watch", CheckStatus::kPass), check("kube", CheckStatus::kSkipped)}, "pass", 0));
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].name, "watch");
  EXPECT_EQ(c[0].state, CheckOutcome::State::kPassed);
  EXPECT_EQ(c[1].state, CheckOutcome::State::kSkipped);
  EXPECT_EQ(c[2].name, "run verdict");
  EXPECT_EQ(c[2].message, "pass (exit 0): every required check passed");
}

TEST(RunChecks, AFailedCheckNamesItsFirstViolationAndDecidesTheVerdict) {
  history::CheckRow kube = check("kube", CheckStatus::kFail);
  kube.first_rule = "watch-events";
  kube.first_message = "18 change(s) never delivered";
  kube.first_at_ns = 12'200'000'000;
  kube.checked = 900;
  kube.violations = 1;
  history::CheckRow lin = check("linearizability", CheckStatus::kFail, /*required=*/false);
  const std::vector<CheckOutcome> c = run_checks(run_with({lin, kube}, "violation", 1));
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].message, "linearizability summary (not required by the scenario's check{})");
  EXPECT_EQ(c[1].state, CheckOutcome::State::kFailed);
  EXPECT_EQ(c[1].message, "watch-events: 18 change(s) never delivered");
  EXPECT_EQ(c[1].detail, "checked 900, 1 violation(s); the first at 12.200000s\nkube summary");
  EXPECT_EQ(c[2].state, CheckOutcome::State::kFailed);
  // The required kube check decided it, not the linearizability check that was not required.
  EXPECT_EQ(c[2].message, "violation (exit 1): decided by kube: watch-events: 18 change(s) never delivered");
}

TEST(RunChecks, AGaveUpCheckAndAnUnfinishedRun) {
  std::vector<CheckOutcome> c = run_checks(run_with({check("linearizability", CheckStatus::kGaveUp)}, "unknown", 3));
  EXPECT_EQ(c[0].state, CheckOutcome::State::kGaveUp);
  EXPECT_EQ(c[1].state, CheckOutcome::State::kGaveUp);
  EXPECT_EQ(c[1].message, "unknown (exit 3): decided by linearizability: linearizability summary");
  history::RunRecord killed;
  c = run_checks(killed);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].message, "the run did not finish (killed or crashed): no verdict recorded");
}

}  // namespace
}  // namespace dst::reports
