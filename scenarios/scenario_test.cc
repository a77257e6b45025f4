// Scenarios: what loading a script configures, errors that say where and what was expected, and
// scheduled functions acting on a running world with their faults recorded.
#include "scenarios/scenario.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "base/limits.h"
#include "checker/linearizability/etcd_checker.h"
#include "checker/watch/watch_checker.h"

namespace dst::scenarios {
namespace {

Result<std::unique_ptr<Scenario>> load(const std::string& code) { return Scenario::load_source("t.lua", code, 1); }

std::string error(const std::string& code) {
  auto s = load(code);
  return s.is_ok() ? "loaded" : s.status().message();
}

TEST(Scenario, ConfigurationFromTheScript) {
  auto s = load(
      "cluster{nodes=5, quota=1048576, net={latency=uniform(ms(1), ms(5))}, disk={fsync=ms(20)},\n"
      "        raft={election_ticks=20, heartbeat_ticks=2, max_msg_bytes=1, max_inflight=2},\n"
      "        clock={drift_ppm={[2]=20000}}}\n"
      "workload{profile='kubernetes', clients=8, rate=20, keys=50, watchers=3, compaction=s(10)}\n"
      "check{liveness=s(20), watch=false}\n"
      "run_for(s(30))\n"
      "at(s(5), function() crash(leader()) end)\n"
      "every(s(2), function() end)\n");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  const ScenarioConfig& c = (*s)->config();
  EXPECT_EQ(c.run.nodes, 5u);
  EXPECT_EQ(c.quota_bytes, 1048576u);
  EXPECT_EQ(c.raft.election_tick, 20);
  EXPECT_EQ(c.raft.heartbeat_tick, 2);
  EXPECT_EQ(c.raft.max_size_per_msg, 1u);
  EXPECT_EQ(c.raft.max_inflight_msgs, 2u);
  ASSERT_EQ(c.clock_drift_ppm.size(), 1u);
  EXPECT_EQ(c.clock_drift_ppm[0], (std::pair<size_t, int64_t>{2, 20000}));
  ASSERT_TRUE(c.fsync_latency.has_value());
  EXPECT_EQ(c.run.workload.profile, client::Profile::kKubernetes);
  EXPECT_EQ(c.run.workload.clients, 8u);
  EXPECT_EQ(c.run.workload.keys, 50u);
  EXPECT_EQ(c.run.workload.compaction_every, sim::seconds(10));
  EXPECT_EQ(c.run.recovery_bound, sim::seconds(20));
  EXPECT_FALSE(c.checks.watch);
  EXPECT_TRUE(c.checks.linearizable);
  EXPECT_EQ(c.run.duration, sim::seconds(30));
  ASSERT_EQ(c.timed.size(), 2u);
  EXPECT_EQ(c.timed[0].at, sim::seconds(5));
  EXPECT_EQ(c.timed[0].where, "t.lua:7");
  EXPECT_EQ(c.timed[1].every, sim::seconds(2));
  EXPECT_FALSE(c.run.faults);  // no random nemesis unless swarm{} asks
}

// cluster{etcd={...}}: etcd's server flags by name, read as etcd reads their text.
TEST(Scenario, EtcdServerFlagsInTheCluster) {
  auto s = load("cluster{etcd={max_txn_ops=4, max_request_bytes='65536', quota_backend_bytes=-1, snapshot_count=0,\n"
                "              auto_compaction_mode='revision', auto_compaction_retention=1000}}\nrun_for(s(1))\n");
  ASSERT_TRUE(s.is_ok()) << s.status().message();
  const etcdctl::EtcdServerFlags& f = (*s)->config().etcd_flags;
  ASSERT_EQ(f.given.size(), 6u);
  EXPECT_EQ(f.given[0], (std::pair<std::string, std::string>{"quota-backend-bytes", "-1"}));
  EXPECT_EQ(f.given[1], (std::pair<std::string, std::string>{"max-txn-ops", "4"}));
  EXPECT_EQ(f.given[5], (std::pair<std::string, std::string>{"auto-compaction-retention", "1000"}));
  node::ServerOptions o;
  ASSERT_TRUE(etcdctl::apply_etcd_server_flags(f, o).is_ok());
  EXPECT_EQ(o.api.max_txn_ops, 4u);
  EXPECT_EQ(o.api.max_request_bytes, 65536u);
  EXPECT_EQ(o.snapshot_every, 100'000u);
  EXPECT_EQ(o.api.auto_compaction.revisions, 1000);

  EXPECT_EQ(error("run_for(s(1))\ncluster{etcd={max_txn_op=1}}").substr(0, 63),
            "t.lua:2: cluster{etcd={}}: unknown field 'max_txn_op'; expected");
  EXPECT_EQ(error("run_for(s(1))\ncluster{etcd={max_txn_ops=1.5}}"),
            "t.lua:2: cluster{etcd={max_txn_ops=...}}: expected an integer or a string (etcd's flag text), got number");
  EXPECT_EQ(error("run_for(s(1))\ncluster{etcd={auto_compaction_retention='5 minutes'}}"),
            "t.lua:2: cluster{etcd={}}: --auto-compaction-retention: error parsing CompactionRetention: time: unknown unit "
            "\" minutes\" in duration \"5 minutes\"");
  EXPECT_EQ(error("run_for(s(1))\ncluster{quota=1048576, etcd={quota_backend_bytes=1048576}}"),
            "t.lua:2: cluster{}: give the quota once: as quota/snapshot_every or in etcd={}, not both");
}

TEST(Scenario, ErrorsSayWhereAndWhatWasExpected) {
  EXPECT_EQ(error("run_for(s(10))\ncluster{nodez=3}"),
            "t.lua:2: cluster{}: unknown field 'nodez'; expected one of: nodes, net, disk, clock, raft, quota, "
            "snapshot_every, etcd");
  EXPECT_EQ(error("cluster{nodes=3}"),
            "t.lua: the scenario never calls run_for(d): how long should the clients and faults run?");
  EXPECT_EQ(error("run_for(s(10))\ncrash(1)"),
            "t.lua:2: crash(): faults act on the running world; call it inside at(), every() or after()");
  EXPECT_EQ(error("run_for(s(10))\nat(s(30), function() end)"),
            "t.lua:2: scheduled at 30.0s, after the end of run_for(10.0s)");
  EXPECT_EQ(error("run_for(s(10))\nat(5, function() end)"),
            "t.lua:2: at(): the time is 5 ns; durations are in nanoseconds: write ms(5) or s(5)");
  EXPECT_EQ(error("run_for(10)"), "t.lua:1: run_for(): the duration is 10 ns; durations are in nanoseconds: write ms(10) or s(10)");
  EXPECT_EQ(error("run_for(s(10))\nworkload{profile='nope'}").substr(0, 40), "t.lua:2: workload{}: field 'profile': un");
  EXPECT_EQ(error("run_for(s(10))\ncluster{nodes=12}"), "t.lua:2: cluster{}: field 'nodes' is 12; expected 1..9");
  EXPECT_EQ(error("run_for(s(10))\ncluster{clock={drift_ppm={[4]=10}}}"),
            "t.lua:2: cluster{clock={drift_ppm=...}}: unknown node 4; cluster has 1..3");
  EXPECT_EQ(error("run_for(s(10))\nswarm{faults={'partition', 'meteor'}}").substr(0, 45),
            "t.lua:2: swarm{}: unknown fault kind 'meteor'");
  EXPECT_EQ(Scenario::load("no/such/file.lua", 1).status().message(), "no/such/file.lua: cannot read the scenario file");
  EXPECT_EQ(error("run_for(s(10))\nkube{apiserverz=2}"),
            "t.lua:2: kube{}: unknown field 'apiserverz'; expected one of: apiservers, controllers, prefix, cache, "
            "writes, keys, resync, informers");
  EXPECT_EQ(error("run_for(s(10))\nworkload{fanout_watches=10}"),
            "t.lua:2: workload{}: fanout_watches (10) must be at least fanout_streams (0) and both above 0");
  EXPECT_EQ(error("run_for(s(10))\nworkload{fanout_streams=1, fanout_watches=10001}"),
            "t.lua:2: workload{}: fanout_watches (10001) is more than 10000 per stream; raise fanout_streams");
  EXPECT_EQ(error("run_for(s(10))\nkube{prefix='/registry/pods'}"),
            "t.lua:2: kube{}: field 'prefix': expected a key prefix ending in '/'");
  EXPECT_EQ(error("run_for(s(10))\nkube_crash(1)"),
            "t.lua:2: kube_crash(): faults act on the running world; call it inside at(), every() or after()");
  EXPECT_EQ(error("run_for(s(10))\nworkload{lease_ttl={5, 2}}"), "t.lua:2: workload{}: field 'lease_ttl': min 5 is above max 2");
  EXPECT_EQ(error("run_for(s(10))\nworkload{lease_ttl=3}"),
            "t.lua:2: workload{}: field 'lease_ttl': expected {min, max} in seconds, e.g. {2, 5}");
  EXPECT_NE(error("run_for(s(10))\nworkload{compaction_keep=-1}").find("field 'compaction_keep'"), std::string::npos);
}

TEST(Scenario, KubeConfigurationAndItsFaults) {
  auto s = load("run_for(s(10))\nkube{apiservers=3, controllers=1, cache=50, writes=2, keys=4, resync=s(3)}\n"
                "at(s(1), function() kube_crash(2) end)\nat(s(2), function() kube_restart(2) end)");
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  const auto& k = (*s)->config().kube;
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->apiservers, 3u);
  EXPECT_EQ(k->controllers, 1u);
  EXPECT_EQ(k->cache_capacity, 50u);
  EXPECT_EQ(k->keys, 4u);
  EXPECT_EQ(k->resync_every, sim::seconds(3));
  EXPECT_FALSE(load("run_for(s(10))").value()->config().kube.has_value());
}

TEST(Scenario, SwarmDrawsFromTheSeedAndLogsIt) {
  const std::string code = "run_for(s(10))\nswarm{interval={ms(200), s(2)}}";
  auto a = Scenario::load_source("swarm.lua", code, 11);
  auto b = Scenario::load_source("swarm.lua", code, 11);
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  ASSERT_EQ((*a)->config().swarm_log.size(), 3u);  // faults, timing, workload
  EXPECT_EQ((*a)->config().swarm_log, (*b)->config().swarm_log);
  EXPECT_TRUE((*a)->config().run.faults);
  EXPECT_EQ((*a)->config().swarm_log[0].rfind("swarm drew: partition ", 0), 0u) << (*a)->config().swarm_log[0];
  bool differs = false;
  for (uint64_t seed = 12; seed < 20 && !differs; ++seed)
    differs = Scenario::load_source("swarm.lua", code, seed).value()->config().swarm_log != (*a)->config().swarm_log;
  EXPECT_TRUE(differs);
}

// swarm{} draws the cluster's size from the list, Raft's timing and the workload unless told not
// to, and cluster{}/workload{} after it are load errors (it drew from what they set).
TEST(Scenario, SwarmDrawsSizeTimingAndWorkload) {
  const std::string code = "workload{keys=10, rate=40}\nrun_for(s(10))\nswarm{nodes={1, 3, 5}}";
  std::set<size_t> sizes, keys;
  std::set<int64_t> ticks;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    auto s = Scenario::load_source("swarm.lua", code, seed);
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    const ScenarioConfig& c = (*s)->config();
    ASSERT_EQ(c.swarm_log.size(), 4u);
    EXPECT_NE(c.swarm_log[1].find(" members"), std::string::npos) << c.swarm_log[1];
    EXPECT_NE(c.swarm_log[3].find("kv kinds"), std::string::npos) << c.swarm_log[3];
    sizes.insert(c.run.nodes);
    keys.insert(c.run.workload.keys);
    ticks.insert(c.tick);
    EXPECT_TRUE(c.run.workload.rate == 20 || c.run.workload.rate == 40 || c.run.workload.rate == 80);
    EXPECT_LE(c.tick * c.raft.election_tick, limits::kScenarioElectionTimeoutNsMax);
  }
  EXPECT_EQ(sizes, (std::set<size_t>{1, 3, 5}));
  EXPECT_GE(keys.size(), 3u);
  EXPECT_GE(ticks.size(), 3u);
  auto fixed = Scenario::load_source("swarm.lua", "run_for(s(10))\nswarm{timing=false, workload=false}", 3);
  ASSERT_TRUE(fixed.is_ok());
  EXPECT_EQ((*fixed)->config().swarm_log.size(), 1u);
  EXPECT_EQ((*fixed)->config().run.workload.keys, client::WorkloadOptions{}.keys);
  auto late = Scenario::load_source("swarm.lua", "run_for(s(10))\nswarm{}\nworkload{keys=3}", 3);
  ASSERT_FALSE(late.is_ok());
  EXPECT_NE(late.status().message().find("call it before swarm{}"), std::string::npos) << late.status().message();
  // A drawn size must hold every member cluster{} names: an error at load, never an abort later.
  const std::string drift = "cluster{nodes=3, clock={drift_ppm={[3]=100}}}\nrun_for(s(10))\nswarm{nodes={1, 3}}";
  EXPECT_NE(error(drift).find("swarm{}: field 'nodes': size 1 has no member n3"), std::string::npos) << error(drift);
}

// A short world: one client, no watchers; what the script does at its times.
struct WorldRun {
  sim::Simulator sim{5};
  history::MemoryRecorder recorder;
  world::KvRunResult result;
  std::unique_ptr<Scenario> scenario;
  explicit WorldRun(const std::string& code) {
    auto s = Scenario::load_source("run.lua", code, 5);
    EXPECT_TRUE(s.is_ok()) << s.status().message();
    scenario = std::move(s).value();
    result = world::run_kv_world(sim, scenario->run_options(), recorder);
  }
};

TEST(Scenario, ScheduledFunctionsActAndTheirFaultsAreRecorded) {
  WorldRun r("workload{clients=2, watchers=1}\n"
        "run_for(s(6))\n"
        "at(s(1), function() partition(isolate(leader())) end)\n"
        "at(s(3), function() heal() end)\n"
        "after(s(4), function() kill(follower(), {lose_unsynced=true}) end)\n");
  EXPECT_FALSE(r.scenario->runtime_error()) << *r.scenario->runtime_error();
  const auto& faults = r.recorder.history().faults;
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[0].kind, "partition isolate");
  EXPECT_EQ(faults[0].end_ns - faults[0].start_ns, sim::seconds(2));
  EXPECT_EQ(faults[1].kind, "power-loss");
  EXPECT_NE(faults[1].end_ns, history::kNeverReturned);  // closed when the harness heals
  EXPECT_TRUE(r.result.liveness_ok) << r.result.liveness.detail;
  EXPECT_TRUE(r.result.members_agree);
  EXPECT_EQ(r.result.fault_log.size(), 3u);  // partition, heal, kill
  // The schedule: the script's three fault calls, numbered, with the node each chose.
  const auto& schedule = r.recorder.history().schedule;
  ASSERT_EQ(schedule.size(), 3u);
  EXPECT_EQ(schedule[0].kind, "isolate");
  EXPECT_EQ(schedule[1].kind, "heal");
  EXPECT_EQ(schedule[2].kind, "kill");
  for (uint64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(schedule[i].origin, "script");
    EXPECT_EQ(schedule[i].call, i + 1);
  }
  EXPECT_NE(schedule[2].lua.find("lose_unsynced=true"), std::string::npos) << schedule[2].lua;
}

