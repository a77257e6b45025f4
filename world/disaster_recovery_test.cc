// etcd's disaster recovery on a simulated cluster, step by step: a snapshot taken through the
// API, every member's disk lost, a new cluster started from the snapshot on the same machines.
// What must come back: the keys and revision of the snapshot (and nothing written after it), the
// leases with their TTL granted anew, and a cluster that takes writes from the next revision on.
#include <gtest/gtest.h>

#include "node/server/snapshot_file.h"
#include "world/kv_world.h"

namespace dst::world {
namespace {

using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;

class Restored {
 public:
  Restored() : world_(options()) { EXPECT_TRUE(world_.await_stable_leader()); }

  // One request to member `i` (0-based) from the client process; the answer, or an error.
  ApiResponse call(size_t i, ApiRequest req) {
    ApiResponse out;
    out.mutable_error()->set_message("not answered");
    world_.run_client([&] {
      rpc::Connection* c = world_.connection(i);
      if (c == nullptr) return;
      auto r = c->call(std::move(req), sim::seconds(7));
      if (r.is_ok()) out = std::move(r).value();
    });
    return out;
  }
  ApiResponse put(const std::string& k, const std::string& v, int64_t lease = 0) {
    ApiRequest q;
    q.mutable_put()->set_key(k);
    q.mutable_put()->set_value(v);
    q.mutable_put()->set_lease(lease);
    return call(0, q);
  }
  ApiResponse get(const std::string& k) {
    ApiRequest q;
    q.mutable_range()->set_key(k);
    return call(0, q);
  }
  KvWorld& world() { return world_; }

 private:
  static KvWorldOptions options() {
    KvWorldOptions o;
    o.seed = 11;
    o.nodes = 3;
    return o;
  }
  KvWorld world_;
};

TEST(DisasterRecovery, TheSnapshotComesBackAndWhatFollowedItDoesNot) {
  Restored r;
  ApiRequest grant;
  grant.mutable_lease_grant()->set_ttl(30);
  grant.mutable_lease_grant()->set_id(77);
  ASSERT_FALSE(r.call(0, grant).has_error());
  ASSERT_FALSE(r.put("kept", "1", 77).has_error());
  ASSERT_FALSE(r.put("plain", "2").has_error());
  ApiRequest snap;
  snap.mutable_snapshot();
  const ApiResponse saved = r.call(1, snap);  // from a follower or the leader: either will do
  ASSERT_TRUE(saved.has_snapshot()) << saved.DebugString();
  const int64_t revision = saved.snapshot().header().revision();
  ASSERT_FALSE(r.put("lost", "3").has_error());  // acknowledged after the snapshot

  SimCluster& cluster = r.world().cluster();
  const uint64_t old_cluster_id = cluster.cluster_id();
  const std::vector<size_t> members = cluster.disaster();
  ASSERT_EQ(members.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(cluster.lost(i));
  r.world().advance(sim::seconds(5));  // nothing runs
  auto file = node::read_snapshot_file(saved.snapshot().blob(), "s");
  ASSERT_TRUE(file.is_ok()) << file.status().to_string();
  auto image = node::restored_image(*file, {.bump_revision = 100, .mark_compacted = true});
  ASSERT_TRUE(image.is_ok());
  cluster.restore(members, std::make_shared<const std::string>(*image), old_cluster_id + 1);
  ASSERT_TRUE(r.world().await_stable_leader());

  const ApiResponse kept = r.get("kept");
  ASSERT_TRUE(kept.has_range()) << kept.DebugString();
  ASSERT_EQ(kept.range().kvs_size(), 1);
  EXPECT_EQ(kept.range().kvs(0).lease(), 77);
  EXPECT_EQ(kept.range().header().revision(), revision + 100);  // the bump, compacted there
  EXPECT_EQ(kept.range().header().cluster_id(), old_cluster_id + 1);
  EXPECT_EQ(r.get("plain").range().kvs_size(), 1);
  EXPECT_EQ(r.get("lost").range().kvs_size(), 0);
  // The lease came back, its TTL granted anew by the new leader (at most its 30 s).
  ApiRequest ttl;
  ttl.mutable_lease_time_to_live()->set_id(77);
  const ApiResponse t = r.call(0, ttl);
  ASSERT_TRUE(t.has_lease_time_to_live()) << t.DebugString();
  EXPECT_GT(t.lease_time_to_live().ttl(), 20);
  EXPECT_LE(t.lease_time_to_live().ttl(), 30);
  // Writes continue from the restored revision; reading below it is compacted.
  const ApiResponse next = r.put("new", "4");
  ASSERT_TRUE(next.has_put()) << next.DebugString();
  EXPECT_EQ(next.put().header().revision(), revision + 101);
  ApiRequest old;
  old.mutable_range()->set_key("plain");
  old.mutable_range()->set_revision(revision);
  EXPECT_NE(r.call(0, old).error().message().find("compacted"), std::string::npos);
  // With nobody keeping it alive, the lease and its key expire.
  r.world().advance(sim::seconds(40));
  EXPECT_EQ(r.get("kept").range().kvs_size(), 0);
  EXPECT_EQ(r.get("plain").range().kvs_size(), 1);
}

}  // namespace
}  // namespace dst::world
