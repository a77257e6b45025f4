// The fault point table: names, arming with skip and times, passes counted armed or not, and a
// fired action handed to the executor the world gave the table (never acted on by the node).
#include "node/fault_points/fault_points.h"

#include <gtest/gtest.h>

#include <vector>

namespace dst::node {
namespace {

TEST(FaultPoints, EveryPointHasANameThatParsesBack) {
  for (size_t i = 0; i < static_cast<size_t>(FaultPoint::kCount); ++i) {
    const auto p = static_cast<FaultPoint>(i);
    Result<FaultPoint> back = parse_fault_point(fault_point_name(p));
    ASSERT_TRUE(back.is_ok());
    EXPECT_EQ(*back, p);
  }
  Result<FaultPoint> bad = parse_fault_point("before-wal-sav");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("before-wal-save"), std::string::npos);  // lists the valid names
}

TEST(FaultPoints, AFiredActionGoesToTheExecutorAfterItsSkipAndForItsTimes) {
  FaultPoints table;
  std::vector<std::pair<FaultPoint, FaultAction::Kind>> fired;
  table.set_executor([&](FaultPoint p, const FaultAction& a) { fired.emplace_back(p, a.kind); });
  table.arm(FaultPoint::kAfterApply, FaultAction{.kind = FaultAction::Kind::kDelay, .skip = 2, .times = 3});
  for (int i = 0; i < 10; ++i) table.pass(FaultPoint::kAfterApply);
  table.pass(FaultPoint::kBeforeSend);  // not armed: counted, nothing fires
  ASSERT_EQ(fired.size(), 3u);  // passes 3, 4 and 5
  EXPECT_EQ(fired[0], std::make_pair(FaultPoint::kAfterApply, FaultAction::Kind::kDelay));
  EXPECT_EQ(table.passes(FaultPoint::kAfterApply), 10u);
  EXPECT_EQ(table.fired(FaultPoint::kAfterApply), 3u);
  EXPECT_EQ(table.passes(FaultPoint::kBeforeSend), 1u);
}

TEST(FaultPoints, TimesZeroFiresOnEveryPassUntilDisarmed) {
  FaultPoints table;
  int fired = 0;
  table.set_executor([&](FaultPoint, const FaultAction&) { ++fired; });
  table.arm(FaultPoint::kAfterVote, FaultAction{.kind = FaultAction::Kind::kCrash, .times = 0});
  for (int i = 0; i < 5; ++i) table.pass(FaultPoint::kAfterVote);
  table.disarm_all();
  for (int i = 0; i < 5; ++i) table.pass(FaultPoint::kAfterVote);
  EXPECT_EQ(fired, 5);
  EXPECT_EQ(table.passes(FaultPoint::kAfterVote), 10u);
}

TEST(FaultPointsDeathTest, ArmingWithNoExecutorIsRefused) {
  FaultPoints table;
  EXPECT_DEATH(table.arm(FaultPoint::kBeforeApply, FaultAction{}), "armed with no executor");
}

}  // namespace
}  // namespace dst::node