// watch_stall() and watch_rewind() act on the workload's watchers: the stall is a window in the
// report, a rewind ends the watch and starts a new one further back, and every watch still holds
// to etcd's guarantees (a stalled stream loses nothing; a rewind below the compaction is
// canceled and restarted).
TEST(Scenario, WatchFaultsStallAndRewindTheWatchers) {
  WorldRun r("workload{clients=2, watchers=2, compaction=ms(500), compaction_keep=0, lease_ttl={1, 2}}\n"
             "run_for(s(6))\n"
             "at(s(1), function() watch_stall(1, s(2)) end)\n"
             "at(s(2), function() watch_rewind(2, 1000000) end)\n"
             "at(s(4), function() watch_rewind(1, 5) end)\n");
  EXPECT_FALSE(r.scenario->runtime_error()) << *r.scenario->runtime_error();
  EXPECT_EQ(r.result.workload.watches_rewound, 2u);
  EXPECT_GT(r.result.workload.watches_canceled, 0u);  // watcher 2 went back to revision 1, long compacted
  const auto& faults = r.recorder.history().faults;
  ASSERT_EQ(faults.size(), 3u);
  EXPECT_EQ(faults[0].kind, "watch-stall");
  EXPECT_EQ(faults[0].target, "watcher1");
  EXPECT_EQ(faults[0].end_ns - faults[0].start_ns, sim::seconds(2));
  EXPECT_EQ(faults[1].kind, "watch-rewind");
  // Watcher 1 (client 3) reads nothing from its first response in the stall until the stall ends.
  const history::History& h = r.recorder.history();
  std::vector<int64_t> reads;  // watcher 1's response times
  for (const history::Watch& w : h.watches)
    if (w.client == 3)
      for (const history::WatchSegment& seg : w.segments)
        for (const history::WatchResponse& resp : seg.responses) reads.push_back(resp.at_ns);
  std::sort(reads.begin(), reads.end());
  const auto in_stall = std::upper_bound(reads.begin(), reads.end(), faults[0].start_ns);
  ASSERT_NE(in_stall, reads.end());
  ASSERT_NE(std::next(in_stall), reads.end());
  EXPECT_GE(*std::next(in_stall), faults[0].end_ns);
  // Watcher 2 (client 4) watched again from revision 1; watcher 1 from 5 below where it was.
  std::vector<const history::Watch*> w1, w2;
  for (const history::Watch& w : h.watches) {
    if (w.client == 3) w1.push_back(&w);
    if (w.client == 4) w2.push_back(&w);
  }
  EXPECT_TRUE(std::any_of(w2.begin(), w2.end(), [](const history::Watch* w) {
    return w->segments.front().created_ns > sim::seconds(2) && w->segments.front().request.start_revision() == 1;
  }));
  bool checked = false;
  for (size_t i = 1; i < w1.size() && !checked; ++i) {
    if (w1[i]->segments.front().created_ns < sim::seconds(4)) continue;
    int64_t last_event = 0, last_header = 0;
    for (const history::WatchSegment& seg : w1[i - 1]->segments)
      for (const history::WatchResponse& resp : seg.responses) {
        last_header = std::max(last_header, resp.response.header().revision());
        for (const auto& e : resp.response.events()) last_event = std::max(last_event, e.kv().mod_revision());
      }
    const int64_t start = w1[i]->segments.front().request.start_revision();
    EXPECT_GE(start, last_event + 1 - 5);
    EXPECT_LE(start, last_header + 1 - 5);
    checked = true;
  }
  EXPECT_TRUE(checked);
  const checker::watch::Report watch = checker::watch::check(r.recorder.history());
  EXPECT_TRUE(watch.ok()) << watch.to_string();
  EXPECT_GT(watch.watches, 4u);
  for (const history::Operation& op : r.recorder.history().operations) {
    if (op.request.has_lease_grant() && op.outcome == history::Outcome::kOk) {
      EXPECT_LE(op.request.lease_grant().ttl(), 2);
    }
  }
  WorldRun bad("workload{clients=1, watchers=2}\nrun_for(s(3))\nat(s(1), function() watch_stall(3, s(1)) end)\n");
  ASSERT_TRUE(bad.scenario->runtime_error());
  EXPECT_NE(bad.scenario->runtime_error()->find("watch_stall: watcher 3 does not exist (1..2)"), std::string::npos)
      << *bad.scenario->runtime_error();
}

