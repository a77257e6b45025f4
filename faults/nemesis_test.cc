// The nemesis on a real simulated cluster: each action does what it says to the network, the
// processes, the disks and the clocks, records its window, and refuses bad arguments with a
// message naming what was expected.
#include "faults/nemesis.h"

#include <gtest/gtest.h>

#include "world/raft_world.h"

namespace dst::faults {
namespace {

using sim::milliseconds;
using sim::seconds;

struct World {
  sim::Simulator sim{42};
  world::SimCluster cluster;
  history::MemoryRecorder recorder;
  Nemesis nemesis;
  explicit World(size_t nodes)
      : cluster(sim, world::standard_cluster_options(nodes)), nemesis(sim, cluster, recorder) {
    cluster.start_all();
    sim.run_for(seconds(3));
  }
  const std::vector<history::Fault>& faults() { return recorder.history().faults; }
  bool reach(size_t a, size_t b) { return sim.net().reachable(cluster.host(a - 1), cluster.host(b - 1)); }
};

TEST(Nemesis, PartitionRecordsItsWindowUntilHeal) {
  World w(5);
  ASSERT_TRUE(w.nemesis.partition({{1, 2}}, "").is_ok());
  EXPECT_FALSE(w.reach(1, 3));
  EXPECT_FALSE(w.reach(4, 2));
  EXPECT_TRUE(w.reach(1, 2));
  EXPECT_TRUE(w.reach(3, 5));
  const sim::TimeNs start = w.sim.now();
  w.sim.run_for(seconds(2));
  ASSERT_TRUE(w.nemesis.heal().is_ok());
  EXPECT_TRUE(w.reach(1, 3));
  ASSERT_EQ(w.faults().size(), 1u);
  EXPECT_EQ(w.faults()[0].kind, "partition");
  EXPECT_EQ(w.faults()[0].target, "n1,n2|n3,n4,n5");
  EXPECT_EQ(w.faults()[0].start_ns, start);
  EXPECT_EQ(w.faults()[0].end_ns, start + seconds(2));
}

TEST(Nemesis, ANewPartitionEndsThePreviousOne) {
  World w(3);
  ASSERT_TRUE(w.nemesis.isolate(1).is_ok());
  w.sim.run_for(seconds(1));
  ASSERT_TRUE(w.nemesis.minority_third().is_ok());
  EXPECT_TRUE(w.reach(1, 2));
  EXPECT_FALSE(w.reach(3, 1));
  ASSERT_EQ(w.faults().size(), 2u);
  EXPECT_EQ(w.faults()[0].end_ns, w.faults()[1].start_ns);
  EXPECT_EQ(w.faults()[1].target, "n3|n1,n2");
  w.nemesis.finish();
  EXPECT_EQ(w.faults()[1].end_ns, w.sim.now());
}

TEST(Nemesis, ShapesNeedEnoughNodes) {
  World w(3);
  Status st = w.nemesis.majorities_ring();
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("needs at least 5 nodes; cluster has 3"), std::string::npos) << st.message();
  World five(5);
  ASSERT_TRUE(five.nemesis.majorities_ring().is_ok());
  // Each member reaches exactly its two ring neighbours.
  for (size_t i = 1; i <= 5; ++i) {
    size_t seen = 0;
    for (size_t j = 1; j <= 5; ++j) seen += i != j && five.reach(i, j);
    EXPECT_EQ(seen, 2u) << "n" << i;
  }
  EXPECT_TRUE(five.reach(1, 2));
  EXPECT_TRUE(five.reach(1, 5));
  EXPECT_FALSE(five.reach(1, 3));
  ASSERT_TRUE(five.nemesis.bridge().is_ok());
  EXPECT_FALSE(five.reach(1, 4));
  EXPECT_TRUE(five.reach(1, 3));
  EXPECT_TRUE(five.reach(3, 5));
}

TEST(Nemesis, BadArgumentsSayWhatWasExpected) {
  World w(3);
  Status st = w.nemesis.partition({{7}}, "");
  EXPECT_EQ(st.message(), "partition{}: unknown node 7; cluster has 1..3");
  EXPECT_NE(w.nemesis.partition({{1}, {1, 2}}, "").message().find("node 1 is in two groups"), std::string::npos);
  EXPECT_NE(w.nemesis.partition({{1, 2, 3}}, "").message().find("every node is in one group"), std::string::npos);
  EXPECT_EQ(w.nemesis.crash(0).message(), "crash(): unknown node 0; cluster has 1..3");
  EXPECT_NE(w.nemesis.kill(1, false, true).message().find("torn=true needs lose_unsynced=true"), std::string::npos);
  EXPECT_NE(w.nemesis.failpoint(1, "before-nothing", "crash", 0, 0, 1).message().find("before-wal-save"),
            std::string::npos);
  EXPECT_NE(w.nemesis.failpoint(1, "before-wal-save", "explode", 0, 0, 1).message().find("unknown action"),
            std::string::npos);
  EXPECT_NE(w.nemesis.drop(1.5).message().find("[0, 1]"), std::string::npos);
  EXPECT_TRUE(w.faults().empty());  // nothing refused was recorded
}

TEST(Nemesis, CrashRestartPauseResumeWindows) {
  World w(3);
  ASSERT_TRUE(w.nemesis.kill(2, true, true).is_ok());
  EXPECT_FALSE(w.nemesis.up(2));
  ASSERT_TRUE(w.nemesis.pause(3).is_ok());
  EXPECT_TRUE(w.cluster.paused(2));
  w.sim.run_for(seconds(1));
  ASSERT_TRUE(w.nemesis.restart(2).is_ok());
  ASSERT_TRUE(w.nemesis.resume(3).is_ok());
  EXPECT_TRUE(w.nemesis.up(2));
  EXPECT_FALSE(w.cluster.paused(2));
  ASSERT_EQ(w.faults().size(), 2u);
  EXPECT_EQ(w.faults()[0].kind, "power-loss-torn");
  EXPECT_EQ(w.faults()[0].target, "n2");
  EXPECT_EQ(w.faults()[1].kind, "pause");
  for (const history::Fault& f : w.faults()) EXPECT_EQ(f.end_ns - f.start_ns, seconds(1)) << f.kind;
  // The cluster serves again.
  world::LivenessReport r = w.cluster.await_recovery(seconds(10));
  EXPECT_TRUE(r.ok) << r.detail;
}

TEST(Nemesis, DiskAndClockFaults) {
  World w(3);
  ASSERT_TRUE(w.nemesis.clock_skew(1, milliseconds(500)).is_ok());
  EXPECT_EQ(w.sim.host(w.cluster.host(0)).clock().wall_offset(), milliseconds(500));
  ASSERT_TRUE(w.nemesis.clock_jump(1, seconds(2)).is_ok());
  EXPECT_EQ(w.sim.host(w.cluster.host(0)).clock().wall_offset(), milliseconds(2500));
  ASSERT_TRUE(w.nemesis.clock_drift(2, 100'000).is_ok());
  EXPECT_EQ(w.sim.host(w.cluster.host(1)).clock().drift_ppm(), 100'000);
  EXPECT_FALSE(w.nemesis.clock_drift(2, 900'000).is_ok());
  ASSERT_TRUE(w.nemesis.slow_fsync(3, sim::DurationDist::constant(milliseconds(200)), "200ms").is_ok());
  ASSERT_TRUE(w.nemesis.disk_full(3, true).is_ok());
  ASSERT_TRUE(w.nemesis.fsync_error(1, 1).is_ok());
  w.sim.run_for(seconds(1));
  ASSERT_TRUE(w.nemesis.disk_full(3, false).is_ok());
  w.nemesis.finish();
  std::vector<std::string> kinds;
  for (const history::Fault& f : w.faults()) {
    kinds.push_back(f.kind);
    EXPECT_NE(f.end_ns, history::kNeverReturned) << f.kind;
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"clock-skew", "clock-jump", "clock-drift", "slow-fsync", "disk-full",
                                             "fsync-error"}));
  EXPECT_EQ(w.nemesis.log().lines().size(), 6u);
}

}  // namespace
}  // namespace dst::faults
