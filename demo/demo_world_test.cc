// Tests of the demo world, and through it of the whole kernel working together: determinism over
// many seeds with faults, the durability check passing on a correct peer and catching a bug.
#include "demo/demo_world.h"

#include <gtest/gtest.h>

#include <map>

#include "sim/determinism.h"

namespace dst::demo {
namespace {

DemoOptions short_run() {
  DemoOptions o;
  o.duration = sim::seconds(3);
  return o;
}

// Issue #2: 200 seeds of a world with faults, each run twice: identical hashes per seed, and no two
// seeds sharing a hash. The sanitizer build, looking for memory errors, runs the first 40 (the
// 200 took 145 s there).
#ifdef DST_SANITIZER_BUILD
constexpr uint64_t kDeterminismSeeds = 40;
#else
constexpr uint64_t kDeterminismSeeds = 200;
#endif

TEST(DemoWorld, TwoHundredSeedsAreDeterministicAndDistinct) {
  std::map<uint64_t, uint64_t> seed_of_hash;
  for (uint64_t seed = 1; seed <= kDeterminismSeeds; ++seed) {
    uint64_t first = 0, second = 0;
    for (uint64_t* out : {&first, &second}) {
      sim::Simulator sim(seed);
      DemoStats stats = run_demo_world(sim, short_run());
      EXPECT_TRUE(stats.violations.empty()) << "seed " << seed << ": " << stats.violations.front();
      *out = sim.trace().hash();
    }
    ASSERT_EQ(first, second) << "seed " << seed << " is not deterministic";
    auto [it, inserted] = seed_of_hash.emplace(first, seed);
    EXPECT_TRUE(inserted) << "seeds " << it->second << " and " << seed << " share trace hash " << first;
  }
}

TEST(DemoWorld, CheckDeterminismAgreesOnOneSeedWithFullRecords) {
  sim::DeterminismReport r =
      sim::check_determinism(99, [](sim::Simulator& sim) { (void)run_demo_world(sim, short_run()); });
  EXPECT_TRUE(r.deterministic) << r.describe();
  EXPECT_GT(r.events_first, 3'000u);
}

TEST(DemoWorld, TrafficFlowsAndFaultsHappen) {
  sim::Simulator sim(7);
  DemoStats s = run_demo_world(sim, DemoOptions{});
  EXPECT_GT(s.datagrams_received, 200u);
  EXPECT_GT(s.acks_received, 200u);
  EXPECT_GT(s.records_acknowledged, 500u);
  EXPECT_GT(s.faults_injected, 10u);
  EXPECT_GT(s.crashes, 0u);
  EXPECT_GT(s.records_recovered, 0u);
  EXPECT_TRUE(s.violations.empty());
  EXPECT_NE(format_demo_summary(s, sim).find("durability        ok"), std::string::npos);
}

TEST(DemoWorld, WithoutFaultsNothingIsLostAndNoStreamErrors) {
  sim::Simulator sim(3);
  DemoOptions o = short_run();
  o.faults = false;
  DemoStats s = run_demo_world(sim, o);
  EXPECT_EQ(s.faults_injected, 1u);  // only the final power cycle
  EXPECT_EQ(s.stream_errors, 0u);
  EXPECT_EQ(s.datagrams_sent, s.datagrams_received);
  EXPECT_TRUE(s.violations.empty());
}

// The check is not vacuous: acknowledging before fsync loses acknowledged records on power loss,
// and some seed among a few finds it.
TEST(DemoWorld, AckBeforeFsyncBugIsCaught) {
  int caught = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    sim::Simulator sim(seed);
    DemoOptions o = short_run();
    o.bugs = Bugs::of(Bug::kAckBeforePersist);
    DemoStats s = run_demo_world(sim, o);
    if (!s.violations.empty()) {
      ++caught;
      EXPECT_NE(s.violations.front().find("acknowledged record"), std::string::npos) << s.violations.front();
    }
  }
  EXPECT_GE(caught, 5);
}

}  // namespace
}  // namespace dst::demo

namespace dst::demo {
namespace {

// The same seed must give the same run in every build of dst: this test runs in the normal and the
// sanitizer builds (different Boost.Context backends, different optimisation), and on every
// machine CI uses. When a deliberate change to sim/ or demo/ changes the run, update the constant
// in the same commit and say so in its message.
TEST(DemoWorld, GoldenTraceHashIsTheSameInEveryBuild) {
  sim::Simulator sim(3);
  DemoStats stats = run_demo_world(sim, DemoOptions{});
  EXPECT_EQ(sim::format_trace_hash(sim.trace().hash()), "0xb994eaf8c8b899f9");
  EXPECT_EQ(stats.records_acknowledged, 4526u);
}

}  // namespace
}  // namespace dst::demo