// client_stall() pauses one KV client (and its lease keep-alives): a window in the report, no
// operation of that client invoked inside it, and the history still linearizable (a late read of
// an answer only widens its operation).
TEST(Scenario, AClientStallSendsNothingUntilItEnds) {
  WorldRun r("workload{clients=2, watchers=1, rate=40}\n"
             "run_for(s(6))\n"
             "at(s(2), function() client_stall(2, s(2)) end)\n");
  EXPECT_FALSE(r.scenario->runtime_error()) << *r.scenario->runtime_error();
  const auto& faults = r.recorder.history().faults;
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, "client-stall");
  EXPECT_EQ(faults[0].target, "client2");
  size_t before = 0, inside = 0, after = 0, other_inside = 0;
  for (const history::Operation& op : r.recorder.history().operations) {
    const bool in = op.invoke_ns > faults[0].start_ns && op.invoke_ns < faults[0].end_ns;
    if (op.client == 2) (in ? inside : op.invoke_ns <= faults[0].start_ns ? before : after)++;
    if (op.client == 1 && in) ++other_inside;
  }
  EXPECT_GT(before, 10u);
  EXPECT_EQ(inside, 0u);
  EXPECT_GT(after, 10u);
  EXPECT_GT(other_inside, 10u);  // the other client went on
  const auto lin = checker::etcd::check_etcd(r.recorder.history());
  ASSERT_TRUE(lin.is_ok()) << lin.status().message();
  EXPECT_EQ(lin->verdict, checker::Verdict::kLinearizable) << lin->summary();
  WorldRun bad("workload{clients=2}\nrun_for(s(3))\nat(s(1), function() client_stall(3, s(1)) end)\n");
  ASSERT_TRUE(bad.scenario->runtime_error());
  EXPECT_NE(bad.scenario->runtime_error()->find("client_stall: client 3 does not exist (1..2)"), std::string::npos)
      << *bad.scenario->runtime_error();
}

