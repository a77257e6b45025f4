// The Watch service end to end: watch calls over simulated connections to a 3-member cluster,
// with etcd 3.4's creation acks, per-revision responses, compaction cancels, progress, slow
// clients and resumption on another member after a crash.
#include <gtest/gtest.h>

#include "node/server/api_test_util.h"

namespace dst::node {
namespace {

using etcdserverpb::WatchRequest;
using etcdserverpb::WatchResponse;
using sim::milliseconds;
using sim::seconds;
using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;
using testing::ApiTest;
using world::KvWorldOptions;

WatchRequest create(const std::string& key, const std::string& end = "", int64_t start = 0, bool prev_kv = false) {
  WatchRequest w;
  auto* c = w.mutable_create_request();
  c->set_key(key);
  c->set_range_end(end);
  c->set_start_revision(start);
  c->set_prev_kv(prev_kv);
  return w;
}

// Every event of the responses as "PUT k=v@rev" / "DELETE k@rev".
std::vector<std::string> events_of(const std::vector<WatchResponse>& rs) {
  std::vector<std::string> out;
  for (const auto& r : rs)
    for (const auto& e : r.events())
      out.push_back(e.type() == mvccpb::Event::DELETE
                        ? "DELETE " + e.kv().key() + "@" + std::to_string(e.kv().mod_revision())
                        : "PUT " + e.kv().key() + "=" + e.kv().value() + "@" + std::to_string(e.kv().mod_revision()));
  return out;
}

class WatchApiTest : public ApiTest {
 protected:
  // Receives until `n` events arrived (or a cancel, or the timeout).
  std::vector<WatchResponse> recv_events(rpc::Connection& c, uint64_t call, size_t n,
                                         sim::DurationNs timeout = seconds(10)) {
    std::vector<WatchResponse> got;
    size_t events = 0;
    while (events < n) {
      auto r = c.recv_watch(call, timeout);
      if (!r.is_ok()) break;
      events += r->events_size();
      got.push_back(std::move(r).value());
      if (got.back().canceled()) break;
    }
    return got;
  }
};

TEST_F(WatchApiTest, LiveWatchOnAFollowerGetsOneResponsePerRevisionWithPrevKv) {
  start();
  session([&] {
    rpc::Connection* c = world_->connection(follower_);
    ASSERT_NE(c, nullptr);
    const uint64_t call_id = c->open_watch();
    ASSERT_TRUE(c->send_watch(call_id, create("w/", "w0", 0, true)).is_ok());
    auto ack = c->recv_watch(call_id, seconds(5));
    ASSERT_TRUE(ack.is_ok()) << ack.status().to_string();
    EXPECT_TRUE(ack->created());
    EXPECT_EQ(ack->watch_id(), 0);
    EXPECT_EQ(ack->header().revision(), 1);
    EXPECT_EQ(ack->header().member_id(), member_id(follower_));
    call(leader_, put("w/1", "a"));
    call(other_, put("w/1", "b"));
    call(leader_, put("x", "not watched"));
    call(leader_, del("w/1"));
    std::vector<WatchResponse> rs = recv_events(*c, call_id, 3);
    ASSERT_EQ(rs.size(), 3u);  // one response per revision, as the reference's live watch shows
    EXPECT_EQ(events_of(rs), (std::vector<std::string>{"PUT w/1=a@2", "PUT w/1=b@3", "DELETE w/1@5"}));
    EXPECT_FALSE(rs[0].events(0).has_prev_kv());
    EXPECT_EQ(rs[1].events(0).prev_kv().value(), "a");
    EXPECT_EQ(rs[2].events(0).prev_kv().value(), "b");
    EXPECT_EQ(rs[2].header().revision(), 5);
  });
}

TEST_F(WatchApiTest, CompactedStartIsCanceledWithTheCompactRevisionAndProgressAnswersWithTheRevision) {
  start();
  session([&] {
    for (int i = 0; i < 6; ++i) call(leader_, put("k", std::to_string(i)));  // revisions 2..7
    call(leader_, compact(5));
    // A linearizable read first: the member has applied the compaction (a lagging member would
    // still replay the old history, as a lagging etcd member does).
    call(other_, get("k"));
    rpc::Connection* c = world_->connection(other_);
    const uint64_t call_id = c->open_watch();
    ASSERT_TRUE(c->send_watch(call_id, create("k", "", 2)).is_ok());
    auto ack = c->recv_watch(call_id, seconds(5));
    ASSERT_TRUE(ack.is_ok());
    EXPECT_TRUE(ack->created());
    auto cancel = c->recv_watch(call_id, seconds(5));
    ASSERT_TRUE(cancel.is_ok());
    EXPECT_TRUE(cancel->canceled());
    EXPECT_EQ(cancel->compact_revision(), 5);
    EXPECT_EQ(cancel->header().revision(), 0);  // etcd sends no revision with this cancel
    // From the compaction revision itself the history is still there.
    ASSERT_TRUE(c->send_watch(call_id, create("k", "", 5)).is_ok());
    std::vector<WatchResponse> rs = recv_events(*c, call_id, 3);
    EXPECT_EQ(events_of(rs), (std::vector<std::string>{"PUT k=3@5", "PUT k=4@6", "PUT k=5@7"}));
    WatchRequest progress;
    progress.mutable_progress_request();
    ASSERT_TRUE(c->send_watch(call_id, progress).is_ok());
    auto p = c->recv_watch(call_id, seconds(5));
    ASSERT_TRUE(p.is_ok());
    EXPECT_EQ(p->watch_id(), -1);
    EXPECT_EQ(p->header().revision(), 7);
    EXPECT_EQ(p->events_size(), 0);
  });
}

// The watch-duplicate-event bug (base/bugs.h) sits between the member's store and its clients: a
// txn's last event comes again at the front of the watch's next response; the correct member
// (the test above) sends each event once.
TEST_F(WatchApiTest, WithTheDuplicateEventBugATxnsLastEventComesTwice) {
  KvWorldOptions o;
  o.server.bugs = Bugs::of(Bug::kWatchDuplicateEvent);
  start(o);
  session([&] {
    rpc::Connection* c = world_->connection(leader_);
    const uint64_t call_id = c->open_watch();
    ASSERT_TRUE(c->send_watch(call_id, create("d/", "d0")).is_ok());
    ASSERT_TRUE(c->recv_watch(call_id, seconds(5)).is_ok());  // created
    ApiRequest txn;
    *txn.mutable_txn()->add_success()->mutable_request_put() = put("d/a", "1").put();
    *txn.mutable_txn()->add_success()->mutable_request_put() = put("d/b", "1").put();
    call(leader_, txn);
    call(leader_, put("d/c", "1"));
    std::vector<WatchResponse> rs = recv_events(*c, call_id, 4);
    EXPECT_EQ(events_of(rs), (std::vector<std::string>{"PUT d/a=1@2", "PUT d/b=1@2", "PUT d/b=1@2", "PUT d/c=1@3"}));
  });
}

TEST_F(WatchApiTest, ProgressNotifyArrivesAtTheConfiguredInterval) {
  KvWorldOptions o;
  o.server.api.progress_notify_interval = seconds(1);
  start(o);
  session([&] {
    rpc::Connection* c = world_->connection(leader_);
    const uint64_t call_id = c->open_watch();
    WatchRequest w = create("p");
    w.mutable_create_request()->set_progress_notify(true);
    ASSERT_TRUE(c->send_watch(call_id, w).is_ok());
    ASSERT_TRUE(c->recv_watch(call_id, seconds(5)).is_ok());  // created
    call(leader_, put("q", "elsewhere"));
    auto n = c->recv_watch(call_id, seconds(3));
    ASSERT_TRUE(n.is_ok()) << n.status().to_string();
    EXPECT_EQ(n->events_size(), 0);
    EXPECT_EQ(n->watch_id(), 0);
    EXPECT_FALSE(n->created());
    EXPECT_GE(n->header().revision(), 1);
  });
}

TEST_F(WatchApiTest, ASlowClientFallsBehindAndStillGetsEveryEventOnceInOrder) {
  start();
  constexpr int kWrites = 3000;
  session([&] {
    rpc::Connection* c = world_->connection(follower_);
    const uint64_t call_id = c->open_watch();
    ASSERT_TRUE(c->send_watch(call_id, create("s/", "s0")).is_ok());
    ASSERT_TRUE(c->recv_watch(call_id, seconds(5)).is_ok());
    // Write without reading: the client's buffer and the member's queue fill up.
    for (int i = 0; i < kWrites; ++i) {
      ApiResponse p = call(leader_, put("s/" + std::to_string(i % 10), std::to_string(i)));
      ASSERT_TRUE(p.has_put());
    }
    std::vector<WatchResponse> rs = recv_events(*c, call_id, kWrites, seconds(30));
    std::vector<std::string> got = events_of(rs);
    ASSERT_EQ(got.size(), static_cast<size_t>(kWrites));
    for (int i = 0; i < kWrites; ++i)
      EXPECT_EQ(got[i], "PUT s/" + std::to_string(i % 10) + "=" + std::to_string(i) + "@" + std::to_string(i + 2));
  });
  const auto& counters = world_->cluster().server(follower_)->kv()->watches().counters();
  EXPECT_GT(counters.overflows, 0u) << "the member's queue never filled: the test did not test falling behind";
}

TEST_F(WatchApiTest, AWatchResumedOnAnotherMemberAfterACrashMissesNothing) {
  start();
  std::vector<std::string> seen;
  session([&] {
    rpc::Connection* c = world_->connection(follower_);
    const uint64_t call_id = c->open_watch();
    ASSERT_TRUE(c->send_watch(call_id, create("r/", "r0", 1)).is_ok());
    for (int i = 0; i < 5; ++i) call(leader_, put("r/a", std::to_string(i)));  // revisions 2..6
    for (const auto& e : events_of(recv_events(*c, call_id, 5))) seen.push_back(e);
  });
  world_->cluster().crash(follower_);
  int64_t last = 6;
  session([&] {
    for (int i = 5; i < 10; ++i) call(leader_, put("r/a", std::to_string(i)));  // revisions 7..11
    rpc::Connection* c = world_->connection(other_);
    const uint64_t call_id = c->open_watch();
    ASSERT_TRUE(c->send_watch(call_id, create("r/", "r0", last + 1)).is_ok());
    for (const auto& e : events_of(recv_events(*c, call_id, 5))) seen.push_back(e);
  });
  ASSERT_EQ(seen.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(seen[i], "PUT r/a=" + std::to_string(i) + "@" + std::to_string(i + 2));
}

}  // namespace
}  // namespace dst::node
