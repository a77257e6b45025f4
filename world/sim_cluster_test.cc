// Raft clusters in simulation: elections, replication, restarts from snapshot + WAL, fault points,
// and the random-fault sweeps (300 seeds for 3 and for 5 nodes) with the Invariants checker after
// every step and a liveness bound after the heal.
#include "world/sim_cluster.h"
#include "node/server/kv_state_machine.h"
#include "world/cluster_nemesis.h"
#include "world/raft_world.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sim/disk.h"

namespace dst::world {
namespace {

using node::FaultAction;
using node::FaultPoint;
using node::KvStateMachine;
using node::Server;
using node::StateMachineKind;
using node::fault_point_name;

using sim::milliseconds;
using sim::seconds;

// Load, reads, snapshots every 100 entries and 16 KiB WAL segments: see raft_world.h.
ClusterOptions cluster_options(size_t nodes) { return standard_cluster_options(nodes); }

std::string violations(const SimCluster& c) {
  std::string out;
  for (const std::string& v : const_cast<SimCluster&>(c).invariants().violations()) out += v + "\n";
  return out;
}

// Every member reaches the same applied index with the same state hash (member agreement).
void expect_members_agree(SimCluster& c) {
  AgreementReport a = c.await_agreement(seconds(10));
  EXPECT_TRUE(a.ok) << a.detail;
}

ClusterOptions kv_options(size_t nodes) {
  ClusterOptions o = standard_cluster_options(nodes);
  o.server.state_machine = StateMachineKind::kKv;
  return o;
}

// After a heal: a leader and every node caught up within `bound`, members agree, no violation.
void expect_recovers(SimCluster& c, sim::DurationNs bound) {
  LivenessReport r = c.await_recovery(bound);
  EXPECT_TRUE(r.ok) << r.detail;
  expect_members_agree(c);
  EXPECT_TRUE(c.invariants().ok()) << violations(c);
}

TEST(SimCluster, ElectsALeaderAndReplicates) {
  sim::Simulator sim(1);
  SimCluster c(sim, cluster_options(3));
  c.start_all();
  sim.run_until(seconds(10));
  auto l = c.leader();
  ASSERT_TRUE(l.has_value());
  const Server* leader = c.server(*l);
  // 10 s at one proposal per 50 ms, minus the first election (~1-2 s).
  EXPECT_GT(leader->raft().log().committed(), 100u);
  EXPECT_GT(leader->counters().snapshots, 0u);
  expect_recovers(c, seconds(5));
}

// A node's counters add up over its incarnations: the world keeps what each one counted when its
// process died (node::ServerObserver::stopped), and adds the live one's.
TEST(SimCluster, CountersAddUpAcrossRestarts) {
  sim::Simulator sim(2);
  SimCluster c(sim, cluster_options(3));
  c.start_all();
  sim.run_until(seconds(5));
  const size_t n = (c.leader().value_or(0) + 1) % 3;
  const node::ServerCounters first = c.counters(n);
  EXPECT_GT(first.messages_received, 0u);
  c.crash(n);
  EXPECT_EQ(c.server(n), nullptr);
  EXPECT_EQ(c.counters(n).messages_received, first.messages_received);  // kept while down
  EXPECT_GE(c.counters(n).readies, first.readies);
  c.start(n);
  sim.run_until(seconds(10));
  ASSERT_NE(c.server(n), nullptr);
  const node::ServerCounters live = c.server(n)->counters();  // this incarnation's alone
  EXPECT_GT(live.messages_received, 0u);
  EXPECT_GE(c.counters(n).messages_received, first.messages_received + live.messages_received);
  expect_recovers(c, seconds(5));
}

TEST(SimCluster, FiveNodesToleratesTwoDown) {
  sim::Simulator sim(2);
  SimCluster c(sim, cluster_options(5));
  c.start_all();
  sim.run_until(seconds(3));
  auto l = c.leader();
  ASSERT_TRUE(l.has_value());
  // Crash two followers; the other three keep committing.
  size_t crashed = 0;
  for (size_t i = 0; i < 5 && crashed < 2; ++i) {
    if (i == *l) continue;
    c.crash(i, sim::KillOptions{.lose_unsynced = true});
    ++crashed;
  }
  uint64_t before = c.server(*l)->raft().log().committed();
  sim.run_until(seconds(6));
  ASSERT_TRUE(c.leader().has_value());
  EXPECT_GT(c.server(*c.leader())->raft().log().committed(), before + 20);
  c.heal_all();
  expect_recovers(c, seconds(10));
}

TEST(SimCluster, RestartRecoversFromSnapshotAndWal) {
  sim::Simulator sim(3);
  SimCluster c(sim, cluster_options(3));
  c.start_all();
  sim.run_until(seconds(12));  // several snapshots (every 100 entries)
  for (size_t i = 0; i < 3; ++i) c.crash(i, sim::KillOptions{.lose_unsynced = true, .torn = true});
  sim.run_until(seconds(13));
  c.heal_all();  // restarts all three from disk
  LivenessReport r = c.await_recovery(seconds(10));
  ASSERT_TRUE(r.ok) << r.detail;
  for (size_t i = 0; i < 3; ++i) {
    const Server* s = c.server(i);
    EXPECT_GT(s->raft().log().snapshot_metadata().index(), 1u) << "node " << i + 1 << " did not restart from a snapshot";
  }
  expect_members_agree(c);
  EXPECT_TRUE(c.invariants().ok()) << violations(c);
}

TEST(SimCluster, FaultPointCrashBeforeWalSaveLosesNothingCommitted) {
  for (FaultPoint p : {FaultPoint::kBeforeWalSave, FaultPoint::kAfterWalSave, FaultPoint::kBeforeSend,
                       FaultPoint::kBeforeApply, FaultPoint::kAfterApply, FaultPoint::kBeforeSnapshotSave,
                       FaultPoint::kAfterSnapshotSave}) {
    SCOPED_TRACE(std::string(fault_point_name(p)));
    sim::Simulator sim(4);
    SimCluster c(sim, cluster_options(3));
    c.start_all();
    sim.run_until(seconds(3));
    auto l = c.leader();
    ASSERT_TRUE(l.has_value());
    // The leader crashes (power loss) the 5th time it passes the point (the first time for the
    // snapshot points, which it passes every 100 entries).
    bool snapshot_point = p == FaultPoint::kBeforeSnapshotSave || p == FaultPoint::kAfterSnapshotSave;
    c.faults(*l).arm(p, FaultAction{.kind = FaultAction::Kind::kPowerLoss, .skip = snapshot_point ? 0u : 4u, .times = 1});
    sim.run_until(seconds(20));
    EXPECT_EQ(c.faults(*l).fired(p), 1u);
    EXPECT_FALSE(c.up(*l));
    c.heal_all();
    expect_recovers(c, seconds(10));
  }
}

// Power loss at every moment of the first milliseconds, i.e. in the middle of bootstrapping
// (snapshot file, WAL creation, marker, hard state): every node must come back and form a cluster.
TEST(SimCluster, CrashDuringBootstrapRecovers) {
  for (sim::DurationNs at = sim::microseconds(100); at <= milliseconds(30); at += sim::microseconds(700)) {
    SCOPED_TRACE("crash at " + sim::format_duration(at));
    sim::Simulator sim(6 + at);
    SimCluster c(sim, cluster_options(3));
    c.start_all();
    sim.run_until(at);
    for (size_t i = 0; i < 3; ++i) c.crash(i, sim::KillOptions{.lose_unsynced = true, .torn = true});
    c.heal_all();
    LivenessReport r = c.await_recovery(seconds(10));
    ASSERT_TRUE(r.ok) << r.detail;
    EXPECT_TRUE(c.invariants().ok()) << violations(c);
  }
}

// A cluster's own disk latency (a scenario's cluster{disk={fsync=...}}) is what heals and the
// nemesis go back to, not the simulator's default; a node added later gets it too.
TEST(SimCluster, HealRestoresTheClustersOwnFsyncLatency) {
  sim::Simulator sim(3);
  ClusterOptions o = cluster_options(3);
  o.fsync_latency = sim::DurationDist::constant(milliseconds(30));
  SimCluster c(sim, o);
  const std::string want = o.fsync_latency->to_string();
  ASSERT_NE(want, sim::DiskConfig().fsync_latency.to_string());
  c.start_all();
  sim.host(c.host(1)).disk().set_fsync_latency(sim::DurationDist::constant(milliseconds(400)));
  sim.run_until(seconds(2));
  c.heal_all();
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(sim.host(c.host(i)).disk().fsync_latency().to_string(), want) << i;
  Result<size_t> added = c.add_node();
  ASSERT_TRUE(added.is_ok());
  EXPECT_EQ(sim.host(c.host(*added)).disk().fsync_latency().to_string(), want);
}

TEST(KvCluster, ReplicatesTheMixedLoadAndMembersAgree) {
  sim::Simulator sim(21);
  SimCluster c(sim, kv_options(3));
  c.start_all();
  sim.run_until(seconds(10));
  auto l = c.leader();
  ASSERT_TRUE(l.has_value());
  const auto& kv = static_cast<KvStateMachine&>(c.server(*l)->state_machine());
  EXPECT_GT(kv.requests_applied(), 100u);
  EXPECT_GT(const_cast<KvStateMachine&>(kv).store().rev(), 50);
  EXPECT_GT(c.counters(*l).snapshots, 0u);
  LivenessReport r = c.await_recovery(seconds(5));
  EXPECT_TRUE(r.ok) << r.detail;
  expect_members_agree(c);
  EXPECT_TRUE(c.invariants().ok()) << violations(c);
}

TEST(KvCluster, PowerLossOfEveryNodeKeepsTheStoreAtItsAppliedIndex) {
  sim::Simulator sim(22);
  SimCluster c(sim, kv_options(3));
  c.start_all();
  sim.run_until(seconds(8));
  for (size_t i = 0; i < 3; ++i) c.crash(i, sim::KillOptions{.lose_unsynced = true, .torn = true});
  sim.run_until(seconds(9));
  c.heal_all();
  LivenessReport r = c.await_recovery(seconds(10));
  ASSERT_TRUE(r.ok) << r.detail;
  expect_members_agree(c);
  EXPECT_TRUE(c.invariants().ok()) << violations(c);
}

// Issue #4's crash test: a power loss at each fault point (on the leader and on a follower) while
// the KV load runs. After the restart the Raft invariants hold (no applied entry differs or is
// lost), every member reports the same KV hash at the same applied index, and no store revision
// went below what any member had applied before the heal. (Acknowledged client writes, and the
// compaction and defrag fault points, are checked by kv_crash_test.cc.)
TEST(KvCluster, PowerLossAtEveryFaultPointLosesNoAppliedWrite) {
  for (FaultPoint p : {FaultPoint::kBeforeWalSave, FaultPoint::kAfterWalSave, FaultPoint::kBeforeSend,
                       FaultPoint::kBeforeApply, FaultPoint::kAfterApply, FaultPoint::kBeforeSnapshotSave,
                       FaultPoint::kAfterSnapshotSave}) {
    for (bool on_leader : {true, false}) {
      SCOPED_TRACE(std::string(fault_point_name(p)) + (on_leader ? " on the leader" : " on a follower"));
      sim::Simulator sim(40 + static_cast<uint64_t>(p) * 2 + (on_leader ? 1 : 0));
      SimCluster c(sim, kv_options(3));
      c.start_all();
      sim.run_until(seconds(3));
      auto l = c.leader();
      ASSERT_TRUE(l.has_value());
      size_t victim = on_leader ? *l : (*l + 1) % 3;
      bool snapshot_point = p == FaultPoint::kBeforeSnapshotSave || p == FaultPoint::kAfterSnapshotSave;
      c.faults(victim).arm(p, FaultAction{.kind = FaultAction::Kind::kPowerLoss,
                                          .skip = snapshot_point ? 0u : 7u, .times = 1});
      int64_t highest_rev = 0;
      for (sim::TimeNs t = seconds(3); t < seconds(15); t += milliseconds(100)) {
        sim.run_until(t);
        for (size_t i = 0; i < 3; ++i) {
          if (const Server* s = c.server(i)) {
            highest_rev = std::max(highest_rev, static_cast<KvStateMachine&>(s->state_machine()).store().rev());
          }
        }
      }
      EXPECT_EQ(c.faults(victim).fired(p), 1u);
      c.heal_all();
      expect_recovers(c, seconds(10));
      expect_members_agree(c);
      for (size_t i = 0; i < 3; ++i) {
        const Server* s = c.server(i);
        ASSERT_NE(s, nullptr);
        EXPECT_GE(static_cast<KvStateMachine&>(s->state_machine()).store().rev(), highest_rev) << "node " << i + 1;
      }
    }
  }
}

TEST(SimCluster, FaultPointDelaySlowsButDoesNotBreak) {
  sim::Simulator sim(5);
  SimCluster c(sim, cluster_options(3));
  c.start_all();
  for (size_t i = 0; i < 3; ++i)
    c.faults(i).arm(FaultPoint::kBeforeSend,
                    FaultAction{.kind = FaultAction::Kind::kDelay, .delay = milliseconds(30), .times = 0});
  sim.run_until(seconds(10));
  ASSERT_TRUE(c.leader().has_value());
  EXPECT_GT(c.server(*c.leader())->raft().log().committed(), 50u);
  EXPECT_TRUE(c.invariants().ok()) << violations(c);
}

TEST(SimCluster, SameSeedSameTraceDifferentSeedsDiffer) {
  auto run = [](uint64_t seed) {
    sim::Simulator sim(seed);
    SimCluster c(sim, cluster_options(3));
    c.start_all();
    history::MemoryRecorder recorder;
    ClusterNemesis nemesis(c, recorder);
    nemesis.driver.start_random(faults::RandomFaultOptions{.duration = seconds(5)});
    sim.run_until(seconds(6));
    return sim.trace().hash();
  };
  EXPECT_EQ(run(11), run(11));
  EXPECT_NE(run(11), run(12));
}

// The sweep: random partitions (symmetric, asymmetric, leader isolation), crashes (process,
// power loss, torn), restarts, slow and failing fsyncs, message loss and pauses for 20 s; then
// everything heals and the cluster must have a leader and every node caught up within the bound.
constexpr sim::DurationNs kRecoveryBound = seconds(15);

// What a sweep exercised, so that a green sweep is not a vacuous one.
struct SweepStats {
  std::map<std::string, uint64_t> faults;  // by kind, from the nemesis log
  uint64_t snapshots_installed = 0;
  uint64_t reads_answered = 0;
  uint64_t committed = 0;
  uint64_t max_term = 0;
  uint64_t lease_grants = 0;   // KV: applied on the live members at the end
  uint64_t lease_revokes = 0;

