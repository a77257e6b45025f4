// The checks a run report lists, read back from the run's recorded checker summary: the kube
// checks appear only for runs with informers, and a kube violation explains a failed verdict.
#include "reports/run_checks.h"

#include <gtest/gtest.h>

namespace dst::reports {
namespace {

history::RunRecord run_with_summary(const std::string& summary, const std::string& verdict, int exit_code) {
  history::RunRecord r;
  r.info.seed = 1;
  r.info.scenario = "scenarios/x.lua";
  history::RunResult result;
  result.verdict = verdict;
  result.exit_code = exit_code;
  result.checker_summary = summary;
  r.result = result;
  return r;
}

constexpr char kLinearizable[] = "etcd model: linearizable; 10 operations\nwatch guarantees ok\n";

TEST(RunChecks, NoKubeChecksWithoutInformers) {
  const std::vector<CheckOutcome> c = run_checks(run_with_summary(kLinearizable, "pass", 0));
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].state, CheckOutcome::State::kPassed);
  EXPECT_EQ(c[1].state, CheckOutcome::State::kPassed);
  EXPECT_EQ(c[2].name, "run verdict");
}

TEST(RunChecks, KubeChecksPassedOrViolated) {
  const std::string ok = std::string(kLinearizable) + "kube: ok (3 informers, 7 lists, 3 watches, 900 events, 2 bookmarks)\n  checked: list-rv 7\n";
  std::vector<CheckOutcome> c = run_checks(run_with_summary(ok, "pass", 0));
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[2].name, "kube checks");
  EXPECT_EQ(c[2].state, CheckOutcome::State::kPassed);
  EXPECT_EQ(c[1].detail, "watch guarantees ok\n");  // the kube report is not the watch checker's

  const std::string bad = std::string(kLinearizable) +
                          "kube: VIOLATED (3 informers, 7 lists, 3 watches, 900 events, 2 bookmarks)\n"
                          "  checked: list-rv 7, list-state 30\n  skipped: what the history does not decide\n"
                          "1 violation(s): watch-events=1\n"
                          "  watch-events: informer 1 (client 3000002, apiserver 2) at 12.2s: 18 change(s) never delivered\n";
  c = run_checks(run_with_summary(bad, "violation", 1));
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[2].state, CheckOutcome::State::kFailed);
  EXPECT_EQ(c[2].message,
            "VIOLATED: watch-events: informer 1 (client 3000002, apiserver 2) at 12.2s: 18 change(s) never delivered");
  EXPECT_EQ(c[3].state, CheckOutcome::State::kFailed);
  EXPECT_EQ(c[3].message, "violation (exit 1)");  // explained by the kube checks, not "a check outside"
}

}  // namespace
}  // namespace dst::reports
