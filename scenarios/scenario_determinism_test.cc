// --check-determinism on a scenario made nondeterministic on purpose: the test adds a function
// to the Lua state that answers differently in the second run (nothing in the sandbox can), so
// the scheduled function crashes a different member. The report must name the first event that
// differs: its number, its virtual time, and what ran.
#include <gtest/gtest.h>

#include <cstdio>

#include <lua.hpp>

#include "history/recorder.h"
#include "world/kv_run_world.h"
#include "scenarios/scenario.h"
#include "sim/determinism.h"

namespace dst::scenarios {
namespace {

constexpr char kScript[] =
    "cluster{nodes=3}\n"
    "workload{clients=1, rate=10, watchers=0}\n"
    "run_for(s(3))\n"
    "at(s(1), function()\n"
    "  if leak() == 1 then crash(1) else crash(2) end\n"
    "end)\n";

// Runs the script in `sim`; leak() returns `answer`.
void run_world(sim::Simulator& sim, int answer, std::unique_ptr<Scenario>* keep) {
  Result<std::unique_ptr<Scenario>> loaded = Scenario::load_source("t.lua", kScript, 7, {}, [](std::string_view) {});
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().message();
  *keep = std::move(loaded).value();
  lua_State* L = (*keep)->lua_state();
  lua_pushinteger(L, answer);
  lua_pushcclosure(L, [](lua_State* L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
  }, 1);
  lua_setglobal(L, "leak");
  history::MemoryRecorder recorder;
  world::run_kv_world(sim, (*keep)->run_options(), recorder);
  EXPECT_FALSE((*keep)->runtime_error()) << *(*keep)->runtime_error();
}

TEST(ScenarioDeterminism, TheReportNamesTheFirstDivergingEventAndWhatRan) {
  std::unique_ptr<Scenario> current;
  int run = 0;
  const sim::DeterminismReport r =
      sim::check_determinism(7, [&](sim::Simulator& sim) { run_world(sim, ++run, &current); });
  ASSERT_FALSE(r.deterministic);
  ASSERT_TRUE(r.divergence_index.has_value());
  EXPECT_GT(*r.divergence_index, 100u);  // the runs agree on everything before the function ran
  // The first difference is the kill itself (of n1 in run 1, n2 in run 2), taken while the
  // scheduled function ran, one second into the fault phase.
  EXPECT_NE(r.first_event.find("process.kill"), std::string::npos) << r.first_event;
  EXPECT_NE(r.first_event.find("(n1)"), std::string::npos) << r.first_event;
  EXPECT_NE(r.second_event.find("(n2)"), std::string::npos) << r.second_event;
  EXPECT_NE(r.first_running.find("callback world scenario function scheduled at t.lua:4"), std::string::npos)
      << r.first_running;
  EXPECT_EQ(r.first_running, r.second_running);
  EXPECT_EQ(r.agreed_before.size(), 3u);
  const std::string text = r.describe();
  EXPECT_NE(text.find("first divergence at event " + std::to_string(*r.divergence_index) + " (t="), std::string::npos)
      << text;
  EXPECT_NE(text.find("while running #"), std::string::npos) << text;
  std::printf("%s", text.c_str());  // what a person sees
}

TEST(ScenarioDeterminism, TheSameAnswerTwiceIsDeterministic) {
  std::unique_ptr<Scenario> current;
  const sim::DeterminismReport r = sim::check_determinism(7, [&](sim::Simulator& sim) { run_world(sim, 1, &current); });
  EXPECT_TRUE(r.deterministic) << r.describe();
}

}  // namespace
}  // namespace dst::scenarios