  void add(const SimCluster& c, const history::History& h) {
    for (const history::ScheduleStep& step : h.schedule) {
      std::string kind = step.kind;
      if (kind == "kill") kind = step.lua.find("torn=true") != std::string::npos ? "power-loss-torn" : "power-loss";
      ++faults[kind];
    }
    for (size_t i = 0; i < c.size(); ++i) {
      snapshots_installed += c.counters(i).snapshots_installed;
      reads_answered += c.counters(i).reads_answered;
      if (const Server* s = c.server(i)) {
        max_term = std::max(max_term, s->raft().term());
        if (s->kv()) {
          lease_grants += s->kv()->lease_grants_applied();
          lease_revokes += s->kv()->lease_revokes_applied();
        }
      }
    }
    committed += const_cast<SimCluster&>(c).invariants().max_committed();
  }
  std::string describe() const {
    std::string out = "committed " + std::to_string(committed) + " entries, highest term " +
                      std::to_string(max_term) + ", " + std::to_string(snapshots_installed) +
                      " snapshots installed, " + std::to_string(reads_answered) + " reads answered; faults:";
    for (const auto& [k, v] : faults) out += " " + k + "=" + std::to_string(v);
    return out;
  }
};

// `kv`: the etcd KV state machine under the same faults; then members must also agree on the KV
// hash at one applied index (so at one revision).
void sweep(size_t nodes, uint64_t first_seed, uint64_t seeds, bool kv = false) {
  sim::DurationNs worst = 0;
  uint64_t worst_seed = 0;
  SweepStats stats;
  for (uint64_t seed = first_seed; seed < first_seed + seeds; ++seed) {
    sim::Simulator sim(seed);
    SimCluster c(sim, kv ? kv_options(nodes) : cluster_options(nodes));
    c.start_all();
    history::MemoryRecorder recorder;
    ClusterNemesis nemesis(c, recorder);
    nemesis.driver.start_random(faults::RandomFaultOptions{.duration = seconds(20)});
    sim.run_until(seconds(21));
    c.heal_all();
    LivenessReport r = c.await_recovery(kRecoveryBound);
    const std::string reproduce = "seed " + std::to_string(seed) + " (reproduce: dst run raft" + (kv ? " --kv" : "") +
                                  " --nodes " + std::to_string(nodes) + " --seed " + std::to_string(seed) + ")";
    ASSERT_TRUE(c.invariants().ok()) << reproduce << ":\n" << violations(c);
    ASSERT_TRUE(r.ok) << reproduce << ": " << r.detail;
    if (r.recovery > worst) {
      worst = r.recovery;
      worst_seed = seed;
    }
    expect_members_agree(c);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << reproduce;
      for (const std::string& f : nemesis.nemesis.log().lines()) ADD_FAILURE() << f;
      for (const std::string& e : c.exits()) ADD_FAILURE() << e;
      return;
    }
    stats.add(c, recorder.history());
  }
  std::printf("%zu nodes%s, %llu seeds: worst recovery %s (seed %llu)\n  %s\n", nodes, kv ? " (KV)" : "",
              static_cast<unsigned long long>(seeds), sim::format_duration(worst).c_str(),
              static_cast<unsigned long long>(worst_seed), stats.describe().c_str());
  // Not vacuous: every kind of fault happened, snapshots were installed, reads were answered.
  for (const char* kind : {"crash", "power-loss", "power-loss-torn", "partition", "isolate", "one_way", "restart",
                           "slow_fsync", "normal_fsync", "fsync_error", "drop", "pause", "resume", "failpoint"}) {
    EXPECT_GT(stats.faults[kind], 0u) << "the sweep never injected '" << kind << "'";
  }
  EXPECT_GT(stats.snapshots_installed, 0u);
  EXPECT_GT(stats.reads_answered, 0u);
  if (kv) {
    // Leases were granted and revoked (by the load and by the leaders' expiry) under the faults.
    EXPECT_GT(stats.lease_grants, 0u);
    EXPECT_GT(stats.lease_revokes, 0u);
    std::printf("  leases: %llu grants, %llu revokes applied (live members at the end)\n",
                static_cast<unsigned long long>(stats.lease_grants), static_cast<unsigned long long>(stats.lease_revokes));
  }
}

// Every Raft safety bug (base/bugs.h) that the random faults can reach must be caught by the
// invariants in simulation within a bounded number of seeds: the proof that the fault model and
// the checkers together see each rule's absence with real WALs, disks and networks.
//
// Not here: commit-old-term. Figure 8 needs a leader to get an old-term entry onto a majority
// while its own entry is lost, then a rival with a newer last term but without that entry to win;
// random faults did not produce that chain in 300 seeds of several configurations (3, 5 and 7
// nodes, one entry per message, up to one fault per 150 ms). The golden scripts figure8_bug.txt
// and figure8_commit_rule.txt show it deterministically; a targeted scenario is issue #7's.
TEST(SimClusterBugs, RandomFaultsCatchTheBugsTheyCanReach) {
  for (Bug bug : all_bugs()) {
    if (bug_layer(bug) != BugLayer::kRaft || bug == Bug::kCommitOldTermEntries) continue;
    SCOPED_TRACE(std::string(bug_name(bug)));
    std::optional<uint64_t> caught;
    for (uint64_t seed = 1; seed <= 200 && !caught; ++seed) {
      sim::Simulator sim(seed);
      ClusterOptions o = cluster_options(3);
      o.server.bugs = Bugs::of(bug);
      SimCluster c(sim, o);
      c.start_all();
      history::MemoryRecorder recorder;
      ClusterNemesis nemesis(c, recorder);
      nemesis.driver.start_random(faults::RandomFaultOptions{.duration = seconds(20)});
      // Stop at the first violation: the rest of the run cannot un-violate it.
      for (int t = 1; t <= 21 && c.invariants().ok(); ++t) sim.run_until(seconds(t));
      if (c.invariants().ok()) {
        c.heal_all();
        (void)c.await_recovery(seconds(5));  // a bug may also stall recovery; safety is the verdict
      }
      if (!c.invariants().ok()) caught = seed;
    }
    EXPECT_TRUE(caught.has_value()) << "bug " << bug_name(bug) << " was not caught in 200 seeds";
    if (caught) std::printf("%-28s caught at seed %llu\n", std::string(bug_name(bug)).c_str(),
                            static_cast<unsigned long long>(*caught));
  }
}

// The sanitizer build looks for memory errors, not for rare seeds, and runs ~15x slower: it sweeps
// the first 60 seeds of each range (the normal build sweeps all 300).
#ifdef DST_SANITIZER_BUILD
constexpr uint64_t kSweepSeeds = 60;
#else
constexpr uint64_t kSweepSeeds = 300;
#endif

TEST(SimClusterSweep, ThreeNodes300Seeds) { sweep(3, 1000, kSweepSeeds); }

// Issue #4: the KV store under the same faults; after the heal all members report the same hash
// of the KV state at the same applied index (so at the same revision).
TEST(SimClusterSweep, KvThreeNodes300Seeds) { sweep(3, 3000, kSweepSeeds, /*kv=*/true); }
TEST(SimClusterSweep, FiveNodes300Seeds) { sweep(5, 2000, kSweepSeeds); }

}  // namespace
}  // namespace dst::world
