// The member's client API end to end: a client process talks to a 3-member KV cluster over
// simulated streams, and gets etcd 3.4's answers and errors (../shared/reference/etcd-3.4.md).
#include "node/server/api_server.h"

#include <gtest/gtest.h>

#include "node/server/api_test_util.h"

namespace dst::node {
namespace {

using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;
using sim::seconds;
using testing::ApiTest;
using world::KvWorldOptions;

TEST_F(ApiTest, WritesThroughAFollowerAreForwardedAndReadsAreLinearizable) {
  start();
  session([&] {
    ApiResponse p = call(follower_, put("foo", "bar"));
    ASSERT_TRUE(p.has_put()) << p.DebugString();
    EXPECT_EQ(p.put().header().revision(), 2);
    EXPECT_EQ(p.put().header().member_id(), member_id(follower_));
    EXPECT_EQ(p.put().header().cluster_id(), world_->cluster().server(0)->options().cluster_id);
    EXPECT_GE(p.put().header().raft_term(), 2u);
    // A linearizable read on the third member sees the write, whatever it has applied so far.
    ApiResponse g = call(other_, get("foo"));
    ASSERT_TRUE(g.has_range()) << g.DebugString();
    ASSERT_EQ(g.range().kvs_size(), 1);
    EXPECT_EQ(g.range().kvs(0).value(), "bar");
    EXPECT_EQ(g.range().kvs(0).create_revision(), 2);
    EXPECT_EQ(g.range().header().revision(), 2);
    // A put with prev_kv, then a delete, then a past read.
    ApiRequest p2 = put("foo", "bar2");
    p2.mutable_put()->set_prev_kv(true);
    ApiResponse r2 = call(leader_, p2);
    EXPECT_EQ(r2.put().prev_kv().value(), "bar");
    ApiResponse d = call(other_, del("foo"));
    EXPECT_EQ(d.delete_range().deleted(), 1);
    EXPECT_EQ(d.delete_range().header().revision(), 4);
    ApiResponse old = call(follower_, get("foo", false, 2));
    ASSERT_EQ(old.range().kvs_size(), 1);
    EXPECT_EQ(old.range().kvs(0).value(), "bar");
    EXPECT_EQ(old.range().header().revision(), 4);  // etcd answers with the current revision
  });
}

TEST_F(ApiTest, CompactionErrorsCarryEtcdCodesAndStrings) {
  start();
  session([&] {
    for (int i = 0; i < 5; ++i) call(leader_, put("k", std::to_string(i)));  // revisions 2..6
    ApiResponse c = call(follower_, compact(4));
    ASSERT_TRUE(c.has_compaction()) << c.DebugString();
    EXPECT_EQ(c.compaction().header().revision(), 6);
    ApiResponse past = call(other_, get("k", false, 3));
    ASSERT_TRUE(past.has_error());
    EXPECT_EQ(past.error().code(), 11);
    EXPECT_EQ(past.error().message(), "etcdserver: mvcc: required revision has been compacted");
    ApiResponse future = call(other_, get("k", false, 1000));
    EXPECT_EQ(future.error().message(), "etcdserver: mvcc: required revision is a future revision");
    ApiResponse again = call(leader_, compact(3));
    EXPECT_EQ(again.error().code(), 11);
    EXPECT_EQ(again.error().message(), "etcdserver: mvcc: required revision has been compacted");
    ApiResponse empty_key = call(leader_, put("", "v"));
    EXPECT_EQ(empty_key.error().code(), 3);
    EXPECT_EQ(empty_key.error().message(), "etcdserver: key is not provided");
  });
}

TEST_F(ApiTest, RequestSizeLimitsGiveEtcdAndGrpcErrors) {
  KvWorldOptions o;
  o.server.api.max_request_bytes = 65536;  // as the reference's single-member instance
  start(o);
  session([&] {
    ApiResponse big = call(leader_, put("big", std::string(70000, 'x')));
    ASSERT_TRUE(big.has_error());
    EXPECT_EQ(big.error().code(), 3);
    EXPECT_EQ(big.error().message(), "etcdserver: request is too large");
    ApiResponse huge = call(leader_, put("big", std::string(700000, 'x')));
    ASSERT_TRUE(huge.has_error());
    EXPECT_EQ(huge.error().code(), 8);
    EXPECT_EQ(huge.error().message().rfind("grpc: received message larger than max (", 0), 0u)
        << huge.error().message();
    EXPECT_NE(huge.error().message().find(" vs. 589824)"), std::string::npos) << huge.error().message();
    // Nothing was written.
    ApiResponse g = call(leader_, get("big"));
    EXPECT_EQ(g.range().kvs_size(), 0);
  });
}

TEST_F(ApiTest, NoSpaceAlarmRefusesGrowthUntilFreedDefragmentedAndDisarmed) {
  KvWorldOptions o;
  o.server.api.quota_bytes = 1024 * 1024;
  start(o);
  session([&] {
    // Fill with 60 KB values until the quota refuses one (the reference needed 10 puts of 60 KB).
    int accepted = 0;
    ApiResponse refused;
    for (int i = 0; i < 40; ++i) {
      ApiResponse p = call(leader_, put("fill/" + std::to_string(100 + i), std::string(60000, 'v')));
      if (p.has_error()) {
        refused = p;
        break;
      }
      ++accepted;
    }
    ASSERT_TRUE(refused.has_error()) << "the quota never refused a put";
    EXPECT_GE(accepted, 5);
    EXPECT_EQ(refused.error().code(), 8);
    EXPECT_EQ(refused.error().message(), "etcdserver: mvcc: database space exceeded");
    // The alarm is cluster-wide: every member lists it, naming the member that raised it.
    for (size_t i = 0; i < 3; ++i) {
      ApiResponse l = call(i, alarm(etcdserverpb::AlarmRequest::GET));
      ASSERT_EQ(l.alarm().alarms_size(), 1) << "member " << i;
      EXPECT_EQ(l.alarm().alarms(0).memberid(), member_id(leader_));
      EXPECT_EQ(l.alarm().alarms(0).alarm(), etcdserverpb::NOSPACE);
      ApiRequest st;
      st.mutable_status();
      ApiResponse s = call(i, st);
      ASSERT_EQ(s.status().errors_size(), 1);
      EXPECT_EQ(s.status().errors(0), "memberID:" + std::to_string(member_id(leader_)) + " alarm:NOSPACE ");
    }
    // A small put elsewhere is refused by the alarm at apply, even though that member's quota
    // check passes.
    ApiResponse tiny = call(follower_, put("tiny", "1"));
    EXPECT_EQ(tiny.error().message(), "etcdserver: mvcc: database space exceeded");
    // A txn without puts and a delete still work.
    ApiRequest txn;
    auto* cmp = txn.mutable_txn()->add_compare();
    cmp->set_key("tiny");
    cmp->set_target(etcdserverpb::Compare::CREATE);
    cmp->set_create_revision(0);
    txn.mutable_txn()->add_success()->mutable_request_range()->set_key("fill/100");
    ApiResponse t = call(follower_, txn);
    ASSERT_TRUE(t.has_txn()) << t.DebugString();
    EXPECT_TRUE(t.txn().succeeded());
    ApiResponse d = call(follower_, del("fill/", "fill0"));
    ASSERT_TRUE(d.has_delete_range()) << d.DebugString();
    EXPECT_EQ(d.delete_range().deleted(), accepted);
    // Disarming alone is not enough: the deleted rows left free pages, the file did not shrink,
    // so the same put is refused again and raises the alarm again.
    ApiResponse dis = call(leader_, alarm(etcdserverpb::AlarmRequest::DEACTIVATE, member_id(leader_), etcdserverpb::NOSPACE));
    ASSERT_EQ(dis.alarm().alarms_size(), 1) << dis.DebugString();
    ApiResponse still = call(leader_, put("fill/again", std::string(60000, 'v')));
    EXPECT_EQ(still.error().message(), "etcdserver: mvcc: database space exceeded");
    ApiResponse relisted = call(other_, alarm(etcdserverpb::AlarmRequest::GET));
    EXPECT_EQ(relisted.alarm().alarms_size(), 1);
    // Recovery: compact physically, defragment every member, disarm; then writes work again.
    ApiResponse g = call(leader_, get("tiny"));
    ApiResponse c = call(leader_, compact(g.range().header().revision(), true));
    ASSERT_TRUE(c.has_compaction()) << c.DebugString();
    for (size_t i = 0; i < 3; ++i) {
      ApiRequest defrag;
      defrag.mutable_defragment();
      ApiResponse r = call(i, defrag);
      ASSERT_TRUE(r.has_defragment()) << r.DebugString();
    }
    call(leader_, alarm(etcdserverpb::AlarmRequest::DEACTIVATE, member_id(leader_), etcdserverpb::NOSPACE));
    ApiResponse ok = call(leader_, put("tiny", "1"));
    ASSERT_TRUE(ok.has_put()) << ok.DebugString();
    ApiResponse none = call(other_, alarm(etcdserverpb::AlarmRequest::GET));
    EXPECT_EQ(none.alarm().alarms_size(), 0);
  });
}

TEST_F(ApiTest, ConcurrentLinearizableReadsShareOneReadIndexRound) {
  // etcd's linearizableReadLoop: the reads that arrive while no round is asking share the next
  // ReadIndex, so ten reads at once on a follower cost one or two heartbeat rounds, not ten. Each
  // still sees the write acknowledged before it was sent.
  start();
  constexpr int kReads = 10;
  // On the heap: a reader still running when the session gave up must not touch its frame.
  struct Tally {
    int answered = 0, finished = 0;
  };
  auto tally = std::make_shared<Tally>();
  uint64_t rounds = 0;
  session([&] {
    ASSERT_TRUE(call(leader_, put("k", "v")).has_put());
    call(follower_, get("k", true));  // opens the connection the readers share
    sim::Simulator& sim = world_->sim();
    const uint64_t asked_before = world_->cluster().server(follower_)->counters().reads_requested;
    auto done = std::make_shared<sim::WaitQueue>(sim);
    for (int i = 0; i < kReads; ++i) {
      sim.spawn(sim.current_process(), "reader", [this, tally, done] {
        ApiResponse g = call(follower_, get("k"));
        if (g.has_range() && g.range().kvs_size() == 1 && g.range().kvs(0).value() == "v") ++tally->answered;
        ++tally->finished;
        done->notify_all();
      });
    }
    while (tally->finished < kReads && done->wait(seconds(30)) == sim::WaitResult::kOk) {
    }
    rounds = world_->cluster().server(follower_)->counters().reads_requested - asked_before;
  });
  EXPECT_EQ(tally->answered, kReads);
  EXPECT_GE(rounds, 1u);
  EXPECT_LE(rounds, 2u) << "every read asked for its own ReadIndex";
}

TEST_F(ApiTest, MinorityMemberTimesOutLinearizableReadsAndWritesButServesSerializable) {
  start();
  session([&] { call(leader_, put("k", "v1")); });
  ASSERT_TRUE(world_->await_stable_leader());  // every member applied v1
  // Cut one follower off from both others.
  sim::Simulator& sim = world_->sim();
  sim::HostId f = world_->cluster().host(follower_);
  for (size_t i = 0; i < 3; ++i) {
    if (i == follower_) continue;
    sim.net().set_reachable(f, world_->cluster().host(i), false);
    sim.net().set_reachable(world_->cluster().host(i), f, false);
  }
  session([&] {
    const sim::TimeNs start = world_->sim().now();
    ApiResponse g = call(follower_, get("k"), seconds(30));
    ASSERT_TRUE(g.has_error()) << g.DebugString();
    EXPECT_EQ(g.error().code(), 14);
    EXPECT_EQ(g.error().message(), "etcdserver: request timed out");
    EXPECT_GE(world_->sim().now() - start, seconds(7));
    ApiResponse s = call(follower_, get("k", true));
    ASSERT_EQ(s.range().kvs_size(), 1);  // stale reads are allowed when asked for
    EXPECT_EQ(s.range().kvs(0).value(), "v1");
    ApiResponse p = call(follower_, put("k", "v2"), seconds(30));
    ASSERT_TRUE(p.has_error());
    EXPECT_EQ(p.error().code(), 14);
    // The majority keeps serving meanwhile.
    ApiResponse m = call(leader_, put("k", "v3"));
    EXPECT_TRUE(m.has_put()) << m.DebugString();
  });
}

TEST_F(ApiTest, StatusMemberListAndHashKvAgreeAcrossMembers) {
  start();
  session([&] {
    for (int i = 0; i < 20; ++i) call(i % 3, put("key/" + std::to_string(i % 7), std::to_string(i)));
    call(leader_, del("key/3"));
    std::optional<uint32_t> hash;
    for (size_t i = 0; i < 3; ++i) {
      call(i, get("key/0"));  // linearizable: member i has applied everything
      ApiRequest h;
      h.mutable_hash_kv()->set_revision(22);
      ApiResponse r = call(i, h);
      ASSERT_TRUE(r.has_hash_kv()) << r.DebugString();
      if (hash) { EXPECT_EQ(r.hash_kv().hash(), *hash) << "member " << i; }
      hash = r.hash_kv().hash();
      ApiRequest st;
      st.mutable_status();
      ApiResponse s = call(i, st);
      EXPECT_EQ(s.status().version(), "3.4.23");
      EXPECT_EQ(s.status().leader(), member_id(leader_));
      EXPECT_EQ(s.status().header().revision(), 22);
      EXPECT_GT(s.status().dbsize(), 0);
      EXPECT_GE(s.status().raftappliedindex(), 22u);
      ApiRequest ml;
      ml.mutable_member_list();
      ApiResponse m = call(i, ml);
      EXPECT_EQ(m.member_list().members_size(), 3);
    }
  });
}

}  // namespace
}  // namespace dst::node
