// The Lease service end to end: grant and revoke through Raft from any member, keep-alive and
// time-to-live answered by the leader (forwarded by followers), expiry on the leader's clock
// deleting every attached key in one revision, and leases surviving a leader crash.
#include <gtest/gtest.h>

#include "node/server/api_test_util.h"
#include "base/bugs.h"

namespace dst::node {
namespace {

using sim::milliseconds;
using sim::seconds;
using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;
using testing::ApiTest;
using world::KvWorldOptions;

class LeaseApiTest : public ApiTest {
 protected:
  static ApiRequest grant(int64_t ttl) {
    ApiRequest r;
    r.mutable_lease_grant()->set_ttl(ttl);
    return r;
  }
  static ApiRequest put_with_lease(const std::string& k, const std::string& v, int64_t lease) {
    ApiRequest r = put(k, v);
    r.mutable_put()->set_lease(lease);
    return r;
  }
  static ApiRequest keep_alive(int64_t id) {
    ApiRequest r;
    r.mutable_lease_keep_alive()->set_id(id);
    return r;
  }
  static ApiRequest ttl_of(int64_t id) {
    ApiRequest r;
    r.mutable_lease_time_to_live()->set_id(id);
    r.mutable_lease_time_to_live()->set_keys(true);
    return r;
  }
  // Whether key exists, read linearizably on member i.
  bool exists(size_t i, const std::string& key) { return call(i, get(key)).range().kvs_size() == 1; }
};

TEST_F(LeaseApiTest, GrantAttachTimeToLiveAndRevokeFromFollowers) {
  start();
  session([&] {
    ApiResponse g = call(follower_, grant(60));
    ASSERT_TRUE(g.has_lease_grant()) << g.DebugString();
    const int64_t id = g.lease_grant().id();
    EXPECT_GT(id, 0);
    EXPECT_EQ(g.lease_grant().ttl(), 60);
    ASSERT_TRUE(call(other_, put_with_lease("l/a", "1", id)).has_put());
    ASSERT_TRUE(call(follower_, put_with_lease("l/b", "2", id)).has_put());
    ApiResponse t = call(follower_, ttl_of(id));  // forwarded to the leader
    ASSERT_TRUE(t.has_lease_time_to_live()) << t.DebugString();
    EXPECT_EQ(t.lease_time_to_live().grantedttl(), 60);
    EXPECT_GT(t.lease_time_to_live().ttl(), 55);
    ASSERT_EQ(t.lease_time_to_live().keys_size(), 2);
    EXPECT_EQ(t.lease_time_to_live().keys(0), "l/a");
    ApiRequest list;
    list.mutable_lease_leases();
    ApiResponse l = call(other_, list);
    ASSERT_EQ(l.lease_leases().leases_size(), 1);
    EXPECT_EQ(l.lease_leases().leases(0).id(), id);
    const int64_t before = call(leader_, get("l/a")).range().header().revision();
    ApiRequest revoke;
    revoke.mutable_lease_revoke()->set_id(id);
    ApiResponse r = call(other_, revoke);
    ASSERT_TRUE(r.has_lease_revoke()) << r.DebugString();
    EXPECT_EQ(r.lease_revoke().header().revision(), before + 1);  // both keys in one revision
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_FALSE(exists(i, "l/a")) << "member " << i;
      EXPECT_FALSE(exists(i, "l/b")) << "member " << i;
    }
    ApiResponse again = call(leader_, revoke);
    ASSERT_TRUE(again.has_error());
    EXPECT_EQ(again.error().code(), 5);
    EXPECT_EQ(again.error().message(), "etcdserver: requested lease not found");
    ApiResponse orphan = call(leader_, put_with_lease("l/c", "3", id));
    EXPECT_EQ(orphan.error().message(), "etcdserver: requested lease not found");
    ApiResponse gone = call(follower_, keep_alive(id));
    ASSERT_TRUE(gone.has_lease_keep_alive()) << gone.DebugString();
    EXPECT_EQ(gone.lease_keep_alive().ttl(), 0);  // etcd's answer for a lease that is gone
  });
}

TEST_F(LeaseApiTest, AnExpiredLeaseDeletesItsKeysInOneRevisionUnlessKeptAlive) {
  start();
  int64_t kept = 0, dropped = 0;
  session([&] {
    kept = call(leader_, grant(5)).lease_grant().id();
    dropped = call(leader_, grant(5)).lease_grant().id();
    call(leader_, put_with_lease("kept", "v", kept));
    call(leader_, put_with_lease("dropped/1", "v", dropped));
    call(leader_, put_with_lease("dropped/2", "v", dropped));
  });
  // 12 s of virtual time: the kept lease is renewed every 1.5 s (from a follower), the other not.
  session([&] {
    for (int i = 0; i < 8; ++i) {
      ApiResponse k = call(follower_, keep_alive(kept));
      ASSERT_TRUE(k.has_lease_keep_alive()) << k.DebugString();
      EXPECT_EQ(k.lease_keep_alive().ttl(), 5);
      world_->sim().sleep(milliseconds(1500));
    }
  }, seconds(60));
  session([&] {
    EXPECT_TRUE(exists(other_, "kept"));
    EXPECT_FALSE(exists(other_, "dropped/1"));
    EXPECT_FALSE(exists(other_, "dropped/2"));
    ApiResponse t = call(other_, ttl_of(dropped));
    EXPECT_EQ(t.lease_time_to_live().ttl(), -1);  // etcd 3.4: an unknown lease has TTL -1
    // Both keys went in the same revision: their tombstones share a mod_revision.
    ApiRequest r;
    r.mutable_range()->set_key("dropped/");
    r.mutable_range()->set_range_end("dropped0");
    r.mutable_range()->set_revision(0);
    const int64_t now = call(leader_, r).range().header().revision();
    int deletes_at = 0;
    for (int64_t rev = now; rev > 1 && deletes_at == 0; --rev) {
      r.mutable_range()->set_revision(rev - 1);
      ApiResponse before = call(leader_, r);
      r.mutable_range()->set_revision(rev);
      ApiResponse at = call(leader_, r);
      if (before.range().kvs_size() == 2) {
        EXPECT_EQ(at.range().kvs_size(), 0) << "the two keys were deleted in different revisions";
        deletes_at = 1;
      }
    }
    EXPECT_EQ(deletes_at, 1);
  });
}

TEST_F(LeaseApiTest, LeasesSurviveALeaderCrashAndTheNewLeaderExpiresThem) {
  start();
  int64_t id = 0;
  session([&] {
    id = call(follower_, grant(4)).lease_grant().id();
    ASSERT_TRUE(call(follower_, put_with_lease("crash/k", "v", id)).has_put());
  });
  world_->cluster().crash(leader_);
  ASSERT_TRUE(world_->await_stable_leader());
  session([&] {
    // The new leader gave the lease a full TTL (plus an election timeout): still alive now.
    EXPECT_TRUE(exists(follower_, "crash/k"));
    world_->sim().sleep(seconds(8));
    EXPECT_FALSE(exists(follower_, "crash/k"));
  }, seconds(60));
}

// Lease expiry counts on the leader's monotonic clock, so a step of a wall clock (NTP, an operator)
// expires nothing; the lease-expiry-on-follower-clock bug counts on the wall clock, and a step
// forward on the leader (not on a follower: only the leader expires leases) revokes at once.
TEST_F(LeaseApiTest, AWallClockStepExpiresLeasesEarlyOnlyWithTheWallClockBug) {
  for (bool bug : {false, true}) {
    SCOPED_TRACE(bug ? "with the bug" : "correct");
    KvWorldOptions o;
    if (bug) o.server.bugs = Bugs::of(Bug::kLeaseExpiryOnFollowerClock);
    start(o);
    session([&] {
      const int64_t id = call(leader_, grant(30)).lease_grant().id();
      ASSERT_TRUE(call(leader_, put_with_lease("step/k", "v", id)).has_put());
    });
    auto step = [&](size_t member) {
      world_->sim().host(world_->cluster().host(member)).clock().jump_wall(seconds(60));
    };
    step(follower_);
    session([&] {
      world_->sim().sleep(seconds(2));
      EXPECT_TRUE(exists(other_, "step/k")) << "a follower's wall step expired a lease";
    }, seconds(60));
    step(leader_);
    session([&] {
      world_->sim().sleep(seconds(2));  // a few rounds of the leader's expiry loop (every 500 ms)
      EXPECT_EQ(exists(other_, "step/k"), !bug) << "30 s lease, 4 s after its grant";
    }, seconds(60));
  }
}

}  // namespace
}  // namespace dst::node
