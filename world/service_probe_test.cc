// The service probe of the liveness phase: served when a quorum is up (a write acknowledged, each
// member answered a linearizable read, all recorded), not served without one.
#include "world/service_probe.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "world/raft_world.h"

namespace dst::world {
namespace {

using node::ApiOptions;
using node::StateMachineKind;

using sim::seconds;

ClusterOptions kv_options() {
  ClusterOptions o = standard_cluster_options(3);
  o.server.state_machine = StateMachineKind::kKv;
  o.load.propose_every = 0;  // only the probe writes
  return o;
}

TEST(ServiceProbe, ServedWhenEveryMemberIsUp) {
  sim::Simulator sim(5);
  SimCluster c(sim, kv_options());
  c.start_all();
  sim.run_until(seconds(3));
  history::MemoryRecorder rec;
  const ServiceReport r = probe_service(sim, c, rec, ApiOptions{}.port, seconds(10));
  EXPECT_TRUE(r.ok) << r.detail;
  EXPECT_GT(r.took, 0);
  EXPECT_LT(r.took, seconds(10));
  // One acknowledged write, then one linearizable read answered by each member.
  size_t writes = 0, reads = 0;
  std::set<uint32_t> readers;
  std::string written;
  for (const history::Operation& op : rec.history().operations)
    if (op.request.has_put() && op.outcome == history::Outcome::kOk) written = op.request.put().value();
  for (const history::Operation& op : rec.history().operations) {
    EXPECT_GE(op.client, kServiceProbeClientIdBase);
    if (op.outcome != history::Outcome::kOk) continue;
    if (op.request.has_put()) ++writes;
    if (op.request.has_range()) {
      ++reads;
      readers.insert(op.member);
      ASSERT_EQ(op.response.range().kvs_size(), 1);
      EXPECT_EQ(op.response.range().kvs(0).value(), written);
    }
  }
  EXPECT_EQ(writes, 1u);
  EXPECT_EQ(reads, 3u);
  EXPECT_EQ(readers, (std::set<uint32_t>{1, 2, 3}));
}

TEST(ServiceProbe, NotServedWithoutAQuorum) {
  sim::Simulator sim(6);
  SimCluster c(sim, kv_options());
  c.start_all();
  sim.run_until(seconds(3));
  const size_t l = *c.leader();
  c.crash((l + 1) % 3);
  c.crash((l + 2) % 3);
  history::MemoryRecorder rec;
  const ServiceReport r = probe_service(sim, c, rec, ApiOptions{}.port, seconds(8));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.detail.find("waiting for a client write to be acknowledged"), std::string::npos) << r.detail;
  EXPECT_GE(r.took, seconds(8));
}

}  // namespace
}  // namespace dst::world
