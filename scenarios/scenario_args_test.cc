// Hostile and wrong arguments to the scenario API (issue #19): every class of bad parameter ends
// in an error that names the function, the argument, the file and line, and the accepted range,
// at load time and while running; nothing reaches an assertion.
#include "scenarios/scenario.h"

#include <gtest/gtest.h>

#include "history/recorder.h"

namespace dst::scenarios {
namespace {

std::string args_error(const std::string& code) {
  auto s = Scenario::load_source("t.lua", code, 1, {}, [](std::string_view) {});
  return s.is_ok() ? "loaded" : s.status().message();
}

bool args_start_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

TEST(ScenarioArgs, DistributionsAreCheckedWhereTheyAreWritten) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"lognormal(0, 1)", "t.lua:2: lognormal(): lognormal: the median is 0ns; expected 1ns..60.0s"},
      {"lognormal(ms(1), -1)", "t.lua:2: lognormal(): lognormal: the sigma is -1; expected a number in 0..10"},
      {"lognormal(ms(1), 0/0)", "t.lua:2: lognormal(): the second argument is nan; expected -1e+300..1e+300"},
      {"lognormal(ms(1), math.huge)", "t.lua:2: lognormal(): the second argument is inf; expected -1e+300..1e+300"},
      {"pareto(ms(1), 0)", "t.lua:2: pareto(): pareto: the shape is 0; expected a number in (0, 100]"},
      {"pareto(0, 1)", "t.lua:2: pareto(): pareto: the scale is 0ns; expected 1ns..60.0s"},
      {"uniform(s(5), 0)", "t.lua:2: uniform(): uniform: the high end is 0ns; expected 5.0s..60.0s (at least the low end)"},
      {"uniform(ms(1), s(3600))", "t.lua:2: uniform(): the second argument is 3600.0s; at most 60.0s"},
      {"exponential(0)", "t.lua:2: exponential(): exponential: the mean is 0ns; expected 1ns..60.0s"},
      {"normal(ms(1), 'x')", "t.lua:2: normal(): the second argument: expected a duration such as ms(50) or s(2), got string"},
      {"lognormal(ms(1), '1')", "t.lua:2: lognormal(): the second argument: expected a number in -1e+300..1e+300, got string"},
      {"exponential(ms(1), 2)", "t.lua:2: exponential(): expected at most 1 argument, got 2"},
  };
  for (const auto& [dist, want] : cases)
    EXPECT_EQ(args_error("run_for(s(10))\nlocal d = " + dist), want) << dist;
}

TEST(ScenarioArgs, HandMadeDistributionTablesAreCheckedToo) {
  EXPECT_EQ(args_error("run_for(s(10))\ncluster{disk={fsync={dist='uniform', a=s(5), b=0}}}"),
            "t.lua:2: cluster{disk={}}: field 'fsync': uniform: the high end is 0ns; expected 5.0s..60.0s (at least the "
            "low end)");
  EXPECT_EQ(args_error("run_for(s(10))\ncluster{net={latency={dist='pareto', a=ms(1), b=0}}}"),
            "t.lua:2: cluster{net={}}: field 'latency': pareto: the shape is 0; expected a number in (0, 100]");
  EXPECT_EQ(args_error("run_for(s(10))\ncluster{net={latency={dist='lognormal', a='x'}}}"),
            "t.lua:2: cluster{net={}}: field 'latency': a lognormal distribution needs a duration 'a' and a number 'b'");
  EXPECT_EQ(args_error("run_for(s(10))\ncluster{net={latency={dist='zipf', a=1, b=1}}}"),
            "t.lua:2: cluster{net={}}: field 'latency': unknown distribution 'zipf'; expected uniform, normal, "
            "exponential, lognormal or pareto");
}

