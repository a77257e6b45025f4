// etcd's MemberAdd / MemberRemove against a 3-member KV cluster: a new member joins empty and
// catches up from a snapshot, removed members stop for good, and the strict reconfiguration
// checks and apply-time validation answer with etcd's errors.
#include "node/server/api_test_util.h"
#include "node/server/membership.h"

#include <algorithm>

namespace dst::node {
namespace {

using testing::ApiTest;
using world::AgreementReport;
using world::KvWorldOptions;
using world::LivenessReport;
using world::SimCluster;
using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;
using sim::seconds;

ApiRequest member_add(const std::string& url, bool learner = false) {
  ApiRequest r;
  r.mutable_member_add()->add_peerurls(url);
  r.mutable_member_add()->set_islearner(learner);
  return r;
}

ApiRequest member_remove(uint64_t id) {
  ApiRequest r;
  r.mutable_member_remove()->set_id(id);
  return r;
}

std::vector<uint64_t> ids(const google::protobuf::RepeatedPtrField<etcdserverpb::Member>& ms) {
  std::vector<uint64_t> out;
  for (const auto& m : ms) out.push_back(m.id());
  std::sort(out.begin(), out.end());
  return out;
}

class MemberApiTest : public ApiTest {
 protected:
  // Started, then past etcd's 5 s health interval: right after a start every change is refused
  // with "unhealthy cluster" (peers connected for less than the interval), as in etcd.
  void start_settled(KvWorldOptions o = {}) {
    start(std::move(o));
    world_->advance(seconds(6));
    leader_ = *world_->cluster().leader();
    follower_ = (leader_ + 1) % 3;
    other_ = (leader_ + 2) % 3;
  }
  bool exited_removed(uint64_t id) {
    for (const std::string& e : world_->cluster().exits())
      if (e.find("n" + std::to_string(id) + " exits: " + kErrRemovedFromCluster) != std::string::npos) return true;
    return false;
  }
};

TEST_F(MemberApiTest, AddedMemberJoinsFromASnapshotAndServes) {
  KvWorldOptions o;
  o.server.snapshot_every = 50;  // the new member must catch up from a snapshot, not the log
  start_settled(o);
  SimCluster& c = world_->cluster();
  session([&] {
    for (int i = 0; i < 120; ++i) call(leader_, put("k" + std::to_string(i % 10), std::to_string(i)));
    Result<size_t> added = c.add_node();
    ASSERT_TRUE(added.is_ok());
    ASSERT_EQ(*added, 3u);
    // Sent to a follower: it forwards the conf change to the leader, like any proposal.
    ApiResponse r = call(follower_, member_add("http://n4:2380"));
    ASSERT_TRUE(r.has_member_add()) << r.DebugString();
    EXPECT_EQ(r.member_add().member().id(), 4u);
    EXPECT_EQ(r.member_add().member().name(), "");  // not started yet
    EXPECT_EQ(ids(r.member_add().members()), (std::vector<uint64_t>{1, 2, 3, 4}));
    // The same URL again, and a URL that names no host.
    ApiResponse again = call(leader_, member_add("http://n4:2380"));
    EXPECT_EQ(again.error().message(), kErrPeerUrlExists);
    ApiResponse bad = call(leader_, member_add("https://elsewhere:2380"));
    EXPECT_EQ(bad.error().message(), kErrMemberBadUrls);
  });
  c.start(3);
  world_->advance(seconds(3));
  session([&] {
    // A quorum of 4 is 3: the cluster kept serving while n4 was still empty.
    ApiResponse p = call(leader_, put("after", "add"));
    EXPECT_TRUE(p.has_put()) << p.DebugString();
    // Linearizable read on the new member: it has caught up.
    ApiResponse g = call(3, get("k9"));
    ASSERT_TRUE(g.has_range()) << g.DebugString();
    ASSERT_EQ(g.range().kvs_size(), 1);
    EXPECT_EQ(g.range().kvs(0).value(), "119");
    ApiRequest ml;
    ml.mutable_member_list();
    EXPECT_EQ(ids(call(3, ml).member_list().members()), (std::vector<uint64_t>{1, 2, 3, 4}));
  });
  EXPECT_GT(c.counters(3).snapshots_installed, 0u);
  AgreementReport a = c.await_agreement(seconds(10));
  EXPECT_TRUE(a.ok) << a.detail;
  EXPECT_TRUE(c.invariants().ok());
}

// etcd's MemberUpdate: new peer URLs through Raft, refused for an unknown member or URLs another
// member has. The URLs outlive log compaction (kept in snapshots): a member that joins from a
// snapshot, and one restarted from its own, list them too.
TEST_F(MemberApiTest, UpdatedPeerUrlsSurviveSnapshotsAndRestarts) {
  KvWorldOptions o;
  o.server.snapshot_every = 50;
  start_settled(o);
  SimCluster& c = world_->cluster();
  const uint64_t target = static_cast<uint64_t>(other_) + 1;  // node i is n<i+1>
  const std::vector<std::string> updated{"http://10.0.0.9:2380", "http://n" + std::to_string(target) + ":2390"};
  auto urls_of = [&](size_t node, uint64_t id) {
    ApiRequest ml;
    ml.mutable_member_list();
    const ApiResponse r = call(node, ml);
    for (const auto& m : r.member_list().members())
      if (m.id() == id) return std::vector<std::string>(m.peerurls().begin(), m.peerurls().end());
    return std::vector<std::string>{};
  };
  session([&] {
    ApiRequest u;
    u.mutable_member_update()->set_id(target);
    for (const std::string& url : updated) u.mutable_member_update()->add_peerurls(url);
    ApiResponse r = call(follower_, u);
    ASSERT_TRUE(r.has_member_update()) << r.DebugString();
    EXPECT_EQ(ids(r.member_update().members()), (std::vector<uint64_t>{1, 2, 3}));
    u.mutable_member_update()->set_id(static_cast<uint64_t>(leader_) + 1);  // another member's URLs
    EXPECT_EQ(call(leader_, u).error().message(), kErrPeerUrlExists);
    u.mutable_member_update()->set_id(42);
    EXPECT_EQ(call(leader_, u).error().message(), kErrMemberNotFound);
    for (int i = 0; i < 120; ++i) call(leader_, put("k" + std::to_string(i % 10), std::to_string(i)));
    ASSERT_TRUE(c.add_node().is_ok());
    ApiResponse add = call(leader_, member_add("http://n4:2380"));
    ASSERT_TRUE(add.has_member_add()) << add.DebugString();
  });
  c.start(3);
  world_->advance(seconds(3));
  EXPECT_GT(c.counters(3).snapshots_installed, 0u);
  c.crash(follower_);
  c.start(follower_);
  world_->advance(seconds(3));
  session([&] {
    for (size_t node : {size_t{3}, static_cast<size_t>(follower_), static_cast<size_t>(leader_)})
      EXPECT_EQ(urls_of(node, target), updated) << "member list on node " << node;
  });
  EXPECT_TRUE(c.invariants().ok());
}

TEST_F(MemberApiTest, RemovedFollowerStopsForGoodAndTheRestServe) {
  start_settled();
  SimCluster& c = world_->cluster();
  const uint64_t gone = member_id(follower_);
  session([&] {
    call(leader_, put("a", "1"));
    ApiResponse r = call(leader_, member_remove(gone));
    ASSERT_TRUE(r.has_member_remove()) << r.DebugString();
    EXPECT_EQ(r.member_remove().members_size(), 2);
    ApiResponse again = call(leader_, member_remove(gone));
    EXPECT_EQ(again.error().message(), kErrMemberNotFound);
    EXPECT_EQ(call(leader_, member_remove(99)).error().message(), kErrMemberNotFound);
    EXPECT_TRUE(call(other_, put("b", "2")).has_put());
  });
  world_->advance(seconds(3));
  EXPECT_FALSE(c.up(follower_));
  EXPECT_TRUE(c.removed(follower_));
  EXPECT_TRUE(exited_removed(gone));
  c.heal_all();  // does not bring a removed member back
  EXPECT_FALSE(c.up(follower_));
  LivenessReport l = c.await_recovery(seconds(10));
  EXPECT_TRUE(l.ok) << l.detail;
  EXPECT_TRUE(c.await_agreement(seconds(10)).ok);
}

TEST_F(MemberApiTest, RemovingTheLeaderElectsAnother) {
  start_settled();
  SimCluster& c = world_->cluster();
  const uint64_t old_leader = member_id(leader_);
  session([&] {
    ApiResponse r = call(follower_, member_remove(old_leader));
    ASSERT_TRUE(r.has_member_remove()) << r.DebugString();
    // The two left elect a leader among themselves and serve writes (a write sent while there
    // is none times out, as in etcd: the client tries again).
    ApiResponse p;
    for (int attempt = 0; attempt < 3 && !p.has_put(); ++attempt) p = call(follower_, put("x", "after-leader-removal"));
    EXPECT_TRUE(p.has_put()) << p.DebugString();
  });
  world_->advance(seconds(3));
  EXPECT_FALSE(c.up(leader_));
  EXPECT_TRUE(exited_removed(old_leader));
  ASSERT_TRUE(c.leader().has_value());
  EXPECT_NE(c.server(*c.leader())->id(), old_leader);
  EXPECT_TRUE(c.invariants().ok());
}

TEST_F(MemberApiTest, StrictReconfigurationChecks) {
  start_settled();
  SimCluster& c = world_->cluster();
  session([&] {
    // Every voter connected: a change is accepted.
    ASSERT_TRUE(c.add_node().is_ok());
    ApiResponse early = call(leader_, member_add("http://n4:2380", /*learner=*/true));
    EXPECT_TRUE(early.has_member_add()) << early.DebugString();
    ApiResponse rm_learner = call(leader_, member_remove(4));
    EXPECT_TRUE(rm_learner.has_member_remove()) << rm_learner.DebugString();
    // An ID is never used again once removed.
    ApiResponse reused = call(leader_, member_add("http://n4:2380", /*learner=*/true));
    EXPECT_EQ(reused.error().message(), kErrMemberNotFound) << reused.DebugString();
  });
  c.crash(other_);
  world_->advance(seconds(6));  // past the 5 s health interval: the crashed member is disconnected
  session([&] {
    ASSERT_TRUE(c.add_node().is_ok());  // n5 (n4 was added and removed)
    // A member is down: adding a voter is refused before anything is proposed.
    ApiResponse add = call(leader_, member_add("http://n5:2380"));
    EXPECT_EQ(add.error().message(), kErrUnhealthy) << add.DebugString();
    // Removing the live follower would leave one connected member of two: not a quorum.
    ApiResponse rm = call(leader_, member_remove(member_id(follower_)));
    EXPECT_EQ(rm.error().message(), kErrUnhealthy) << rm.DebugString();
    // Removing the member that is down is safe (it is no part of the active quorum).
    ApiResponse down = call(leader_, member_remove(other_ + 1));  // node i is n<i+1>
    EXPECT_TRUE(down.has_member_remove()) << down.DebugString();
  });
  // The heal restarts the crashed node, which missed its removal: the members tell it, and it
  // stops for good.
  c.heal_all();
  LivenessReport l = c.await_recovery(seconds(10));
  EXPECT_TRUE(l.ok) << l.detail;
  world_->advance(seconds(5));
  EXPECT_TRUE(c.removed(other_));
  EXPECT_FALSE(c.up(other_));
  EXPECT_TRUE(exited_removed(other_ + 1));
  EXPECT_TRUE(c.await_agreement(seconds(10)).ok);
  EXPECT_TRUE(c.invariants().ok());
}

}  // namespace
}  // namespace dst::node
