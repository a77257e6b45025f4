// Faults as data: a run's recorded schedule, written out as Lua and read back, replays the run
// exactly (the same trace hash and the same schedule), for random faults (swarm{}), scripted
// ones, the configuration's and the kube layer's; an edited schedule changes what happens; a bad
// schedule file is refused with its file and line.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "faults/schedule_text.h"
#include "history/recorder.h"
#include "scenarios/scenario.h"
#include "scenarios/schedule_file.h"

namespace dst::scenarios {
namespace {

struct ReplayRun {
  uint64_t hash = 0;
  std::vector<history::ScheduleStep> schedule;
  std::vector<history::Fault> faults;
  std::optional<std::string> error;
  size_t operations = 0, watches = 0;
  std::set<uint32_t> clients;  // that issued operations
  sim::TimeNs last_invoke = 0;
};

ReplayRun run(const std::string& path, uint64_t seed, const std::optional<faults::Schedule>& replay,
              const std::string& source = "") {
  Result<std::unique_ptr<Scenario>> s =
      source.empty() ? Scenario::load(path, seed) : Scenario::load_source(path, source, seed);
  EXPECT_TRUE(s.is_ok()) << s.status().message();
  if (!s.is_ok()) return {};
  if (replay) {
    (*s)->set_replay(*replay);
    const Status reduced = (*s)->set_reduction(replay->reduce);
    EXPECT_TRUE(reduced.is_ok()) << reduced.message();
  }
  sim::Simulator sim(seed);
  history::MemoryRecorder recorder;
  const world::KvRunResult result = world::run_kv_world(sim, (*s)->run_options(), recorder);
  ReplayRun r;
  r.hash = sim.trace().hash();
  r.schedule = recorder.history().schedule;
  r.faults = recorder.history().faults;
  r.error = (*s)->runtime_error() ? (*s)->runtime_error() : result.fault_error;
  r.operations = recorder.history().operations.size();
  r.watches = recorder.history().watches.size();
  for (const history::Operation& op : recorder.history().operations) {
    r.clients.insert(op.client);
    r.last_invoke = std::max(r.last_invoke, op.invoke_ns);
  }
  return r;
}

// The file `dst schedule` writes from these rows.
std::string schedule_file(const std::string& scenario, uint64_t seed, const std::vector<history::ScheduleStep>& rows) {
  faults::Schedule meta{.scenario = scenario, .seed = seed};
  std::string text = faults::schedule_header(meta, "a test run", rows.size());
  for (const history::ScheduleStep& row : rows) text += faults::schedule_line(row.lua, row.at_ns, row.kind);
  return text;
}

std::string scenario_path(const char* name) { return std::string(DST_SCENARIOS_DIR) + "/" + name; }

void expect_replay_matches(const char* name, uint64_t seed) {
  SCOPED_TRACE(std::string(name) + " seed " + std::to_string(seed));
  const std::string path = scenario_path(name);
  const ReplayRun original = run(path, seed, std::nullopt);
  ASSERT_FALSE(original.error) << *original.error;
  ASSERT_FALSE(original.schedule.empty());
  Result<faults::Schedule> schedule = load_schedule_source("replay.lua", schedule_file(path, seed, original.schedule));
  ASSERT_TRUE(schedule.is_ok()) << schedule.status().message();
  EXPECT_EQ(schedule->steps.size(), original.schedule.size());
  const ReplayRun replay = run(path, seed, *schedule);
  ASSERT_FALSE(replay.error) << *replay.error;
  ASSERT_EQ(replay.schedule.size(), original.schedule.size());
  for (size_t i = 0; i < original.schedule.size(); ++i) ASSERT_EQ(replay.schedule[i].lua, original.schedule[i].lua) << i;
  EXPECT_EQ(replay.hash, original.hash);
}

TEST(ScheduleReplay, RandomFaultsReplayToTheSameTraceHash) { expect_replay_matches("swarm.lua", 4); }

#ifndef DST_SANITIZER_BUILD  // a whole scenario runs ~15x slower there; one replay shows the memory use
TEST(ScheduleReplay, ScriptedFaultsReplayToTheSameTraceHash) { expect_replay_matches("flapping_partitions.lua", 2); }
TEST(ScheduleReplay, ConfigAndClockFaultsReplayToTheSameTraceHash) { expect_replay_matches("clock_skew_leases.lua", 1); }
TEST(ScheduleReplay, KubeFaultsReplayToTheSameTraceHash) { expect_replay_matches("kube_apiserver_faults.lua", 3); }
#endif

TEST(ScheduleReplay, AScriptCallMissingFromTheScheduleDoesNothing) {
  const std::string path = scenario_path("leader_isolation.lua");
  const ReplayRun original = run(path, 1, std::nullopt);
  ASSERT_FALSE(original.error) << *original.error;
  ASSERT_GE(original.schedule.size(), 2u);
  std::vector<history::ScheduleStep> rows = original.schedule;
  rows.erase(rows.begin());  // the script's first fault call
  Result<faults::Schedule> schedule = load_schedule_source("edited.lua", schedule_file(path, 1, rows));
  ASSERT_TRUE(schedule.is_ok()) << schedule.status().message();
  const ReplayRun replay = run(path, 1, *schedule);
  ASSERT_FALSE(replay.error) << *replay.error;
  ASSERT_EQ(replay.schedule.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(replay.schedule[i].call, rows[i].call);
  EXPECT_NE(replay.hash, original.hash);
}

TEST(ScheduleReplay, ATimedStepAddedByHandRunsAtItsTime) {
  const std::string path = scenario_path("leader_isolation.lua");
  const std::string text = "replay{scenario=\"x.lua\", seed=\"1\"}\n"
                           "step{at=4000000000, kind=\"kill\", node=2, lose_unsynced=true, torn=true}\n";
  Result<faults::Schedule> schedule = load_schedule_source("added.lua", text);
  ASSERT_TRUE(schedule.is_ok()) << schedule.status().message();
  ASSERT_EQ(schedule->steps.size(), 1u);
  EXPECT_EQ(schedule->steps[0].origin, faults::Origin::kTimed);
  const ReplayRun replay = run(path, 1, *schedule);
  ASSERT_FALSE(replay.error) << *replay.error;
  ASSERT_EQ(replay.schedule.size(), 1u);  // the script's own calls are not in the schedule: skipped
  EXPECT_EQ(replay.schedule[0].at_ns, 4'000'000'000);
  EXPECT_EQ(replay.schedule[0].kind, "kill");
  ASSERT_EQ(replay.faults.size(), 1u);
  EXPECT_EQ(replay.faults[0].kind, "power-loss-torn");
  EXPECT_EQ(replay.faults[0].start_ns, 4'000'000'000);
}

TEST(ScheduleReplay, AStepTheWorldRefusesIsAnErrorNamingTheStep) {
  const std::string text = "replay{scenario=\"x.lua\", seed=\"1\"}\n"
                           "step{at=3000000000, kind=\"crash\", node=9}\n";
  Result<faults::Schedule> schedule = load_schedule_source("bad.lua", text);
  ASSERT_TRUE(schedule.is_ok()) << schedule.status().message();
  const ReplayRun replay = run(scenario_path("leader_isolation.lua"), 1, *schedule);
  ASSERT_TRUE(replay.error);
  EXPECT_NE(replay.error->find("t=3.000s (crash n9): crash(): unknown node 9; cluster has 1..3"), std::string::npos)
      << *replay.error;
}

// A fault call the world refused (its arguments were fine, the cluster cannot do it) is in the schedule, and the replay refuses it the same way: a
// script that reacts to the refusal (pcall) takes the same path, and the trace hash is the same.
TEST(ScheduleReplay, ARefusedCallIsRefusedAgainOnReplay) {
  const std::string source = "workload{clients=2, watchers=1}\nrun_for(s(6))\n"
                             "at(s(1), function()\n"
                             "  local ok = pcall(partition, {shape=\"majorities_ring\"})\n"
                             "  if not ok then kill(2, {lose_unsynced=true}) end\n"
                             "end)\n"
                             "at(s(3), function() restart(2) end)\n";
  const ReplayRun original = run("refused.lua", 5, std::nullopt, source);
  ASSERT_FALSE(original.error) << *original.error;
  ASSERT_EQ(original.schedule.size(), 3u);
  EXPECT_NE(original.schedule[0].lua.find("refused=\"majorities_ring: needs at least 5 nodes; cluster has 3\""),
            std::string::npos)
      << original.schedule[0].lua;
  EXPECT_EQ(original.schedule[1].kind, "kill");
  Result<faults::Schedule> schedule = load_schedule_source("r.lua", schedule_file("refused.lua", 5, original.schedule));
  ASSERT_TRUE(schedule.is_ok()) << schedule.status().message();
  const ReplayRun replay = run("refused.lua", 5, *schedule, source);
  ASSERT_FALSE(replay.error) << *replay.error;
  ASSERT_EQ(replay.schedule.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(replay.schedule[i].lua, original.schedule[i].lua);
  EXPECT_EQ(replay.hash, original.hash);
}

TEST(ScheduleReplay, ATimedStepAfterTheFaultPhaseIsRefused) {
  const std::string text = "replay{scenario=\"x.lua\", seed=\"1\"}\n"
                           "step{at=500000000000, kind=\"crash\", node=1}\n";
  Result<faults::Schedule> schedule = load_schedule_source("late.lua", text);
  ASSERT_TRUE(schedule.is_ok()) << schedule.status().message();
  const ReplayRun replay = run(scenario_path("leader_isolation.lua"), 1, *schedule);
  ASSERT_TRUE(replay.error);
  EXPECT_NE(replay.error->find("is after the end of the fault phase"), std::string::npos) << *replay.error;
  EXPECT_TRUE(replay.schedule.empty());
}

TEST(ScheduleReplay, AReductionRunsTheLighterWorkloadItNames) {
  const std::string path = scenario_path("leader_isolation.lua");
  const ReplayRun original = run(path, 1, std::nullopt);
  ASSERT_FALSE(original.error) << *original.error;
  Result<faults::Schedule> schedule = load_schedule_source("replay.lua", schedule_file(path, 1, original.schedule));
  ASSERT_TRUE(schedule.is_ok()) << schedule.status().message();
  schedule->reduce = faults::Reduction{.clients = 1, .watchers = 0, .keys = 2, .rate = 10, .run_for_ns = sim::seconds(3),
                                       .without = {"txn", "lease_put"}};
  const ReplayRun reduced = run(path, 1, *schedule);
  ASSERT_FALSE(reduced.error) << *reduced.error;
  EXPECT_EQ(reduced.watches, 0u);
  EXPECT_GT(original.watches, 0u);
  EXPECT_LT(reduced.operations * 10, original.operations);
  EXPECT_LT(reduced.clients.size(), original.clients.size());
  // 3 s of clients (plus the harness's recovery checks and the compactor) instead of the scenario's run_for.
  EXPECT_LT(reduced.last_invoke + sim::seconds(5), original.last_invoke);
  EXPECT_EQ(run(path, 1, *schedule).hash, reduced.hash) << "a reduced replay is as deterministic as any run";
}

TEST(ScheduleReplay, AReductionTheScenarioCannotTakeIsRefused) {
  Result<std::unique_ptr<Scenario>> s = Scenario::load(scenario_path("clock_skew_leases.lua"), 1);
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  Status st = (*s)->set_reduction(faults::Reduction{.nodes = 1});
  EXPECT_NE(st.message().find("reduce{}: nodes=1, but cluster{clock=} drifts node"), std::string::npos) << st.message();
  st = (*s)->set_reduction(faults::Reduction{.clients = 256, .rate = 10000});
  EXPECT_NE(st.message().find("a run may offer at most"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("reduce{}"), std::string::npos) << st.message();
}

TEST(ScheduleFile, AReductionReadsBackTheSameAndIsChecked) {
  faults::Schedule s{.scenario = "x.lua", .seed = 3};
  s.reduce = faults::Reduction{.nodes = 3, .clients = 0, .watchers = 1, .keys = 2, .rate = 6.25,
                               .run_for_ns = 3'200'000'000, .without = {"txn", "cas_mod"}};
  Result<faults::Schedule> back = load_schedule_source("r.lua", faults::schedule_to_lua(s, "a test"));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(faults::reduction_to_lua(back->reduce), faults::reduction_to_lua(s.reduce));
  EXPECT_EQ(faults::reduction_to_lua(s.reduce),
            "reduce{nodes=3, clients=0, watchers=1, keys=2, rate=6.25, run_for=3200000000, without={\"txn\", \"cas_mod\"}}");
  EXPECT_EQ(faults::reduction_to_lua(faults::Reduction{}), "");
  const auto error = [](const std::string& text) {
    Result<faults::Schedule> r = load_schedule_source("s.lua", text);
    return r.is_ok() ? std::string("accepted") : r.status().message();
  };
  const std::string head = "replay{scenario=\"x.lua\", seed=\"7\"}\n";
  EXPECT_EQ(error("reduce{clients=1}\n"), "s.lua:1: reduce{}: the file must start with replay{scenario=..., seed=...}");
  EXPECT_EQ(error(head + "reduce{clients=1}\nreduce{keys=1}\n"),
            "s.lua:3: reduce{}: called twice; a schedule file has at most one reduce{} line");
  EXPECT_NE(error(head + "reduce{without={\"gett\"}}\n").find("s.lua:2: reduce{}: field 'without': item 1: expected a request kind"),
            std::string::npos);
  EXPECT_NE(error(head + "reduce{without={\"get\", \"get\"}}\n").find("item 2"), std::string::npos);
  EXPECT_NE(error(head + "reduce{without={txn=true}}\n").find("no holes and no named fields"), std::string::npos);
  EXPECT_NE(error(head + "reduce{without={\"txn\", nil, \"put\"}}\n").find("no holes"), std::string::npos);
  EXPECT_NE(error(head + "reduce{run_for=5}\n").find("s.lua:2: reduce{}"), std::string::npos);
  EXPECT_NE(error(head + "reduce{nodes=10}\n").find("s.lua:2: reduce{}"), std::string::npos);
  EXPECT_NE(error(head + "reduce{clientz=1}\n").find("unknown field"), std::string::npos);
  std::string every = head + "reduce{without={";
  for (const char* k : {"get", "stale_get", "list", "scan", "put", "del", "lease_put", "lease_grant", "lease_revoke",
                        "keep_alive", "lease_ttl", "txn", "cas_mod", "cas_value"})
    every += std::string("\"") + k + "\", ";
  EXPECT_NE(error(every + "}}\n").find("at least one must be sent"), std::string::npos) << error(every + "}}\n");
}

TEST(ScheduleFile, AnEmbeddedScenarioReadsBackByteForByte) {
  faults::Schedule s{.scenario = "x.lua", .seed = 3};
  for (const std::string& text : {std::string("cluster{nodes=3}\nrun_for(s(2))\n"), std::string("\n-- ]] and ]=] inside\nx = [[a]]"),
                                 std::string("no newline at the end ]==]"), std::string("ends in a bracket]")}) {
    s.source = text;
    Result<faults::Schedule> back = load_schedule_source("e.lua", faults::schedule_to_lua(s, "a test"));
    ASSERT_TRUE(back.is_ok()) << back.status().message();
    EXPECT_EQ(back->source, text);
  }
  const std::string head = "replay{scenario=\"x.lua\", seed=\"7\"}\n";
  Result<faults::Schedule> twice = load_schedule_source("t.lua", head + "scenario_source [[a]]\nscenario_source [[b]]\n");
  EXPECT_EQ(twice.status().message(), "t.lua:3: scenario_source: given twice; a schedule file embeds at most one scenario");
  Result<faults::Schedule> number = load_schedule_source("n.lua", head + "scenario_source(5)\n");
  EXPECT_NE(number.status().message().find("expected the scenario's text as a string"), std::string::npos)
      << number.status().message();
}

TEST(ScheduleFile, BadFilesAreRefusedWithTheirLine) {
  const auto error = [](const std::string& text) {
    Result<faults::Schedule> s = load_schedule_source("s.lua", text);
    return s.is_ok() ? std::string("accepted") : s.status().message();
  };
  const std::string head = "replay{scenario=\"x.lua\", seed=\"7\"}\n";
  EXPECT_EQ(error("step{at=1, kind=\"heal\"}\n"),
            "s.lua:1: step{}: the file must start with replay{scenario=..., seed=...}");
  EXPECT_EQ(error(head + "step{at=5, kind=\"explode\"}\n"),
            "s.lua:2: step{}: field 'kind': unknown fault kind 'explode' (e.g. \"crash\", \"partition\", \"kill\")");
  EXPECT_EQ(error(head + "step{at=5, kind=\"crash\"}\n"), "s.lua:2: step{}: crash: field 'node' (1-based) is required");
  EXPECT_EQ(error(head + "step{kind=\"heal\"}\n"), "s.lua:2: step{}: field 'at' (the virtual time in ns) is required");
  EXPECT_NE(error(head + "step{at=5, kind=\"heal\", nod=2}\n").find("s.lua:2: step{}: unknown field"), std::string::npos)
      << error(head + "step{at=5, kind=\"heal\", nod=2}\n");
  EXPECT_EQ(error(head + "step{at=5, kind=\"heal\", origin=\"script\"}\n"),
            "s.lua:2: step{}: a step with origin=\"script\" needs call=K (the script's K-th fault call), and only such a step");
  EXPECT_EQ(error("replay{scenario=\"x.lua\", seed=\"-1\"}\n"),
            "s.lua:1: replay{}: field 'seed': expected the seed as a decimal string such as \"42\", got '-1'");
  EXPECT_EQ(error("-- nothing\n"), "s.lua: not a fault schedule: no replay{scenario=..., seed=...} line");
  EXPECT_NE(error(head + "step{at=5, kind=\"drop\", loss=2}\n").find("s.lua:2: step{}"), std::string::npos);
}

TEST(ScheduleFile, EveryKindWrittenReadsBackTheSame) {
  using faults::FaultKind;
  faults::Schedule s{.scenario = "x\"y\n.lua", .seed = 18446744073709551615ull};
  for (size_t k = 0; k < static_cast<size_t>(FaultKind::kCount); ++k) {
    faults::FaultStep step{.at = static_cast<sim::TimeNs>(1000 + k), .kind = static_cast<FaultKind>(k),
                           .origin = k % 2 ? faults::Origin::kScript : faults::Origin::kRandom, .call = k % 2 ? k : 0};
    step.node = 2;
    step.to = 3;
    step.groups = {{1}, {2, 3}};
    step.loss = 0.1234567890123;
    step.dist = sim::DurationDist::lognormal(sim::milliseconds(3), 0.75).clamped(0, sim::seconds(60));
    step.dist_text = "a \"latency\"";
    step.lose_unsynced = step.torn = true;
    step.count = 5;
    step.file = "wal/0001.wal";
    step.ns = step.kind == FaultKind::kWatchStall || step.kind == FaultKind::kClientStall ? sim::milliseconds(300)
                                                                                         : -sim::milliseconds(300);
    step.ppm = -250;
    step.point = "after-vote";
    step.action = "sleep";
    step.delay = sim::milliseconds(20);
    step.skip = 3;
    s.steps.push_back(step);
  }
  Result<faults::Schedule> back = load_schedule_source("all.lua", faults::schedule_to_lua(s, "a test"));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back->scenario, s.scenario);
  EXPECT_EQ(back->seed, s.seed);
  ASSERT_EQ(back->steps.size(), s.steps.size());
  for (size_t i = 0; i < s.steps.size(); ++i)
    EXPECT_EQ(faults::step_to_lua(back->steps[i]), faults::step_to_lua(s.steps[i])) << i;
}

}  // namespace
}  // namespace dst::scenarios
