// The random generator and the driver on a real simulated cluster: every draw is a step the
// nemesis accepts, the draws cover every kind the options allow, and the driver replaying the
// steps it recorded reaches the very same trace hash.
#include "faults/random_faults.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "base/limits.h"

#include "faults/schedule_text.h"
#include "world/cluster_nemesis.h"
#include "world/raft_world.h"

namespace dst::faults {
namespace {

using sim::seconds;

struct DriverRun {
  uint64_t hash = 0;
  std::vector<history::ScheduleStep> rows;
  std::vector<FaultStep> timed;  // the nemesis's applied steps
};

// A 3-node cluster with the random driver (or a replay of `replay`) for 10 s.
DriverRun run(uint64_t seed, const std::vector<FaultStep>* replay, RandomFaultOptions random = {}) {
  sim::Simulator sim(seed);
  world::SimCluster cluster(sim, world::standard_cluster_options(3));
  cluster.start_all();
  history::MemoryRecorder recorder;
  world::ClusterNemesis nem(cluster, recorder);
  if (replay) nem.driver.start_replay(*replay, seconds(10) + sim::milliseconds(1));
  else {
    random.duration = seconds(10);
    random.mean_interval = sim::milliseconds(200);
    nem.driver.start_random(random);
  }
  sim.run_until(seconds(11));
  EXPECT_FALSE(nem.driver.error()) << *nem.driver.error();
  return DriverRun{sim.trace().hash(), recorder.history().schedule, nem.nemesis.applied()};
}

TEST(RandomFaults, EveryDrawIsAppliedAndTheKindsAreCovered) {
  std::set<std::string> kinds;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const DriverRun r = run(seed, nullptr);
    ASSERT_GT(r.rows.size(), 20u);
    EXPECT_EQ(r.rows.back().kind, "stop");
    for (const history::ScheduleStep& row : r.rows) {
      EXPECT_EQ(row.origin, "random");
      kinds.insert(row.kind);
    }
  }
  for (const char* k : {"partition", "isolate", "one_way", "heal", "crash", "kill", "restart", "slow_fsync",
                        "normal_fsync", "fsync_error", "drop", "pause", "resume", "failpoint", "stop"})
    EXPECT_TRUE(kinds.count(k)) << "never drawn: " << k;
}

// A started 3-member cluster and its nemesis, recording in memory.
struct NemesisWorld {
  explicit NemesisWorld(uint64_t seed) : sim(seed), cluster(sim, world::standard_cluster_options(3)) {
    cluster.start_all();
  }
  sim::Simulator sim;
  world::SimCluster cluster;
  history::MemoryRecorder recorder;
  world::ClusterNemesis nem{cluster, recorder};
};

TEST(RandomFaults, OptionsSwitchKindsOff) {
  NemesisWorld w(3);
  sim::Simulator& sim = w.sim;
  history::MemoryRecorder& recorder = w.recorder;
  world::ClusterNemesis& nem = w.nem;
  RandomFaultOptions only_pauses{.duration = seconds(5), .mean_interval = sim::milliseconds(100), .partitions = false,
                                 .asymmetric = false, .crashes = false, .slow_fsync = false, .fsync_errors = false,
                                 .message_loss = false, .pauses = true, .fault_points = false};
  nem.driver.start_random(only_pauses);
  sim.run_until(seconds(6));
  std::set<std::string> kinds;
  for (const history::ScheduleStep& row : recorder.history().schedule) kinds.insert(row.kind);
  EXPECT_EQ(kinds, (std::set<std::string>{"heal", "pause", "resume", "stop"}));
}

// A WorkloadTarget that only counts what it was asked.
struct CountingWatchers : WorkloadTarget {
  size_t clients() const override { return 2; }
  void stall_client(size_t n, sim::TimeNs until) override { client_stalls.push_back({n, until}); }
  size_t watchers() const override { return 3; }
  void stall_watcher(size_t n, sim::TimeNs until) override { stalls.push_back({n, until}); }
  void rewind_watcher(size_t n, int64_t revisions) override { rewinds.push_back({n, revisions}); }
  std::vector<std::pair<size_t, sim::TimeNs>> stalls;
  std::vector<std::pair<size_t, int64_t>> rewinds;
  std::vector<std::pair<size_t, sim::TimeNs>> client_stalls;
};

TEST(RandomFaults, WatchFaultsStallAndRewindTheWorkloadsWatchers) {
  NemesisWorld w(5);
  sim::Simulator& sim = w.sim;
  history::MemoryRecorder& recorder = w.recorder;
  world::ClusterNemesis& nem = w.nem;
  CountingWatchers watchers;
  nem.nemesis.set_workload(&watchers);
  RandomFaultOptions only_watch{.duration = seconds(20), .mean_interval = sim::milliseconds(100), .partitions = false,
                                .asymmetric = false, .crashes = false, .slow_fsync = false, .fsync_errors = false,
                                .message_loss = false, .pauses = false, .fault_points = false};
  only_watch.watch_clients = true;
  nem.driver.start_random(only_watch);
  sim.run_until(seconds(21));
  ASSERT_FALSE(nem.driver.error());
  std::set<std::string> kinds;
  for (const history::ScheduleStep& row : recorder.history().schedule) kinds.insert(row.kind);
  EXPECT_EQ(kinds, (std::set<std::string>{"heal", "watch_stall", "watch_rewind", "stop"}));
  ASSERT_GT(watchers.stalls.size(), 10u);
  ASSERT_GT(watchers.rewinds.size(), 10u);
  std::set<size_t> stalled, rewound;
  bool far_back = false;
  for (const auto& [n, until] : watchers.stalls) {
    stalled.insert(n);
    EXPECT_GT(until, 0);
  }
  for (const auto& [n, revisions] : watchers.rewinds) {
    rewound.insert(n);
    EXPECT_GE(revisions, 1);
    far_back = far_back || revisions == limits::kWatchRewindRevisionsMax;
  }
  EXPECT_EQ(stalled, (std::set<size_t>{1, 2, 3}));
  EXPECT_EQ(rewound, (std::set<size_t>{1, 2, 3}));
  EXPECT_TRUE(far_back);  // some rewinds go back to the first revision
  // Without watchers (or with the kind off) nothing of the sort is drawn.
  nem.nemesis.set_workload(nullptr);
  EXPECT_EQ(nem.nemesis.watchers(), 0u);
  const Status refused = nem.nemesis.apply(FaultStep{.kind = FaultKind::kWatchStall, .node = 1, .ns = seconds(1)});
  EXPECT_EQ(refused.message(), "watch_stall: watcher 1 does not exist (the workload has no watchers)");
}

// Bit rot is drawn only on a member that is down, inside its WAL's synced records (where the next
// start must refuse), and never on more than (n-1)/2 members: a quorum always can start again.
TEST(RandomFaults, WalDamageHitsOneDownMemberOfThreeWhichThenRefusesToStart) {
  NemesisWorld w(11);
  RandomFaultOptions crash_and_rot{.duration = seconds(30), .mean_interval = sim::milliseconds(150), .partitions = false,
                                   .asymmetric = false, .crashes = true, .slow_fsync = false, .fsync_errors = false,
                                   .message_loss = false, .pauses = false, .fault_points = false};
  crash_and_rot.disk_corruption = true;
  w.nem.driver.start_random(crash_and_rot);
  w.sim.run_until(seconds(31));
  ASSERT_FALSE(w.nem.driver.error());
  std::set<size_t> damaged;
  for (const FaultStep& s : w.nem.nemesis.applied()) {
    if (s.kind != FaultKind::kBitflip) continue;
    damaged.insert(s.node);
    EXPECT_EQ(s.file.rfind("member/wal/", 0), 0u) << s.file;
    EXPECT_GE(s.bits, 1);
    EXPECT_LE(s.bits, 3);
  }
  ASSERT_EQ(damaged.size(), 1u);  // (3-1)/2
  const size_t n = *damaged.begin();
  // It was restarted after the damage and refused; it is never started again.
  EXPECT_TRUE(w.cluster.lost(n - 1));
  EXPECT_FALSE(w.nem.nemesis.restartable(n));
  ASSERT_EQ(w.cluster.lost_members().size(), 1u);
  EXPECT_NE(w.cluster.lost_members()[0].find("n" + std::to_string(n) + " refused member/wal/"), std::string::npos)
      << w.cluster.lost_members()[0];
  EXPECT_TRUE(w.cluster.invariants().ok());
  w.cluster.heal_all();
  const world::LivenessReport live = w.cluster.await_recovery(seconds(20));
  EXPECT_TRUE(live.ok) << live.detail;
  EXPECT_FALSE(w.cluster.up(n - 1));
}

TEST(RandomFaults, ClientStallsPauseEveryClientForAGcPauseOrPastALeaseTtl) {
  NemesisWorld w(6);
  CountingWatchers workload;
  w.nem.nemesis.set_workload(&workload);
  RandomFaultOptions only_clients{.duration = seconds(60), .mean_interval = sim::milliseconds(200), .partitions = false,
                                  .asymmetric = false, .crashes = false, .slow_fsync = false, .fsync_errors = false,
                                  .message_loss = false, .pauses = false, .fault_points = false};
  only_clients.client_stalls = true;
  w.nem.driver.start_random(only_clients);
  w.sim.run_until(seconds(61));
  ASSERT_FALSE(w.nem.driver.error());
  std::set<std::string> kinds;
  for (const history::ScheduleStep& row : w.recorder.history().schedule) kinds.insert(row.kind);
  EXPECT_EQ(kinds, (std::set<std::string>{"heal", "client_stall", "stop"}));
  ASSERT_GT(workload.client_stalls.size(), 50u);
  EXPECT_TRUE(workload.stalls.empty());
  std::set<size_t> stalled;
  bool short_one = false, long_one = false;
  for (const FaultStep& s : w.nem.nemesis.applied()) {
    if (s.kind != FaultKind::kClientStall) continue;
    stalled.insert(s.node);
    short_one = short_one || s.ns < sim::seconds(1);
    long_one = long_one || s.ns > sim::seconds(3);
    EXPECT_LE(s.ns, sim::seconds(12));
  }
  EXPECT_EQ(stalled, (std::set<size_t>{1, 2}));
  EXPECT_TRUE(short_one);
  EXPECT_TRUE(long_one);
  const Status refused = w.nem.nemesis.apply(FaultStep{.kind = FaultKind::kClientStall, .node = 3, .ns = seconds(1)});
  EXPECT_EQ(refused.message(), "client_stall: client 3 does not exist (1..2)");
}

TEST(FaultDriver, ReplayingTheRecordedStepsGivesTheSameTraceHash) {
  const DriverRun original = run(7, nullptr);
  const std::vector<FaultStep>& steps = original.timed;
  ASSERT_EQ(steps.size(), original.rows.size());
  for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(step_to_lua(steps[i]), original.rows[i].lua);
  const DriverRun replay = run(7, &steps);
  EXPECT_EQ(replay.hash, original.hash);
  ASSERT_EQ(replay.rows.size(), original.rows.size());
  for (size_t i = 0; i < replay.rows.size(); ++i) EXPECT_EQ(replay.rows[i].lua, original.rows[i].lua);
}

// A fork keeps every step before its time (the run is the seed's up to there) and draws other
// steps after it; without a fork the draws are exactly the unforked driver's.
TEST(FaultDriver, AForkKeepsThePrefixAndChangesTheStepsAfterIt) {
  const DriverRun original = run(9, nullptr);
  RandomFaultOptions forked;
  forked.forks = {NemesisFork{.after = seconds(4), .salt = 1}, NemesisFork{.after = seconds(7), .salt = 2, .interval_percent = 50}};
  const DriverRun fork = run(9, nullptr, forked);
  size_t before = 0;
  for (const FaultStep& s : original.timed) before += s.at < seconds(4) ? 1 : 0;
  ASSERT_GT(before, 3u);
  ASSERT_GT(fork.timed.size(), before);
  for (size_t i = 0; i < before; ++i) EXPECT_EQ(step_to_lua(fork.timed[i]), step_to_lua(original.timed[i]));
  bool differs = fork.timed.size() != original.timed.size();
  for (size_t i = before; !differs && i < fork.timed.size(); ++i) differs = step_to_lua(fork.timed[i]) != step_to_lua(original.timed[i]);
  EXPECT_TRUE(differs);
  EXPECT_NE(fork.hash, original.hash);
  EXPECT_EQ(run(9, nullptr, forked).hash, fork.hash);  // a fork is as deterministic as its seed

  RandomFaultOptions quiet;
  quiet.forks = {NemesisFork{.after = seconds(6), .salt = 3}};
  quiet.quiet_until_first_fork = true;
  const DriverRun late = run(9, nullptr, quiet);
  ASSERT_GT(late.timed.size(), 2u);
  EXPECT_GE(late.timed.front().at, seconds(6));
}

TEST(FaultDriver, AReplayedStepTheClusterRefusesStopsTheReplayWithItsReason) {
  std::vector<FaultStep> steps = {FaultStep{.at = seconds(2), .kind = FaultKind::kCrash, .origin = Origin::kTimed, .node = 5}};
  sim::Simulator sim(1);
  world::SimCluster cluster(sim, world::standard_cluster_options(3));
  cluster.start_all();
  history::MemoryRecorder recorder;
  world::ClusterNemesis nem(cluster, recorder);
  nem.driver.start_replay(steps, seconds(10));
  sim.run_until(seconds(3));
  ASSERT_TRUE(nem.driver.error());
  EXPECT_EQ(*nem.driver.error(), "the schedule's step at t=2.000s (crash n5): crash(): unknown node 5; cluster has 1..3");
  EXPECT_TRUE(recorder.history().schedule.empty());
}

}  // namespace
}  // namespace dst::faults
