// Damage to a member's WAL where its next start must refuse: what counts as such damage, that a
// correct member refuses it and is then kept down, and that a start which accepts it is reported.
#include "world/wal_damage.h"

#include <gtest/gtest.h>

#include "node/wal/record.h"
#include "world/raft_world.h"
#include "world/sim_cluster.h"

namespace dst::world {
namespace {

using sim::seconds;

// A 3-node cluster that ran for 5 s, with a follower crashed (its process: the page cache stays).
struct CrashedFollower {
  explicit CrashedFollower(uint64_t seed) : sim(seed), cluster(sim, standard_cluster_options(3)) {
    cluster.start_all();
    sim.run_until(seconds(5));
    victim = (cluster.leader().value_or(0) + 1) % 3;
    cluster.crash(victim, sim::KillOptions{});
  }
  sim::Disk& disk() { return sim.host(cluster.host(victim)).disk(); }
  bool exited_on_corruption() const {
    for (const std::string& e : cluster.exits())
      if (e.find("start failed: corruption: wal: corruption in") != std::string::npos) return true;
    return false;
  }
  sim::Simulator sim;
  SimCluster cluster;
  size_t victim = 0;
};

TEST(WalDamage, TheRangeEndsWhereTheLastValidRecordStarts) {
  CrashedFollower w(1);
  const auto target = wal_damage_target(w.disk(), "member");
  ASSERT_TRUE(target.has_value());
  EXPECT_EQ(target->file.rfind("member/wal/", 0), 0u);
  const std::string bytes = *w.disk().durable_content(target->file);
  const wal::SegmentScan scan = wal::scan_records(bytes);
  ASSERT_GE(scan.records.size(), 2u);
  EXPECT_EQ(target->limit, scan.records.back().offset);
  EXPECT_EQ(target->records, scan.records.size() - 1);
  EXPECT_TRUE(inside(*target, target->file, 0, target->limit));
  EXPECT_FALSE(inside(*target, target->file, target->limit - 1, 2));  // reaches into the last record
  EXPECT_FALSE(inside(*target, target->file, 0, 0));
  EXPECT_FALSE(inside(*target, "member/wal/other.wal", 0, 1));
  // A running member is not a target: what it writes next may release the segment.
  w.cluster.start(w.victim);
  EXPECT_FALSE(w.cluster.wal_damage_range(w.victim).has_value());
}

TEST(WalDamage, AMemberRefusesDamageBeforeItsLastRecordAndIsKeptDown) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    CrashedFollower w(seed);
    const auto range = w.cluster.wal_damage_range(w.victim);
    ASSERT_TRUE(range.has_value());
    const uint64_t offset = range->limit / 2;
    w.cluster.damaging(w.victim, range->file, offset, 4);
    ASSERT_TRUE(w.cluster.must_refuse_start(w.victim));
    ASSERT_TRUE(w.disk().flip_bits(range->file, offset, 4, 1).is_ok());
    w.cluster.start(w.victim);
    w.sim.run_until(seconds(6));
    EXPECT_TRUE(w.exited_on_corruption());
    EXPECT_TRUE(w.cluster.lost(w.victim));
    EXPECT_FALSE(w.cluster.must_refuse_start(w.victim));
    EXPECT_FALSE(w.cluster.counts_as_member(w.victim));
    EXPECT_EQ(w.cluster.lost_members().size(), 1u);
    // The heal leaves it down, and the other two recover and agree without it.
    w.cluster.heal_all();
    EXPECT_TRUE(w.cluster.await_recovery(seconds(10)).ok);
    EXPECT_TRUE(w.cluster.await_agreement(seconds(10)).ok);
    EXPECT_FALSE(w.cluster.up(w.victim));
    EXPECT_TRUE(w.cluster.invariants().ok());
  }
}

TEST(WalDamage, DamageToTheLastRecordIsNotHeldAgainstTheStart) {
  CrashedFollower w(2);
  const auto range = w.cluster.wal_damage_range(w.victim);
  ASSERT_TRUE(range.has_value());
  // The last record may be a torn tail: a start may cut it, so nothing is expected of it.
  w.cluster.damaging(w.victim, range->file, range->limit, 1);
  EXPECT_FALSE(w.cluster.must_refuse_start(w.victim));
}

// The check itself: a start that accepts storage it was told is damaged (here the damage was
// announced but never made, as a WAL that reads past bad records would see it) fails the run.
TEST(WalDamage, AStartThatAcceptsDamagedStorageIsADurabilityViolation) {
  CrashedFollower w(3);
  const auto range = w.cluster.wal_damage_range(w.victim);
  ASSERT_TRUE(range.has_value());
  w.cluster.damaging(w.victim, range->file, 0, 8);
  w.cluster.start(w.victim);
  w.sim.run_until(seconds(6));
  EXPECT_FALSE(w.cluster.lost(w.victim));
  ASSERT_FALSE(w.cluster.invariants().ok());
  EXPECT_NE(w.cluster.invariants().violations()[0].find("Durability: n" + std::to_string(w.victim + 1) +
                                                          " started on storage it had to refuse: member/wal/"),
            std::string::npos)
      << w.cluster.invariants().violations()[0];
}

}  // namespace
}  // namespace dst::world