TEST(ScenarioArgs, DurationsAndRatesHaveUpperBounds) {
  EXPECT_EQ(args_error("run_for(s(10))\ncluster{raft={tick=0}}"),
            "t.lua:2: cluster{raft={}}: field 'tick' is 0ns; expected 1ms..10.0s (etcd's --heartbeat-interval)");
  EXPECT_EQ(args_error("run_for(s(10))\ncluster{raft={tick=us(1)}}"),
            "t.lua:2: cluster{raft={}}: field 'tick' is 1us; expected 1ms..10.0s (etcd's --heartbeat-interval)");
  EXPECT_EQ(args_error("run_for(s(10))\ncluster{raft={tick=s(5), election_ticks=20}}"),
            "t.lua:2: cluster{raft={}}: the election timeout (tick x election_ticks) is 100.0s; etcd allows at most 50.0s");
  EXPECT_EQ(args_error("run_for(s(10))\ncheck{liveness=s(1e6)}"), "t.lua:2: check{}: field 'liveness' is 1000000.0s; at most 600.0s");
  EXPECT_EQ(args_error("run_for(s(10))\nworkload{timeout=s(3600)}"), "t.lua:2: workload{}: field 'timeout' is 3600.0s; at most 60.0s");
  EXPECT_EQ(args_error("run_for(s(10))\nkube{resync=ms(1)}"),
            "t.lua:2: kube{}: field 'resync' must be s(0) (never) or at least s(1) (client-go's shortest resync period)");
  EXPECT_EQ(args_error("run_for(s(10))\nswarm{interval={ms(10), s(7200)}}"), "t.lua:2: swarm{}: interval hi is 7200.0s; at most 3600.0s");
  EXPECT_EQ(args_error("run_for(s(10))\nat(s(7200), function() end)"), "t.lua:2: at(): the time is 7200.0s; at most 3600.0s");
  EXPECT_EQ(args_error("run_for(s(1e9))"), "t.lua:1: run_for(): expected s(1)..s(3600)");
  EXPECT_TRUE(args_start_with(args_error("workload{clients=256, rate=10000}\nrun_for(s(3600))"),
                          "t.lua:1: workload{}: 256 clients at 10000/s for 3600.0s offer 9216000000 operations; a run "
                          "may offer at most 2000000"))
      << args_error("workload{clients=256, rate=10000}\nrun_for(s(3600))");
  EXPECT_EQ(args_error("workload{clients=8, rate=50}\nrun_for(s(3600))"), "loaded");  // 1.44M: fine
}

TEST(ScenarioArgs, NumbersStringsAndBooleansAreWhatTheySay) {
  EXPECT_EQ(args_error("run_for(s(10))\ncluster{nodes=2^1}"), "loaded");  // a float with a whole value is a whole number
  EXPECT_EQ(args_error("run_for(s(10))\ncluster{nodes=2.5}"), "t.lua:2: cluster{}: field 'nodes' is 2.5; expected a whole number in 1..9");
  EXPECT_EQ(args_error("run_for(s(10))\ncluster{nodes='3'}"), "t.lua:2: cluster{}: field 'nodes': expected a whole number in 1..9, got string");
  EXPECT_EQ(args_error("run_for(s(10))\nworkload{rate=0/0}"), "t.lua:2: workload{}: field 'rate' is nan; expected 0.1..10000");
  EXPECT_EQ(args_error("run_for(s(10))\ncheck{watch='no'}"), "t.lua:2: check{}: field 'watch': expected true or false, got string");
  EXPECT_EQ(args_error("run_for(s(10))\nworkload{profile=7}"), "t.lua:2: workload{}: field 'profile': expected a string, got number");
  EXPECT_EQ(args_error("run_for(s('10'))"), "t.lua:1: s: expected a number such as s(1.5), got string");
  EXPECT_EQ(args_error("run_for(s(0/0))"),
            "t.lua:1: s: nan is not a duration: expected a number from 0 to 292 years (negate the result for a negative "
            "offset: -s(3))");
  EXPECT_EQ(args_error("run_for(s(10))\nkube{prefix=string.rep('/', 300)}"), "t.lua:2: kube{}: field 'prefix' is 300 bytes long; at most 256");
}

TEST(ScenarioArgs, ConfigurationIsDescribedOnceAndWithoutStrayArguments) {
  EXPECT_EQ(args_error("cluster{nodes=1}\ncluster{nodes=3}\nrun_for(s(1))"),
            "t.lua:2: cluster{}: already called at t.lua:1; describe it in one call");
  EXPECT_EQ(args_error("run_for(s(1))\nrun_for(s(2))"), "t.lua:2: run_for(): already called at t.lua:1; describe it in one call");
  EXPECT_EQ(args_error("run_for(s(1))\nkube{}\nkube{}"), "t.lua:3: kube{}: already called at t.lua:2; describe it in one call");
  EXPECT_EQ(args_error("run_for(s(1), s(2))"), "t.lua:1: run_for(): expected at most 1 argument, got 2");
  EXPECT_EQ(args_error("run_for(s(10))\nat(s(1), function() end, 3)"), "t.lua:2: at(): expected at most 2 arguments, got 3");
}

TEST(ScenarioArgs, TopLevelSchedulesAreBounded) {
  EXPECT_EQ(args_error("run_for(s(10))\nfor i = 1, 200000 do at(ms(1), function() end) end"),
            "t.lua:2: at(): more than 100000 functions scheduled at the top level");
}

// A short world: the script's functions act on it.
std::unique_ptr<Scenario> run_world(const std::string& code) {
  auto s = Scenario::load_source("run.lua", code, 5, {}, [](std::string_view) {});
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  if (!s.is_ok()) return nullptr;
  sim::Simulator sim(5);
  history::MemoryRecorder recorder;
  world::run_kv_world(sim, (*s)->run_options(), recorder);
  return std::move(s).value();
}

