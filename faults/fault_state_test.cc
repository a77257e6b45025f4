#include "faults/fault_state.h"

#include <gtest/gtest.h>

#include <set>

#include "base/probes.h"

namespace dst::faults {
namespace {

using sim::milliseconds;
using States = std::vector<std::string_view>;

TEST(FaultState, RoleAndElectionFromTheLeader) {
  EXPECT_EQ(fault_states(FaultKind::kCrash, 2, 2, 0), (States{"leader"}));
  EXPECT_EQ(fault_states(FaultKind::kPause, 1, 2, 0), (States{"follower"}));
  EXPECT_EQ(fault_states(FaultKind::kKill, 3, 0, 0), (States{"follower", "election"}));
  EXPECT_EQ(fault_states(FaultKind::kHeal, 0, 1, 0), (States{}));
  EXPECT_EQ(fault_states(FaultKind::kPartition, 0, 0, 0), (States{"election"}));
}

// Snapshot, compaction and defrag states come from the probes' latest passes on the run's clock.
TEST(FaultState, RecentProbesNameTheActivityUnderWay) {
  int64_t now = 0;
  ProbeCounts counts;
  counts.clock_ns = &now;
  ProbeScope scope(counts);
  EXPECT_EQ(fault_states(FaultKind::kHeal, 0, 1, now), (States{}));
  now = milliseconds(1000);
  DST_PROBE(kRaftSnapshotSent);
  DST_PROBE(kMvccCompacted);
  now = milliseconds(1150);
  DST_PROBE(kBackendDefragmented);
  EXPECT_EQ(fault_states(FaultKind::kCrash, 1, 1, now), (States{"leader", "snapshot", "compaction", "defrag"}));
  now = milliseconds(1300);
  EXPECT_EQ(fault_states(FaultKind::kCrash, 1, 1, now), (States{"leader", "defrag"}));
  count_fault_states(FaultKind::kCrash, {"leader", "defrag"});
  count_fault_states(FaultKind::kCrash, {"leader"});
  EXPECT_EQ(counts.named, (std::map<std::string, uint64_t>{{"fault.crash.defrag", 1}, {"fault.crash.leader", 2}}));
}

TEST(FaultState, TheCatalogueNamesEveryKindInTheStatesItCanBeIn) {
  std::set<std::string> names;
  for (const FaultStateName& n : fault_state_catalogue()) {
    EXPECT_TRUE(names.insert(n.name).second) << n.name;
    EXPECT_FALSE(n.meaning.empty());
  }
  EXPECT_TRUE(names.count("fault.crash.leader"));
  EXPECT_TRUE(names.count("fault.partition.election"));
  EXPECT_TRUE(names.count("fault.apiserver_crash.compaction"));
  EXPECT_FALSE(names.count("fault.partition.leader"));  // a network step names no member
  EXPECT_FALSE(names.count("fault.stop.election"));
}

}  // namespace
}  // namespace dst::faults
