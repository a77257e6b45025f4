#include "tools/shrink_phases.h"

#include <gtest/gtest.h>

namespace dst::shrink {
namespace {

using faults::FaultKind;
using faults::FaultStep;
using faults::Origin;
using faults::Schedule;

constexpr int64_t kS = 1'000'000'000;

RunShape shape() {
  RunShape r;
  r.nodes = 5;
  r.clients = 4;
  r.watchers = 2;
  r.keys = 10;
  r.rate = 50;
  r.run_for_ns = 20 * kS;
  r.phase_start_ns = 1 * kS;
  r.profile = "etcd-kv";
  r.kinds = {"get", "put", "txn"};
  return r;
}

// A config step, a script's pause at 5 s, a random heal at 8 s, the generator's last wake at 21 s.
Schedule schedule() {
  Schedule s;
  s.scenario = "scenarios/x.lua";
  s.seed = 7;
  s.steps.push_back(FaultStep{.at = 0, .kind = FaultKind::kClockDrift, .origin = Origin::kConfig, .node = 1, .ppm = 100});
  s.steps.push_back(FaultStep{.at = 5 * kS, .kind = FaultKind::kPause, .origin = Origin::kScript, .call = 2, .node = 3});
  s.steps.push_back(FaultStep{.at = 8 * kS, .kind = FaultKind::kHeal, .origin = Origin::kRandom});
  s.steps.push_back(FaultStep{.at = 21 * kS, .kind = FaultKind::kStop, .origin = Origin::kRandom});
  return s;
}

TEST(ShrinkPhases, ReadsTheShapeAResultFileWrites) {
  std::map<std::string, std::string> m = {{"nodes", "3"},      {"clients", "4"},        {"watchers", "2"},
                                          {"keys", "10"},      {"rate", "12.5"},        {"run_for_ns", "20000000000"},
                                          {"operations", "9"}, {"phase_start_ns", "7"}, {"profile", "etcd-kv"},
                                          {"kinds", "get,put"}};
  Result<RunShape> r = parse_shape(m);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->rate, 12.5);
  EXPECT_EQ(r->kinds, (std::vector<std::string>{"get", "put"}));
  m.erase("phase_start_ns");
  EXPECT_NE(parse_shape(m).status().message().find("phase_start_ns"), std::string::npos);
  m["phase_start_ns"] = "-1";
  EXPECT_FALSE(parse_shape(m).is_ok());
}

TEST(ShrinkPhases, SmallerCountsAreDistinctAscendingAndBelowTheCurrent) {
  EXPECT_EQ(smaller_counts(16, 0), (std::vector<uint64_t>{0, 2, 4, 8}));
  EXPECT_EQ(smaller_counts(4, 0), (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_EQ(smaller_counts(2, 1), (std::vector<uint64_t>{1}));
  EXPECT_TRUE(smaller_counts(1, 1).empty());
  EXPECT_TRUE(smaller_counts(0, 0).empty());
}

TEST(ShrinkPhases, WorkloadAlternativesSetOnlyTheirField) {
  const Schedule s = schedule();
  const std::vector<Schedule> nodes = fewer_nodes(s, shape());
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(*nodes[0].reduce.nodes, 1u);
  EXPECT_EQ(*nodes[1].reduce.nodes, 3u);
  const std::vector<Schedule> clients = fewer_clients(s, shape());
  ASSERT_EQ(clients.size(), 3u);
  EXPECT_EQ(*clients[0].reduce.clients, 0u);
  EXPECT_FALSE(clients[0].reduce.watchers.has_value());
  const std::vector<Schedule> rates = lower_rate(s, shape());
  ASSERT_EQ(rates.size(), 3u);
  EXPECT_EQ(*rates[0].reduce.rate, 6.25);
  const Schedule only_put = only_kinds(s, shape().kinds, {1});
  EXPECT_EQ(only_put.reduce.without, (std::vector<std::string>{"get", "txn"}));
}

TEST(ShrinkPhases, AShorterRunStillHoldsEveryStepAndDropsTheLastWake) {
  const std::vector<Schedule> runs = shorter_run(schedule(), shape());
  ASSERT_FALSE(runs.empty());
  // The heal acts at 8 s, 7 s into the phase: nothing shorter than 7.1 s.
  EXPECT_EQ(*runs[0].reduce.run_for_ns, 7'100'000'000);
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_LT(*runs[i].reduce.run_for_ns, 20 * kS);
    if (i > 0) {
      EXPECT_GT(*runs[i].reduce.run_for_ns, *runs[i - 1].reduce.run_for_ns);
    }
    EXPECT_EQ(runs[i].steps.size(), 3u) << "the kStop step at 21 s is past every shorter end";
    EXPECT_EQ(runs[i].steps.back().kind, FaultKind::kHeal);
  }
}

TEST(ShrinkPhases, AScriptCallBecomesATimedStepUnlessRefused) {
  Schedule s = schedule();
  EXPECT_EQ(movable_steps(s), (std::vector<size_t>{1, 2}));
  std::vector<Schedule> d = detached(s, 1);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].steps[1].origin, Origin::kTimed);
  EXPECT_EQ(d[0].steps[1].call, 0u);
  EXPECT_TRUE(detached(s, 2).empty()) << "already timed";
  s.steps[1].refused = "node 3 is paused";
  EXPECT_TRUE(detached(s, 1).empty());
}

TEST(ShrinkPhases, StartsMoveLaterAndEndsEarlierWithoutPassingANeighbour) {
  Schedule s = detached(schedule(), 1)[0];  // pause at 5 s (timed now), heal at 8 s
  const std::vector<Schedule> later = moved_step(s, 1, shape());
  ASSERT_FALSE(later.empty());
  for (size_t i = 0; i < later.size(); ++i) {
    EXPECT_GT(later[i].steps[1].at, 5 * kS);
    EXPECT_LT(later[i].steps[1].at, 8 * kS);
    EXPECT_EQ(later[i].steps[1].at % 1'000'000, 0);
    if (i > 0) {
      EXPECT_LT(later[i].steps[1].at, later[i - 1].steps[1].at) << "the latest start first";
    }
  }
  const std::vector<Schedule> earlier = moved_step(s, 2, shape());
  ASSERT_FALSE(earlier.empty());
  EXPECT_TRUE(ends_window(s.steps[2]));
  for (size_t i = 0; i < earlier.size(); ++i) {
    EXPECT_GT(earlier[i].steps[2].at, 5 * kS);
    EXPECT_LT(earlier[i].steps[2].at, 8 * kS);
    if (i > 0) {
      EXPECT_GT(earlier[i].steps[2].at, earlier[i - 1].steps[2].at) << "the earliest end first";
    }
  }
  EXPECT_TRUE(moved_step(schedule(), 1, shape()).empty()) << "a script's call is where the script made it";
  EXPECT_TRUE(moved_step(s, 0, shape()).empty()) << "configuration";
  EXPECT_TRUE(moved_step(s, 3, shape()).empty()) << "the generator's last wake";
}

TEST(ShrinkPhases, EveryTimedStepShiftsEarlierTogether) {
  EXPECT_TRUE(shifted_earlier(schedule(), shape()).empty()) << "a script's call cannot move";
  const Schedule s = detached(schedule(), 1)[0];  // pause at 5 s, heal at 8 s; the phase starts at 1 s
  const std::vector<Schedule> earlier = shifted_earlier(s, shape());
  ASSERT_EQ(earlier.size(), 4u);
  EXPECT_EQ(earlier[0].steps[1].at, 1'100'000'000) << "the first step 100 ms into the phase";
  EXPECT_EQ(earlier[0].steps[2].at, 4'100'000'000) << "the window keeps its length";
  EXPECT_EQ(earlier[0].steps[0].at, 0) << "configuration does not move";
  EXPECT_EQ(earlier[0].steps[3].at, 21 * kS) << "nor the generator's last wake";
  for (size_t i = 1; i < earlier.size(); ++i) EXPECT_GT(earlier[i].steps[1].at, earlier[i - 1].steps[1].at);
}

TEST(ShrinkPhases, AStepSharingItsTimeWithAnotherStays) {
  Schedule s = detached(schedule(), 1)[0];
  s.steps[2].at = s.steps[1].at;  // the heal at the pause's time
  EXPECT_TRUE(moved_step(s, 1, shape()).empty());
  EXPECT_TRUE(moved_step(s, 2, shape()).empty());
}

TEST(ShrinkPhases, WhatEndsAWindow) {
  EXPECT_TRUE(ends_window(FaultStep{.kind = FaultKind::kResume}));
  EXPECT_TRUE(ends_window(FaultStep{.kind = FaultKind::kDrop}));  // all zero: links back to normal
  EXPECT_FALSE(ends_window(FaultStep{.kind = FaultKind::kDrop, .loss = 0.2}));
  EXPECT_TRUE(ends_window(FaultStep{.kind = FaultKind::kDiskFull, .full = false}));
  EXPECT_FALSE(ends_window(FaultStep{.kind = FaultKind::kCrash}));
  EXPECT_FALSE(ends_window(FaultStep{.kind = FaultKind::kClockSkew, .ns = 5}));
}

}  // namespace
}  // namespace dst::shrink