TEST(ScenarioArgs, FaultArgumentsAreCheckedWhileRunning) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"delay(lognormal(ms(1), 0.5)) slow_fsync(1, {dist='pareto', a=ms(1), b=0})",
       "run.lua:3: slow_fsync(): the latency: pareto: the shape is 0; expected a number in (0, 100]"},
      {"drop(0/0)", "run.lua:3: drop(): the loss probability is nan; expected 0..1"},
      {"drop(2)", "run.lua:3: drop(): the loss probability is 2; expected 0..1"},
      {"fsync_error(1, -5)", "run.lua:3: fsync_error(): the count is -5; expected 1..1000000"},
      {"disk_full(1, 'yes')", "run.lua:3: disk_full(): the second argument: expected true or false, got string"},
      {"bitflip(1, 'wal', {offset=2^40})", "run.lua:3: bitflip(): no file named \"wal\""},  // 2^40 is a whole number
      {"clock_skew(1, s(3600*24*400))", "run.lua:3: clock_skew(): 34560000.0s is more than a year (31536000.0s) either way"},
      {"for i = 1, 400 do clock_jump(1, s(3600*24)) end",
       "run.lua:3: clock_jump(): n1's clock would be more than a year (31536000.0s) off true time"},
      {"clock_drift(1, 600000)", "run.lua:3: clock_drift(): the drift in ppm is 600000; expected -500000..500000"},
      {"crash(1, 2)", "run.lua:3: crash(): expected at most 1 argument, got 2"},
      {"crash(1.0) restart(1) crash(1.5)", "run.lua:3: crash(): expected a node number (1..3), got number"},
      {"failpoint(1, 'before-wal-save', 'sleep', {delay=s(100)})",
       "run.lua:3: failpoint(): field 'delay' is 100.0s; at most 60.0s"},
      {"partition{{1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
       "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1}}",
       "run.lua:3: partition{}: group 1 lists more than 64 nodes"},
  };
  for (const auto& [body, want] : cases) {
    std::unique_ptr<Scenario> s = run_world("workload{clients=1, watchers=0}\nrun_for(s(2))\nat(s(1), function() " + body +
                                            " end)\n");
    ASSERT_NE(s, nullptr);
    ASSERT_TRUE(s->runtime_error()) << body;
    EXPECT_EQ(*s->runtime_error(), want + " (in the function scheduled at run.lua:3)") << body;
  }
}

TEST(ScenarioArgs, AfterInALoopInsideEveryIsAnErrorNotAnAssertion) {
  std::unique_ptr<Scenario> s = run_world(
      "workload{clients=1, watchers=0}\nrun_for(s(2))\n"
      "every(ms(100), function() for i = 1, 1e6 do after(ms(500), function() end) end end)\n");
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->runtime_error());
  EXPECT_TRUE(args_start_with(*s->runtime_error(), "run.lua:3: after(): 100000 scheduled functions are already waiting to run; "
                                               "at most 100000"))
      << *s->runtime_error();
}

// Requests of the scenario's own client are fibers: a loop of them ends in an error, not in the
// simulator's fiber limit.
TEST(ScenarioArgs, RequestsInFlightAreBounded) {
  for (const std::string call : {"defrag(1)", "compact{}", "alarm_disarm()", "member_remove(3)"}) {
    std::unique_ptr<Scenario> s = run_world("workload{clients=1, watchers=0}\nrun_for(s(2))\n"
                                            "at(s(1), function() for i = 1, 99000 do " + call + " end end)\n");
    ASSERT_NE(s, nullptr);
    ASSERT_TRUE(s->runtime_error()) << call;
    const std::string fn = call.substr(0, call.find_first_of("({")) + (call.find('{') != std::string::npos ? "{}" : "()");
    EXPECT_TRUE(args_start_with(*s->runtime_error(), "run.lua:3: " + fn + ": 1000 requests of the scenario's own client are "
                                                 "still waiting for an answer"))
        << *s->runtime_error();
  }
}

// Scheduling a function and running it cost budget: one that reschedules itself at once ends
// when the budget does, not after millions of events.
TEST(ScenarioArgs, AFunctionThatReschedulesItselfRunsOutOfBudget) {
  std::unique_ptr<Scenario> s = run_world("workload{clients=1, watchers=0}\nrun_for(s(2))\n"
                                          "local function f() after(0, f) end\nat(s(1), f)\n");
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->runtime_error());
  EXPECT_NE(s->runtime_error()->find("ran out of its budget of 100 million Lua instructions"), std::string::npos)
      << *s->runtime_error();
}

// With more unknown fields than the message lists, the one named does not depend on Lua's hash
// order (which changes from process to process).
TEST(ScenarioArgs, UnknownFieldsAreNamedInSortedOrder) {
  std::string fields;
  for (int i = 40; i >= 1; --i) fields += "f" + std::to_string(100 + i) + "=1, ";
  EXPECT_EQ(args_error("run_for(s(1))\ncluster{" + fields + "}").substr(0, 49), "t.lua:2: cluster{}: unknown field 'f101'; expecte");
}

}  // namespace
}  // namespace dst::scenarios
