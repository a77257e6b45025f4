// Many watches on one stream against scripted members: each create carries its own watch id, each
// response goes to the watch it names and is recorded there, a progress answer for the whole
// stream (watch id -1) goes to every watch, a broken stream resumes every watch on the next member
// from its own next revision, and a compaction cancel starts a new logical watch from the compact
// revision on the same stream under a new id.
#include "client/watch_fanout.h"

#include <gtest/gtest.h>

#include "client/fake_member_test_util.h"

namespace dst::client {
namespace {

using testing::FakeMembers;
using testing::Reply;
using testing::run_client;

etcdserverpb::WatchResponse created(int64_t id, int64_t header_rev) {
  etcdserverpb::WatchResponse w;
  w.set_watch_id(id);
  w.set_created(true);
  w.mutable_header()->set_revision(header_rev);
  return w;
}

etcdserverpb::WatchResponse event(int64_t id, const std::string& key, int64_t rev) {
  etcdserverpb::WatchResponse w;
  w.set_watch_id(id);
  w.mutable_header()->set_revision(rev);
  mvccpb::Event* e = w.add_events();
  e->mutable_kv()->set_key(key);
  e->mutable_kv()->set_mod_revision(rev);
  return w;
}

etcdserverpb::WatchResponse progress(int64_t id, int64_t rev) {
  etcdserverpb::WatchResponse w;
  w.set_watch_id(id);
  w.mutable_header()->set_revision(rev);
  return w;
}

bool is_fanout_create(const etcdserverpb::ApiRequest& r) { return r.has_watch() && r.watch().has_create_request(); }

struct FanoutFixture {
  sim::Simulator sim{11};
  FakeMembers members{sim, 2};
  history::MemoryRecorder recorder;
  WatchFanoutStats stats;

  // Watches keys k1..kN (all from "now" unless `starts` says otherwise) on one stream.
  void watch(size_t n, std::vector<int64_t> starts = {}, sim::DurationNs progress_every = 0) {
    WatchFanoutOptions o;
    o.id = 7;
    o.members = members.addresses();
    for (size_t i = 0; i < n; ++i) {
      etcdserverpb::WatchCreateRequest c;
      c.set_key("k" + std::to_string(i + 1));
      if (i < starts.size()) c.set_start_revision(starts[i]);
      o.watches.push_back(c);
    }
    o.progress_every = progress_every;
    run_client(sim, [&] { stats = run_watch_fanout(sim, o, recorder, sim.now() + sim::seconds(5)); });
  }
  const std::vector<history::Watch>& watches() { return recorder.history().watches; }
  // (watch id, start revision) of every create member i received.
  std::vector<std::pair<int64_t, int64_t>> creates(size_t i) {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (const auto& r : members.received(i))
      if (is_fanout_create(r)) out.emplace_back(r.watch().create_request().watch_id(), r.watch().create_request().start_revision());
    return out;
  }
};

TEST(WatchFanout, EachResponseIsRecordedOnTheWatchItNames) {
  FanoutFixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    if (!is_fanout_create(r)) return Reply::silence();
    const int64_t id = r.watch().create_request().watch_id();
    std::vector<etcdserverpb::WatchResponse> out = {created(id, 10)};
    if (id == 2) out.push_back(event(2, "k2", 11));
    return Reply::watch(out, false);
  });
  f.watch(3);
  ASSERT_EQ(f.watches().size(), 3u);
  EXPECT_EQ(f.creates(0), (std::vector<std::pair<int64_t, int64_t>>{{1, 0}, {2, 0}, {3, 0}}));
  for (size_t w = 0; w < 3; ++w) {
    const history::Watch& watch = f.watches()[w];
    EXPECT_EQ(watch.client, 7u);
    ASSERT_EQ(watch.segments.size(), 1u);
    EXPECT_EQ(watch.segments[0].request.key(), "k" + std::to_string(w + 1));
    ASSERT_EQ(watch.segments[0].responses.size(), w == 1 ? 2u : 1u);
    EXPECT_EQ(watch.segments[0].responses[0].response.watch_id(), static_cast<int64_t>(w + 1));
  }
  EXPECT_EQ(f.stats.events, 1u);
  EXPECT_EQ(f.stats.segments, 3u);
}

TEST(WatchFanout, AProgressForTheStreamGoesToEveryWatchAndMovesItsResumePoint) {
  FanoutFixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    if (is_fanout_create(r)) return Reply::watch({created(r.watch().create_request().watch_id(), 4)}, false);
    if (r.has_watch() && r.watch().has_progress_request()) return Reply::watch({progress(-1, 20)}, /*then_close=*/true);
    return Reply::silence();
  });
  f.members.start(1, [](size_t, const etcdserverpb::ApiRequest&) { return Reply::silence(); });
  f.watch(2, {}, sim::seconds(1));
  ASSERT_EQ(f.watches().size(), 2u);
  for (const history::Watch& w : f.watches()) {
    ASSERT_EQ(w.segments.size(), 2u);
    ASSERT_EQ(w.segments[0].responses.size(), 2u);
    EXPECT_EQ(w.segments[0].responses[1].response.watch_id(), -1);
    EXPECT_TRUE(w.segments[0].broken);
  }
  // Both resumed after the progress's revision, each under a fresh id of the new stream.
  EXPECT_EQ(f.creates(1), (std::vector<std::pair<int64_t, int64_t>>{{1, 21}, {2, 21}}));
}

