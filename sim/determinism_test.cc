// Tests of the determinism checker (sim/determinism.h): it passes a deterministic world and points
// at the first diverging event of a world that leaks state between runs.
#include "sim/determinism.h"

#include <gtest/gtest.h>

namespace dst::sim {
namespace {

void sleepy_world(Simulator& sim, int leak) {
  const ProcessId p = sim.start_process(sim.add_host("h"), "worker");
  sim.spawn(p, "f", [&sim, leak] {
    for (int i = 0; i < 50; ++i) sim.sleep(sim.rng("w").uniform_int(1, 1000) + (i == 30 ? leak : 0));
  });
  sim.run_until_idle();
}

TEST(Determinism, DeterministicWorldPasses) {
  DeterminismReport r = check_determinism(5, [](Simulator& sim) { sleepy_world(sim, 0); });
  EXPECT_TRUE(r.deterministic) << r.describe();
  EXPECT_EQ(r.hash_first, r.hash_second);
  EXPECT_GT(r.events_first, 50u);
  EXPECT_NE(r.describe().find("deterministic"), std::string::npos);
}

TEST(Determinism, LeakedStateIsFoundAtTheFirstDivergingEvent) {
  int runs = 0;  // state outside the simulator: the second run sleeps 7ns longer at step 30
  DeterminismReport r = check_determinism(5, [&runs](Simulator& sim) { sleepy_world(sim, 7 * runs++); });
  ASSERT_FALSE(r.deterministic);
  ASSERT_TRUE(r.divergence_index.has_value());
  // Events: process start, fiber start, then one timeout per sleep; sleep #30 ends at event 32.
  EXPECT_EQ(*r.divergence_index, 32u);
  EXPECT_NE(r.first_event.find("fiber.timeout"), std::string::npos) << r.first_event;
  EXPECT_NE(r.first_event.find("(worker)"), std::string::npos) << r.first_event;
  EXPECT_NE(r.describe().find("first divergence at event 32"), std::string::npos) << r.describe();
}

TEST(Determinism, DifferentLengthRunsDiverge) {
  int runs = 0;
  DeterminismReport r = check_determinism(5, [&runs](Simulator& sim) {
    const ProcessId p = sim.start_process(sim.add_host("h"), "p");
    const int n = runs++ == 0 ? 3 : 4;
    sim.spawn(p, "f", [&sim, n] {
      for (int i = 0; i < n; ++i) sim.sleep(10);
    });
    sim.run_until_idle();
  });
  ASSERT_FALSE(r.deterministic);
  ASSERT_TRUE(r.divergence_index.has_value());
  EXPECT_EQ(r.first_event, "(run ended)");
}

}  // namespace
}  // namespace dst::sim
