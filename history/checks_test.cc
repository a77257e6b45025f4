// The one verdict function: an error beats a violation beats a gave-up beats a pass; a check the
// run does not require never fails it; the deciding check is the first of its kind.
#include "history/checks.h"

#include <gtest/gtest.h>

namespace dst::history {
namespace {

CheckRow check(const std::string& name, CheckStatus status, bool required = true) {
  CheckRow c;
  c.name = name;
  c.status = status;
  c.required = required;
  c.summary = name + " summary";
  return c;
}

TEST(DecideVerdict, PassWhenEveryRequiredCheckPassesOrIsSkipped) {
  const RunVerdict v = decide_verdict({check("watch", CheckStatus::kPass), check("kube", CheckStatus::kSkipped),
                                       check("linearizability", CheckStatus::kFail, false)});
  EXPECT_EQ(v.name, "pass");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_FALSE(v.deciding);
  EXPECT_EQ(decide_verdict({}).name, "pass");
}

TEST(DecideVerdict, TheFirstRequiredFailureDecidesOverAGaveUp) {
  const RunVerdict v = decide_verdict({check("linearizability", CheckStatus::kGaveUp), check("liveness", CheckStatus::kFail),
                                       check("watch", CheckStatus::kFail)});
  EXPECT_EQ(v.name, "violation");
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_EQ(v.deciding, 1u);
  const RunVerdict u = decide_verdict({check("watch", CheckStatus::kPass), check("linearizability", CheckStatus::kGaveUp)});
  EXPECT_EQ(u.name, "unknown");
  EXPECT_EQ(u.exit_code, 3);
  EXPECT_EQ(u.deciding, 1u);
}

TEST(DecideVerdict, AFailedScenarioIsAnErrorWhateverElseHappened) {
  const RunVerdict v = decide_verdict({check("watch", CheckStatus::kFail), check(std::string(kScenarioCheck), CheckStatus::kFail)});
  EXPECT_EQ(v.name, "error");
  EXPECT_EQ(v.exit_code, 2);
  EXPECT_EQ(v.deciding, 1u);
}

TEST(DescribeFailure, NameRuleAndMessageOnOneLine) {
  CheckRow c = check("watch", CheckStatus::kFail);
  c.first_rule = "bookmarkable";
  c.first_message = "watch 0: event at revision 179\nafter a progress notification";
  EXPECT_EQ(describe_failure(c), "watch: bookmarkable: watch 0: event at revision 179 after a progress notification");
  EXPECT_EQ(describe_failure(check("liveness", CheckStatus::kFail)), "liveness: liveness summary");
  EXPECT_EQ(parse_check_status(check_status_name(CheckStatus::kGaveUp)), CheckStatus::kGaveUp);
  EXPECT_FALSE(parse_check_status("passed"));
}

}  // namespace
}  // namespace dst::history
