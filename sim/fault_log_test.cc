#include "sim/fault_log.h"

#include <gtest/gtest.h>

namespace dst::sim {
namespace {

TEST(FaultLog, LinesCarryTheirTime) {
  FaultLog log;
  log.add(1'200'000'000, "partition n1|n2,n3");
  log.add(2'000'000'000, "heal");
  EXPECT_EQ(log.lines(), (std::vector<std::string>{"t=1.200s partition n1|n2,n3", "t=2.000s heal"}));
}

TEST(FaultLog, MergesByTimeNotByText) {
  FaultLog etcd, kube;
  etcd.add(500'000'000, "kill n1");
  etcd.add(12'000'000'000, "restart n1");  // "t=12.000s" sorts before "t=9.000s" as text
  kube.add(500'000'000, "crash apiserver0");
  kube.add(9'000'000'000, "restart apiserver0");
  EXPECT_EQ(FaultLog::merge(etcd, kube),
            (std::vector<std::string>{"t=0.500s kill n1", "t=0.500s crash apiserver0", "t=9.000s restart apiserver0",
                                      "t=12.000s restart n1"}));
  EXPECT_EQ(FaultLog::merge(FaultLog{}, kube), kube.lines());
  EXPECT_TRUE(FaultLog::merge(FaultLog{}, FaultLog{}).empty());
}

TEST(FaultLog, KeepsABoundedNumberOfLines) {
  FaultLog log;
  for (size_t i = 0; i < FaultLog::kLinesMax + 3; ++i) log.add(static_cast<TimeNs>(i), "kill n1");
  EXPECT_EQ(log.lines().size(), FaultLog::kLinesMax);
  EXPECT_EQ(log.dropped(), 3u);
}

TEST(FaultLogDeathTest, TimeNeverGoesBack) {
  FaultLog log;
  log.add(2, "a");
  EXPECT_DEATH(log.add(1, "b"), "at >= times_.back");
}

}  // namespace
}  // namespace dst::sim