TEST(Scenario, CompactAndDefragGoThroughAClientAndAreRecorded) {
  WorldRun r("workload{clients=2, watchers=1, compaction=s(0)}\n"
             "run_for(s(4))\n"
             "at(s(2), function() compact{keep=3} end)\n"
             "at(s(3), function() defrag(2) end)\n");
  EXPECT_FALSE(r.scenario->runtime_error()) << *r.scenario->runtime_error();
  int compactions = 0, defrags = 0;
  for (const history::Operation& op : r.recorder.history().operations) {
    if (op.client < 1'000'000) continue;  // the scenario's own client
    compactions += op.request.has_compaction() && op.outcome == history::Outcome::kOk;
    if (op.request.has_defragment()) {
      ++defrags;
      EXPECT_EQ(op.member, 2u);
      EXPECT_EQ(op.outcome, history::Outcome::kOk);
    }
  }
  EXPECT_EQ(compactions, 1);
  EXPECT_EQ(defrags, 1);
  ASSERT_EQ(r.recorder.history().faults.size(), 2u);
  EXPECT_EQ(r.recorder.history().faults[0].kind, "compact");
  EXPECT_EQ(r.recorder.history().faults[1].target, "n2");
}

TEST(Scenario, ARuntimeErrorStopsTheScriptAndNamesItsLine) {
  WorldRun r("workload{clients=1, watchers=0}\n"
        "run_for(s(3))\n"
        "every(s(1), function()\n"
        "  partition{{7}}\n"
        "end)\n");
  ASSERT_TRUE(r.scenario->runtime_error());
  EXPECT_EQ(*r.scenario->runtime_error(),
            "run.lua:4: partition{}: unknown node 7; cluster has 1..3 (in the function scheduled at run.lua:3)");
  EXPECT_TRUE(r.recorder.history().faults.empty());
}

TEST(Scenario, EveryShippedScenarioLoads) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(DST_SCENARIOS_DIR)) {
    if (entry.path().extension() != ".lua") continue;
    ++n;
    auto s = Scenario::load(entry.path().string(), 1);
    EXPECT_TRUE(s.is_ok()) << entry.path() << ": " << s.status().message();
  }
  EXPECT_GE(n, 12u);
}

}  // namespace
}  // namespace dst::scenarios