TEST(WatchFanout, ABrokenStreamResumesEveryWatchFromItsOwnNextRevision) {
  FanoutFixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    if (!is_fanout_create(r)) return Reply::silence();
    const int64_t id = r.watch().create_request().watch_id();
    if (id == 1) return Reply::watch({created(1, 5), event(1, "k1", 6), event(1, "k1", 8)}, false);
    if (id == 2) return Reply::watch({created(2, 5)}, false);
    return Reply::watch({created(3, 5), event(3, "k3", 7)}, /*then_close=*/true);
  });
  f.members.start(1, [](size_t, const etcdserverpb::ApiRequest&) { return Reply::silence(); });
  f.watch(3, {3, 0, 0});
  // Watch 1 from after its last event; watch 2 from after its creation ack ("now" = 5); watch 3
  // from after its event.
  EXPECT_EQ(f.creates(1), (std::vector<std::pair<int64_t, int64_t>>{{1, 9}, {2, 6}, {3, 8}}));
  EXPECT_EQ(f.stats.streams, 2u);
  EXPECT_EQ(f.stats.segments, 6u);
}

TEST(WatchFanout, ACompactionCancelWatchesAgainFromTheCompactRevisionUnderANewId) {
  FanoutFixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    if (!is_fanout_create(r)) return Reply::silence();
    const int64_t id = r.watch().create_request().watch_id();
    if (id != 1) return Reply::watch({created(id, 30), event(1, "k1", 31)}, false);  // the old id: stray
    etcdserverpb::WatchResponse cancel = created(1, 0);
    cancel.set_canceled(true);
    cancel.set_compact_revision(12);
    return Reply::watch({cancel}, false);
  });
  f.watch(2, {3, 0});
  // Watch k1 (canceled), watch k2, then k1 again as a new logical watch.
  ASSERT_EQ(f.watches().size(), 3u);
  EXPECT_EQ(f.creates(0), (std::vector<std::pair<int64_t, int64_t>>{{1, 3}, {2, 0}, {3, 12}}));
  EXPECT_EQ(f.watches()[2].segments.at(0).request.key(), "k1");
  EXPECT_EQ(f.watches()[0].segments.at(0).responses.size(), 1u);
  EXPECT_EQ(f.stats.canceled, 1u);
  EXPECT_EQ(f.stats.watches, 3u);
  EXPECT_EQ(f.stats.stray_responses, 2u);  // the two events named the canceled id 1
}

// A create refused for another reason than compaction (a member's limit on watchers: canceled
// without a compact revision) is not asked of the same stream again at once; the watch is watched
// again, as a new logical watch, from where it was, on the next stream.
TEST(WatchFanout, ARefusedCreateWatchesAgainOnTheNextStream) {
  FanoutFixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    if (!is_fanout_create(r)) return Reply::silence();
    const int64_t id = r.watch().create_request().watch_id();
    if (id == 2) return Reply::watch({created(2, 9)}, /*then_close=*/true);
    etcdserverpb::WatchResponse refused = created(1, 9);
    refused.set_canceled(true);
    refused.set_cancel_reason("etcdserver: too many watchers");
    return Reply::watch({refused}, false);
  });
  f.members.start(1, [](size_t, const etcdserverpb::ApiRequest& r) {
    if (!is_fanout_create(r)) return Reply::silence();
    return Reply::watch({created(r.watch().create_request().watch_id(), 9)}, false);
  });
  f.watch(2, {4, 0});
  EXPECT_EQ(f.creates(0), (std::vector<std::pair<int64_t, int64_t>>{{1, 4}, {2, 0}}));  // not asked again
  // The next stream: k1 from where it was (4), k2 from after its ack (10).
  EXPECT_EQ(f.creates(1), (std::vector<std::pair<int64_t, int64_t>>{{1, 4}, {2, 10}}));
  ASSERT_EQ(f.watches().size(), 3u);  // k1, k2, then k1 again as a new logical watch
  EXPECT_EQ(f.watches()[0].segments.size(), 1u);
  EXPECT_EQ(f.watches()[1].segments.size(), 2u);  // k2 resumed as a segment
  ASSERT_EQ(f.watches()[2].segments.size(), 1u);
  EXPECT_EQ(f.watches()[2].segments[0].request.key(), "k1");
  EXPECT_EQ(f.stats.canceled, 1u);
  EXPECT_EQ(f.stats.watches, 3u);
}

TEST(WatchFanout, AProgressAnsweredBeforeAReCreateIsNotHandedToTheNewWatch) {
  FanoutFixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    if (r.has_watch() && r.watch().has_progress_request()) return Reply::watch({progress(-1, 20)}, false);
    if (!is_fanout_create(r)) return Reply::silence();
    const int64_t id = r.watch().create_request().watch_id();
    if (id == 2) return Reply::watch({created(2, 20)}, /*then_close=*/true);
    etcdserverpb::WatchResponse cancel = created(1, 0);
    cancel.set_canceled(true);
    cancel.set_compact_revision(12);
    return Reply::watch({cancel}, false);
  });
  f.members.start(1, [](size_t, const etcdserverpb::ApiRequest&) { return Reply::silence(); });
  // The member reads: create 1, the progress request, then (after the cancel) create 2. The
  // progress answer at 20 was made before create 2 and says nothing of its events from 12.
  f.watch(1, {3}, sim::seconds(10));
  ASSERT_EQ(f.watches().size(), 2u);
  const history::WatchSegment& again = f.watches()[1].segments.at(0);
  ASSERT_EQ(again.responses.size(), 1u);
  EXPECT_TRUE(again.responses[0].response.created());
  EXPECT_EQ(f.creates(1), (std::vector<std::pair<int64_t, int64_t>>{{1, 12}}));  // still from 12
}

}  // namespace
}  // namespace dst::client
