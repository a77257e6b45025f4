// The resuming watch client against scripted members: every response recorded in its segment, a
// broken stream resumed on the next member (or the same one when pinned) from the revision after
// the last one seen (an event's, a progress notification's, or the first created ack's for a
// watch "from now"), a compaction cancel ending the watch, and progress asked for at its pace.
#include "client/watch_client.h"

#include <gtest/gtest.h>

#include "client/fake_member_test_util.h"

namespace dst::client {
namespace {

using testing::FakeMembers;
using testing::Reply;
using testing::run_client;

etcdserverpb::WatchResponse created(int64_t header_rev) {
  etcdserverpb::WatchResponse w;
  w.set_created(true);
  w.mutable_header()->set_revision(header_rev);
  return w;
}

etcdserverpb::WatchResponse event(int64_t rev) {
  etcdserverpb::WatchResponse w;
  w.mutable_header()->set_revision(rev);
  mvccpb::Event* e = w.add_events();
  e->mutable_kv()->set_key("k");
  e->mutable_kv()->set_mod_revision(rev);
  return w;
}

etcdserverpb::WatchResponse progress(int64_t rev) {
  etcdserverpb::WatchResponse w;
  w.mutable_header()->set_revision(rev);
  return w;
}

bool is_watch_create(const etcdserverpb::ApiRequest& r) { return r.has_watch() && r.watch().has_create_request(); }

struct WatchFixture {
  sim::Simulator sim{9};
  FakeMembers members{sim, 2};
  history::MemoryRecorder recorder;
  WatchClientResult result;
  sim::TimeNs returned_at = 0;

  void watch(bool pinned, int64_t start, sim::DurationNs progress_every = 0, sim::DurationNs for_how_long = sim::seconds(5)) {
    WatchClientOptions o;
    o.id = 3;
    o.members = members.addresses();
    o.pinned = pinned;
    o.request.set_key("k");
    o.request.set_start_revision(start);
    o.progress_every = progress_every;
    run_client(sim, [&] {
      result = run_watch(sim, o, recorder, sim.now() + for_how_long);
      returned_at = sim.now();
    });
  }
  const history::Watch& recorded() { return recorder.history().watches.at(0); }
  // The start revision of every create request member i received.
  std::vector<int64_t> creates(size_t i) {
    std::vector<int64_t> out;
    for (const auto& r : members.received(i))
      if (is_watch_create(r)) out.push_back(r.watch().create_request().start_revision());
    return out;
  }
};

TEST(WatchClient, ABrokenStreamResumesOnTheNextMemberAfterTheLastEvent) {
  WatchFixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    return is_watch_create(r) ? Reply::watch({created(5), event(6), event(7)}, /*then_close=*/true) : Reply::silence();
  });
  f.members.start(1, [](size_t, const etcdserverpb::ApiRequest& r) {
    return is_watch_create(r) ? Reply::watch({created(7), event(9)}, false) : Reply::silence();
  });
  f.watch(/*pinned=*/false, /*start=*/6);
  EXPECT_EQ(f.creates(0), std::vector<int64_t>{6});
  EXPECT_EQ(f.creates(1), std::vector<int64_t>{8});  // after the last event seen, not from the start
  EXPECT_EQ(f.result.segments, 2u);
  EXPECT_EQ(f.result.events, 3u);
  EXPECT_EQ(f.result.next_revision, 10);
  EXPECT_FALSE(f.result.canceled);
  ASSERT_EQ(f.recorded().segments.size(), 2u);
  EXPECT_TRUE(f.recorded().segments[0].broken);
  EXPECT_FALSE(f.recorded().segments[1].broken);
  EXPECT_EQ(f.recorded().segments[0].member, 1u);
  EXPECT_EQ(f.recorded().segments[1].member, 2u);
  EXPECT_EQ(f.recorded().segments[0].responses.size(), 3u);
  EXPECT_EQ(f.recorded().segments[1].request.start_revision(), 8);
}

TEST(WatchClient, AWatchFromNowIsFixedByItsFirstCreatedAck) {
  WatchFixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    return is_watch_create(r) ? Reply::watch({created(10)}, true) : Reply::silence();
  });
  f.members.start(1, [](size_t, const etcdserverpb::ApiRequest& r) {
    return is_watch_create(r) ? Reply::watch({created(40)}, false) : Reply::silence();
  });
  f.watch(false, /*start=*/0);
  EXPECT_EQ(f.creates(0), std::vector<int64_t>{0});
  // "Now" was revision 10 when the watch began: a later "now" (40) would lose 11..40.
  EXPECT_EQ(f.creates(1), std::vector<int64_t>{11});
}

TEST(WatchClient, AProgressNotificationMovesTheResumePoint) {
  WatchFixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    return is_watch_create(r) ? Reply::watch({created(5), event(6), progress(20)}, true) : Reply::silence();
  });
  f.members.start(1, [](size_t, const etcdserverpb::ApiRequest& r) {
    return is_watch_create(r) ? Reply::watch({created(20)}, false) : Reply::silence();
  });
  f.watch(false, 6);
  EXPECT_EQ(f.creates(1), std::vector<int64_t>{21});
}

TEST(WatchClient, ACompactionCancelEndsTheWatch) {
  WatchFixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    etcdserverpb::WatchResponse cancel;
    cancel.set_canceled(true);
    cancel.set_compact_revision(15);
    return is_watch_create(r) ? Reply::watch({created(30), cancel}, false) : Reply::silence();
  });
  f.watch(false, 3, 0, sim::seconds(60));
  EXPECT_TRUE(f.result.canceled);
  EXPECT_EQ(f.result.compact_revision, 15);
  EXPECT_EQ(f.result.segments, 1u);
  EXPECT_LT(f.returned_at, sim::seconds(1));  // it did not wait for the end
  EXPECT_TRUE(f.members.received(1).empty());
}

TEST(WatchClient, APinnedWatchResumesOnItsOwnMember) {
  WatchFixture f;
  int creates = 0;
  f.members.start(0, [&creates](size_t, const etcdserverpb::ApiRequest& r) {
    if (!is_watch_create(r)) return Reply::silence();
    return ++creates == 1 ? Reply::watch({created(5), event(6)}, true) : Reply::watch({created(6)}, false);
  });
  f.members.start(1, [](size_t, const etcdserverpb::ApiRequest&) { return Reply::silence(); });
  f.watch(/*pinned=*/true, 6);
  EXPECT_EQ(f.creates(0), (std::vector<int64_t>{6, 7}));
  EXPECT_TRUE(f.members.received(1).empty());
}

TEST(WatchClient, ProgressIsAskedRightAfterTheCreateAndThenAtItsPace) {
  WatchFixture f;
  f.members.start(0, [](size_t, const etcdserverpb::ApiRequest& r) {
    if (is_watch_create(r)) return Reply::watch({created(5)}, false);
    return Reply::watch({progress(5)}, false);
  });
  f.watch(true, 6, /*progress_every=*/sim::milliseconds(200), /*for_how_long=*/sim::seconds(1));
  size_t asked = 0;
  for (const auto& r : f.members.received(0)) asked += r.has_watch() && r.watch().has_progress_request();
  // At 0, 200, 400, 600 and 800 ms of the watch's second (the stream opens a round trip in).
  EXPECT_GE(asked, 4u);
  EXPECT_LE(asked, 6u);
  EXPECT_EQ(f.recorded().segments.at(0).responses.size(), 1u + asked);  // every answer recorded
}

}  // namespace
}  // namespace dst::client
