// The watchable store over a real KvStore and Backend in a sim fiber: etcd 3.4's watch behaviour
// as the reference page (shared/reference/etcd-3.4.md) shows it, plus the slow-stream, big-txn,
// progress and restore cases.
#include "node/watch/watchable_store.h"

#include <gtest/gtest.h>

#include "node/watch/watch_test_util.h"

namespace dst::watch {
namespace {

using namespace dst::watch::testing;  // NOLINT: test helpers

// The reference page's history (section "watch"): revisions 2..12 on foo, foo/a, foo/b, foo/x.
void build_reference_history(mvcc::KvStore& kv) {
  EXPECT_EQ(put(kv, "foo", "bar"), 2);
  put(kv, "foo", "bar2");
  put(kv, "foo/a", "1");
  put(kv, "foo/b", "2");
  put(kv, "foo", "bar3");
  del(kv, "foo/a");
  del(kv, "foo/", "foo0");
  put(kv, "newkey", "v1");
  {
    mvcc::WriteTxn t = kv.write();  // txn: put foo bar4, get foo, del nonexist
    ASSERT_TRUE(t.put("foo", "bar4", 0).is_ok());
    ASSERT_TRUE(t.range("foo", "", {}).is_ok());
    ASSERT_TRUE(t.delete_range("nonexist", "").is_ok());
    EXPECT_EQ(t.end(), 10);
  }
  put(kv, "foo/x", "y");
  EXPECT_EQ(put(kv, "foo/x", "y"), 12);
}

TEST(WatchableStore, ReplaysTheReferenceHistoryFromRevisionOne) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    build_reference_history(kv);
    StreamId s = ws.open_stream(nullptr);
    // etcdctl watch --rev=1 --prefix foo
    ASSERT_TRUE(ws.watch(s, request({.key = "foo", .end = "fop", .start = 1})).is_ok());
    EXPECT_EQ(sync_and_drain(ws, s),
              (Lines{"w0 rev=12 created",
                     "w0 rev=12 [PUT foo=bar@2/2/v1, PUT foo=bar2@2/3/v2, PUT foo/a=1@4/4/v1, PUT foo/b=2@5/5/v1, "
                     "PUT foo=bar3@2/6/v3, DELETE foo/a@7, DELETE foo/b@8, PUT foo=bar4@2/10/v4, "
                     "PUT foo/x=y@11/11/v1, PUT foo/x=y@11/12/v2]"}));
    // etcdctl watch --rev=6 foo --prev-kv
    ASSERT_TRUE(ws.watch(s, request({.key = "foo", .start = 6, .prev_kv = true})).is_ok());
    EXPECT_EQ(sync_and_drain(ws, s),
              (Lines{"w1 rev=12 created",
                     "w1 rev=12 [PUT foo=bar3@2/6/v3 (prev bar2@2/3/v2), PUT foo=bar4@2/10/v4 (prev bar3@2/6/v3)]"}));
    EXPECT_EQ(ws.counters().watchers_synced, 2u);
  });
}

// The gateway section: a replay from 19 with prev_kv over deletes and re-creations, then live
// events, a compacted start, and create + progress + cancel on one stream.
TEST(WatchableStore, ReplaysWithPrevKvOverDeletesThenGoesLive) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    for (int i = 0; i < 14; ++i) put(kv, "filler", std::to_string(i));  // 2..15
    EXPECT_EQ(put(kv, "g/k1", "v1"), 16);
    put(kv, "g/k1", "v2");   // 17
    put(kv, "g/k2", "v3");   // 18
    del(kv, "g/k2");         // 19
    put(kv, "g/k2", "v3");   // 20
    put(kv, "g/k1", "v4");   // 21
    del(kv, "g/k2");         // 22
    put(kv, "g/new", "x");   // 23
    StreamId s = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(s, request({.key = "g/", .end = "g0", .start = 19, .prev_kv = true})).is_ok());
    EXPECT_EQ(sync_and_drain(ws, s),
              (Lines{"w0 rev=23 created",
                     "w0 rev=23 [DELETE g/k2@19 (prev v3@18/18/v1), PUT g/k2=v3@20/20/v1, "
                     "PUT g/k1=v4@16/21/v3 (prev v2@16/17/v2), DELETE g/k2@22 (prev v3@20/20/v1), "
                     "PUT g/new=x@23/23/v1]"}));
    StreamId live = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(live, request({.key = "g/", .end = "g0"})).is_ok());
    put(kv, "g/k5", "5");  // 24
    del(kv, "g/k5");       // 25
    EXPECT_EQ(drain(ws, live),
              (Lines{"w0 rev=23 created", "w0 rev=24 [PUT g/k5=5@24/24/v1]", "w0 rev=25 [DELETE g/k5@25]"}));
    // The first stream's watcher went live too (prev_kv on the delete).
    EXPECT_EQ(drain(ws, s), (Lines{"w0 rev=24 [PUT g/k5=5@24/24/v1]", "w0 rev=25 [DELETE g/k5@25 (prev 5@24/24/v1)]"}));

    ASSERT_TRUE(kv.compact(18).is_ok());
    StreamId c = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(c, request({.key = "g/", .end = "g0", .start = 3})).is_ok());
    EXPECT_EQ(drain(ws, c), (Lines{"w0 rev=25 created", "w0 canceled compact=18"}));
    EXPECT_EQ(ws.stream_counters(c).watchers_synced + ws.stream_counters(c).watchers_unsynced, 0u);

    StreamId m = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(m, request({.key = "g/", .end = "g0"})).is_ok());
    ASSERT_TRUE(ws.watch(m, request({.key = "a"})).is_ok());
    ASSERT_TRUE(ws.request_progress(m).is_ok());
    ASSERT_TRUE(ws.cancel(m, 1).is_ok());
    EXPECT_EQ(drain(ws, m), (Lines{"w0 rev=25 created", "w1 rev=25 created", "w-1 rev=25", "w1 rev=25 canceled"}));
  });
}

TEST(WatchableStore, SingleKeyPrefixRangeAndFromKeyWatchersSeeTheirKeysOnly) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    StreamId s = ws.open_stream(nullptr);
    ASSERT_EQ(*ws.watch(s, request({.key = "a"})), 0);                // the key "a" only
    ASSERT_EQ(*ws.watch(s, request({.key = "a", .end = "b"})), 1);    // prefix "a"
    ASSERT_EQ(*ws.watch(s, request({.key = "ab", .end = "b"})), 2);   // [ab, b)
    ASSERT_EQ(*ws.watch(s, request({.key = "b", .end = kAll})), 3);   // every key >= b
    drain(ws, s);
    put(kv, "a", "1");   // 2
    put(kv, "ab", "2");  // 3
    put(kv, "b", "3");   // 4
    put(kv, "aa", "4");  // 5
    {
      mvcc::WriteTxn t = kv.write();  // 6: one revision touching three watchers' keys
      ASSERT_TRUE(t.put("c", "5", 0).is_ok());
      ASSERT_TRUE(t.put("a", "6", 0).is_ok());
      t.end();
    }
    EXPECT_EQ(drain(ws, s), (Lines{
                                "w0 rev=2 [PUT a=1@2/2/v1]",
                                "w1 rev=2 [PUT a=1@2/2/v1]",
                                "w1 rev=3 [PUT ab=2@3/3/v1]",
                                "w2 rev=3 [PUT ab=2@3/3/v1]",
                                "w3 rev=4 [PUT b=3@4/4/v1]",
                                "w1 rev=5 [PUT aa=4@5/5/v1]",
                                "w0 rev=6 [PUT a=6@2/6/v2]",
                                "w1 rev=6 [PUT a=6@2/6/v2]",
                                "w3 rev=6 [PUT c=5@6/6/v1]",
                            }));
  });
}

TEST(WatchableStore, InvalidRangesAndIdsAreRefused) {
  World w;
  with_watch_store(w, [](mvcc::KvStore&, WatchableStore& ws) {
    StreamId s = ws.open_stream(nullptr);
    auto empty = ws.watch(s, request({.key = "b", .end = "a"}));
    EXPECT_EQ(empty.status().message(), kErrEmptyWatcherRange);
    EXPECT_EQ(ws.watch(s, request({.key = "a", .end = "a"})).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(ws.watch(s, request({.key = "a", .id = -5})).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(ws.watch(999, request({.key = "a"})).status().code(), StatusCode::kNotFound);
    EXPECT_TRUE(drain(ws, s).empty());  // refused watches queue nothing
  });
}

TEST(WatchableStore, FutureStartWaitsThenDeliversFromItsRevision) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    put(kv, "k", "1");  // 2
    StreamId s = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(s, request({.key = "k", .start = 5})).is_ok());
    EXPECT_EQ(ws.counters().watchers_synced, 1u);  // waiting, but fed live
    put(kv, "k", "2");  // 3
    put(kv, "k", "3");  // 4
    EXPECT_EQ(sync_and_drain(ws, s), (Lines{"w0 rev=2 created"}));
    put(kv, "k", "4");  // 5
    put(kv, "k", "5");  // 6
    EXPECT_EQ(sync_and_drain(ws, s), (Lines{"w0 rev=5 [PUT k=4@2/5/v4]", "w0 rev=6 [PUT k=5@2/6/v5]"}));
  });
}

TEST(WatchableStore, StartAtTheCompactionRevisionIsServedAndBelowItIsCanceled) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    for (int i = 0; i < 5; ++i) put(kv, "k", std::to_string(i));  // 2..6
    ASSERT_TRUE(kv.compact(4).is_ok());
    StreamId s = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(s, request({.key = "k", .start = 3})).is_ok());
    ASSERT_TRUE(ws.watch(s, request({.key = "k", .start = 4})).is_ok());
    EXPECT_EQ(sync_and_drain(ws, s), (Lines{"w0 rev=6 created", "w0 canceled compact=4", "w1 rev=6 created",
                                            "w1 rev=6 [PUT k=2@2/4/v3, PUT k=3@2/5/v4, PUT k=4@2/6/v5]"}));
    EXPECT_EQ(ws.counters().compaction_cancels, 1u);
    EXPECT_EQ(ws.watchers(), 1u);
  });
}

// etcd #18089 / #19179: the key deleted at exactly the compaction revision C; a watcher starting
// at C must get that DELETE.
TEST(WatchableStore, DeleteAtTheCompactionRevisionReachesAWatcherStartingThere) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    put(kv, "k", "1");                 // 2
    put(kv, "other", "x");             // 3
    const int64_t c = del(kv, "k");    // 4
    ASSERT_TRUE(kv.compact(c).is_ok());
    StreamId s = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(s, request({.key = "k", .start = c, .prev_kv = true})).is_ok());
    // prev_kv would be the key at 3, which is compacted: omitted, as etcd does.
    EXPECT_EQ(sync_and_drain(ws, s), (Lines{"w0 rev=4 created", "w0 rev=4 [DELETE k@4]"}));
  });
}

TEST(WatchableStore, FiltersDropPutsOrDeletes) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    put(kv, "k", "1");  // 2
    del(kv, "k");       // 3
    StreamId s = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(s, request({.key = "k", .start = 1, .no_put = true})).is_ok());
    ASSERT_TRUE(ws.watch(s, request({.key = "k", .start = 1, .no_delete = true})).is_ok());
    ASSERT_TRUE(ws.watch(s, request({.key = "k", .no_put = true, .no_delete = true})).is_ok());
    EXPECT_EQ(sync_and_drain(ws, s), (Lines{"w0 rev=3 created", "w1 rev=3 created", "w2 rev=3 created",
                                            "w0 rev=3 [DELETE k@3]", "w1 rev=3 [PUT k=1@2/2/v1]"}));
    put(kv, "k", "2");  // 4
    del(kv, "k");       // 5
    EXPECT_EQ(drain(ws, s), (Lines{"w1 rev=4 [PUT k=2@4/4/v1]", "w0 rev=5 [DELETE k@5]"}));
  });
}

TEST(WatchableStore, CancelStopsEventsAndUnknownIdsAreErrors) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    StreamId s = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(s, request({.key = "k"})).is_ok());
    put(kv, "k", "1");  // 2: queued before the cancel, stays ahead of it
    ASSERT_TRUE(ws.cancel(s, 0).is_ok());
    put(kv, "k", "2");  // 3: nobody watches any more
    EXPECT_EQ(drain(ws, s), (Lines{"w0 rev=1 created", "w0 rev=2 [PUT k=1@2/2/v1]", "w0 rev=2 canceled"}));
    Status again = ws.cancel(s, 0);
    EXPECT_EQ(again.code(), StatusCode::kNotFound);
    EXPECT_EQ(again.message(), kErrWatcherNotExist);
    EXPECT_EQ(ws.watchers(), 0u);
  });
}

TEST(WatchableStore, WatchIdsAutoFromZeroAndDuplicatesAreRefused) {
  World w;
  with_watch_store(w, [](mvcc::KvStore&, WatchableStore& ws) {
    StreamId s = ws.open_stream(nullptr);
    StreamId other = ws.open_stream(nullptr);
    EXPECT_EQ(*ws.watch(s, request({.key = "a"})), 0);
    EXPECT_EQ(*ws.watch(s, request({.key = "a", .id = 2})), 2);
    EXPECT_EQ(*ws.watch(s, request({.key = "a"})), 1);
    EXPECT_EQ(*ws.watch(s, request({.key = "a"})), 3);  // 2 was taken by the client
    auto dup = ws.watch(s, request({.key = "b", .id = 2}));
    EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
    EXPECT_EQ(dup.status().message(), "mvcc: duplicate watch ID provided on the WatchStream");
    EXPECT_EQ(*ws.watch(other, request({.key = "a", .id = 2})), 2);  // ids are per stream
    EXPECT_EQ(*ws.watch(other, request({.key = "a"})), 0);
    // A canceled id can be chosen again.
    ASSERT_TRUE(ws.cancel(s, 2).is_ok());
    EXPECT_EQ(*ws.watch(s, request({.key = "a", .id = 2})), 2);
  });
}

TEST(WatchableStore, CloseStreamCancelsItsWatchersSilently) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    put(kv, "k", "1");
    int wakes = 0;
    StreamId s = ws.open_stream([&] { ++wakes; });
    StreamId keep = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(s, request({.key = "k"})).is_ok());
    ASSERT_TRUE(ws.watch(s, request({.key = "k", .start = 1})).is_ok());  // unsynced
    ASSERT_TRUE(ws.watch(keep, request({.key = "k"})).is_ok());
    EXPECT_EQ(wakes, 1);  // empty -> non-empty once
    ws.close_stream(s);
    EXPECT_EQ(ws.watchers(), 1u);
    EXPECT_EQ(ws.counters().watchers_unsynced, 0u);
    EXPECT_FALSE(ws.pop(s).has_value());
    EXPECT_EQ(ws.watch(s, request({.key = "k"})).status().code(), StatusCode::kNotFound);
    put(kv, "k", "2");  // 3
    EXPECT_FALSE(ws.sync_step());
    EXPECT_EQ(drain(ws, keep), (Lines{"w0 rev=2 created", "w0 rev=3 [PUT k=2@2/3/v2]"}));
  });
}

TEST(WatchableStore, WakeIsCalledWhenTheQueueBecomesNonEmpty) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    int wakes = 0;
    StreamId s = ws.open_stream([&] { ++wakes; });
    ASSERT_TRUE(ws.watch(s, request({.key = "k"})).is_ok());
    put(kv, "k", "1");
    EXPECT_EQ(wakes, 1);
    EXPECT_EQ(drain(ws, s).size(), 2u);
    put(kv, "k", "2");
    EXPECT_EQ(wakes, 2);
  });
}

TEST(WatchableStore, ProgressNotifyTickGoesToSyncedIdleWatchersOnly) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    put(kv, "k", "1");  // 2
    StreamId s = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(s, request({.key = "k", .progress_notify = true})).is_ok());            // 0: idle
    ASSERT_TRUE(ws.watch(s, request({.key = "k", .start = 1, .progress_notify = true})).is_ok());  // 1: unsynced
    ASSERT_TRUE(ws.watch(s, request({.key = "j"})).is_ok());                                      // 2: not asked
    ASSERT_TRUE(ws.watch(s, request({.key = "q", .progress_notify = true})).is_ok());            // 3: busy
    drain(ws, s);
    put(kv, "q", "1");  // 3: queued for watcher 3
    ws.progress_notify_tick();
    EXPECT_EQ(drain(ws, s), (Lines{"w3 rev=3 [PUT q=1@3/3/v1]", "w0 rev=3"}));
    ws.progress_notify_tick();  // watcher 1 still unsynced; 3 idle now
    EXPECT_EQ(drain(ws, s), (Lines{"w0 rev=3", "w3 rev=3"}));
    EXPECT_EQ(sync_and_drain(ws, s), (Lines{"w1 rev=3 [PUT k=1@2/2/v1]"}));
    ws.progress_notify_tick();
    EXPECT_EQ(drain(ws, s), (Lines{"w0 rev=3", "w1 rev=3", "w3 rev=3"}));
    EXPECT_EQ(ws.stream_counters(s).progress_responses, 6u);
  });
}

TEST(WatchableStore, ProgressRequestWaitsUntilEveryWatcherOfTheStreamIsSynced) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    put(kv, "k", "1");  // 2
    put(kv, "k", "2");  // 3
    StreamId s = ws.open_stream(nullptr);
    StreamId idle = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(s, request({.key = "k", .start = 2})).is_ok());
    ASSERT_TRUE(ws.request_progress(s).is_ok());
    ASSERT_TRUE(ws.request_progress(s).is_ok());  // coalesced with the first
    ASSERT_TRUE(ws.request_progress(idle).is_ok());  // no watchers: answered at once
    EXPECT_EQ(drain(ws, idle), (Lines{"w-1 rev=3"}));
    // Not answered while the watcher still owes events up to 3.
    EXPECT_EQ(drain(ws, s), (Lines{"w0 rev=3 created"}));
    put(kv, "k", "3");  // 4
    EXPECT_TRUE(drain(ws, s).empty());
    EXPECT_EQ(sync_and_drain(ws, s),
              (Lines{"w0 rev=4 [PUT k=1@2/2/v1, PUT k=2@2/3/v2, PUT k=3@2/4/v3]", "w-1 rev=4"}));
  });
}

TEST(WatchableStore, BugProgressAheadAnswersAtOnceLikeEtcd34) {
  World w;
  with_watch_store(
      w,
      [](mvcc::KvStore& kv, WatchableStore& ws) {
        put(kv, "k", "1");  // 2
        StreamId s = ws.open_stream(nullptr);
        ASSERT_TRUE(ws.watch(s, request({.key = "k", .start = 2})).is_ok());
        ASSERT_TRUE(ws.request_progress(s).is_ok());
        // Revision 2 announced before the event at 2 is sent: etcd #15220.
        EXPECT_EQ(sync_and_drain(ws, s), (Lines{"w0 rev=2 created", "w-1 rev=2", "w0 rev=2 [PUT k=1@2/2/v1]"}));
      },
      WatchOptions{.bugs = Bugs::of(Bug::kProgressNotifyAhead)});
}

// What a stream delivered, by event revision: in arrival order, and grouped per response.
struct Received {
  std::vector<int64_t> revs;                   // every event's revision, in arrival order
  std::vector<std::vector<int64_t>> batches;   // revisions per response
};

Received pop_all(WatchableStore& ws, StreamId s) {
  Received r;
  while (auto resp = ws.pop(s)) {
    if (resp->events_size() == 0) continue;
    std::vector<int64_t> batch;
    for (const auto& ev : resp->events()) {
      r.revs.push_back(ev.kv().mod_revision());
      batch.push_back(ev.kv().mod_revision());
    }
    r.batches.push_back(batch);
  }
  return r;
}

TEST(WatchableStore, SlowStreamFallsBehindAndCatchesUpWithoutLossDuplicatesOrSplitRevisions) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    StreamId s = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(s, request({.key = "k/", .end = "k0"})).is_ok());
    ASSERT_TRUE(ws.pop(s).has_value());  // the created ack
    std::vector<int64_t> want;  // one entry per event
    // 400 revisions of three events each, without reading: the queue fills after 128.
    for (int i = 0; i < 400; ++i) {
      mvcc::WriteTxn t = kv.write();
      for (int k = 0; k < 3; ++k) ASSERT_TRUE(t.put("k/" + std::to_string(k), std::to_string(i), 0).is_ok());
      int64_t rev = t.end();
      for (int k = 0; k < 3; ++k) want.push_back(rev);
      if (i % 50 == 0) {
        EXPECT_FALSE(ws.sync_step());  // full from i = 128 on: nothing it could do
      }
    }
    EXPECT_EQ(ws.queued(s), limits::kWatchStreamQueueMax);
    EXPECT_EQ(ws.counters().watchers_unsynced, 1u);
    EXPECT_EQ(ws.counters().overflows, 1u);
    // Drain in rounds, writing more in between.
    Received got;
    for (int round = 0; round < 100 && (ws.counters().watchers_unsynced > 0 || ws.queued(s) > 0); ++round) {
      Received r = pop_all(ws, s);
      got.revs.insert(got.revs.end(), r.revs.begin(), r.revs.end());
      got.batches.insert(got.batches.end(), r.batches.begin(), r.batches.end());
      ws.sync_step();
      int64_t rev = put(kv, "k/x", std::to_string(round));
      want.push_back(rev);
    }
    Received r = pop_all(ws, s);
    got.revs.insert(got.revs.end(), r.revs.begin(), r.revs.end());
    got.batches.insert(got.batches.end(), r.batches.begin(), r.batches.end());
    EXPECT_EQ(got.revs, want);  // everything, once, in order
    // No revision is split over two responses.
    for (size_t b = 1; b < got.batches.size(); ++b) EXPECT_LT(got.batches[b - 1].back(), got.batches[b].front());
    EXPECT_EQ(ws.counters().watchers_synced, 1u);
    EXPECT_EQ(ws.counters().events_queued, want.size());
  });
}

// The bug zoo's watch bugs (base/bugs.h), each against the behaviour the test above holds the
// correct store to (watch-duplicate-event lives over the API's responses: repeat_txn_event_test).
TEST(WatchableStore, BugLostUnderStarvationSkipsWhatAFullQueueCouldNotTake) {
  World w;
  with_watch_store(
      w,
      [](mvcc::KvStore& kv, WatchableStore& ws) {
        StreamId s = ws.open_stream(nullptr);
        ASSERT_TRUE(ws.watch(s, request({.key = "k"})).is_ok());
        ASSERT_TRUE(ws.pop(s).has_value());  // the created ack
        const size_t written = limits::kWatchStreamQueueMax + 10;
        for (size_t i = 0; i < written; ++i) put(kv, "k", std::to_string(i));
        for (int round = 0; round < 10; ++round) ws.sync_step();
        Received got = pop_all(ws, s);
        // etcd #17529: the 10 revisions that found the queue full are gone for good.
        EXPECT_EQ(got.revs.size(), limits::kWatchStreamQueueMax);
        EXPECT_EQ(ws.counters().watchers_unsynced, 0u);
      },
      WatchOptions{.bugs = Bugs::of(Bug::kWatchLostUnderStarvation)});
}

TEST(WatchableStore, AFiveThousandEventTransactionArrivesInOneResponse) {
  World w;
  with_watch_store(w, [](mvcc::KvStore& kv, WatchableStore& ws) {
    StreamId live = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(live, request({.key = "", .end = kAll})).is_ok());
    put(kv, "before", "x");  // 2
    {
      mvcc::WriteTxn t = kv.write();  // 3
      for (int i = 0; i < 5000; ++i) ASSERT_TRUE(t.put("big/" + std::to_string(i), "v", 0).is_ok());
      EXPECT_EQ(t.end(), 3);
    }
    put(kv, "after", "x");  // 4
    Received l = pop_all(ws, live);
    ASSERT_EQ(l.batches.size(), 3u);
    EXPECT_EQ(l.batches[1].size(), 5000u);
    // Catching up: the soft limit closes a response only at a revision boundary.
    StreamId s = ws.open_stream(nullptr);
    ASSERT_TRUE(ws.watch(s, request({.key = "", .end = kAll, .start = 1})).is_ok());
    for (int i = 0; i < 10 && ws.sync_step(); ++i) {
    }
    Received c = pop_all(ws, s);
    ASSERT_EQ(c.batches.size(), 2u);
    EXPECT_EQ(c.batches[0].size(), 5001u);  // revisions 2 and 3: closed after 3 (>= 1000)
    EXPECT_EQ(c.batches[1], (std::vector<int64_t>{4}));
  });
}

// The member's store and the one a leader's snapshot replaces it with (on_restore tests).
struct OldAndNewStores {
  std::unique_ptr<backend::Backend> old_be, new_be;
  std::unique_ptr<mvcc::KvStore> old_kv, new_kv;
};
OldAndNewStores open_old_and_new(World& w) {
  auto be_old = backend::Backend::open(w.env(), "n1/old.db");
  auto be_new = backend::Backend::open(w.env(), "n1/new.db");
  DST_ASSERT(be_old.is_ok() && be_new.is_ok());
  auto old_kv = mvcc::KvStore::open(**be_old);
  auto new_kv = mvcc::KvStore::open(**be_new);
  DST_ASSERT(old_kv.is_ok() && new_kv.is_ok());
  return {std::move(be_old).value(), std::move(be_new).value(), std::move(old_kv).value(), std::move(new_kv).value()};
}

TEST(WatchableStore, OnRestoreCatchesSyncedWatchersUpFromTheNewStore) {
  World w;
  bool ran = w.run([&] {
    OldAndNewStores st = open_old_and_new(w);
    mvcc::KvStore& old_kv = *st.old_kv;
    mvcc::KvStore& new_kv = *st.new_kv;
    WatchableStore ws(old_kv);
    StreamId s = ws.open_stream(nullptr);
    // Synced since revision 1 and never matched: its next_rev lags at 2.
    ASSERT_EQ(*ws.watch(s, request({.key = "idle"})), 0);
    // The same history on both up to 3; the new store (the leader's snapshot) went on to 6.
    for (mvcc::KvStore* kv : {&old_kv, &new_kv}) {
      put(*kv, "a", "1");  // 2
      put(*kv, "b", "1");  // 3
    }
    put(new_kv, "a", "2");  // 4
    put(new_kv, "x", "1");  // 5
    put(new_kv, "b", "2");  // 6
    put(new_kv, "idle", "1");  // 7
    ASSERT_TRUE(new_kv.compact(4).is_ok());
    ASSERT_EQ(*ws.watch(s, request({.key = "a", .prev_kv = true})), 1);  // synced, next 4
    ASSERT_EQ(*ws.watch(s, request({.key = "b"})), 2);                   // synced, next 4
    ASSERT_EQ(*ws.watch(s, request({.key = "a", .start = 2})), 3);       // unsynced at 2
    drain(ws, s);
    ws.on_restore(new_kv);
    EXPECT_EQ(ws.counters().watchers_synced, 0u);
    // Watcher 3 needed revision 2, which the new store compacted. The synced ones resume after
    // the old store's revision 3 (the idle one too, though its next_rev said 2), which is exactly
    // the new store's compaction revision: still readable.
    EXPECT_EQ(drain(ws, s), (Lines{"w3 canceled compact=4"}));
    EXPECT_EQ(sync_and_drain(ws, s), (Lines{"w0 rev=7 [PUT idle=1@7/7/v1]", "w1 rev=7 [PUT a=2@2/4/v2]",
                                            "w2 rev=7 [PUT b=2@3/6/v2]"}));
    EXPECT_EQ(ws.counters().watchers_synced, 3u);
    put(new_kv, "a", "3");  // 8: the observer now is on the new store
    put(old_kv, "a", "x");  // the old store is no longer observed
    EXPECT_EQ(drain(ws, s), (Lines{"w1 rev=8 [PUT a=3@2/8/v3 (prev 2@2/4/v2)]"}));
  });
  ASSERT_TRUE(ran);
}

// etcd #15271 (the bug zoo's watch-time-travel): the synced watcher restarts from where it joined
// the synced group, so the new store sends it again what it already had.
TEST(WatchableStore, BugTimeTravelOnRestoreResendsWhatTheWatcherAlreadySaw) {
  World w;
  bool ran = w.run([&] {
    OldAndNewStores st = open_old_and_new(w);
    mvcc::KvStore& old_kv = *st.old_kv;
    mvcc::KvStore& new_kv = *st.new_kv;
    WatchableStore ws(old_kv, WatchOptions{.bugs = Bugs::of(Bug::kWatchTimeTravel)});
    StreamId s = ws.open_stream(nullptr);
    ASSERT_EQ(*ws.watch(s, request({.key = "a"})), 0);  // synced from revision 2
    drain(ws, s);
    for (mvcc::KvStore* kv : {&old_kv, &new_kv}) {
      put(*kv, "a", "1");  // 2
      put(*kv, "a", "2");  // 3
    }
    EXPECT_EQ(drain(ws, s), (Lines{"w0 rev=2 [PUT a=1@2/2/v1]", "w0 rev=3 [PUT a=2@2/3/v2]"}));
    put(new_kv, "a", "3");  // 4
    ws.on_restore(new_kv);
    // Revisions 2 and 3 arrive a second time, after the watcher already saw 3.
    EXPECT_EQ(sync_and_drain(ws, s), (Lines{"w0 rev=4 [PUT a=1@2/2/v1, PUT a=2@2/3/v2, PUT a=3@2/4/v3]"}));
  });
  ASSERT_TRUE(ran);
}

TEST(WatchableStore, PerStreamWatcherLimitIsResourceExhausted) {
  World w;
  with_watch_store(w, [](mvcc::KvStore&, WatchableStore& ws) {
    StreamId s = ws.open_stream(nullptr);
    for (size_t i = 0; i < limits::kWatchersPerStreamMax; ++i) {
      ASSERT_TRUE(ws.watch(s, request({.key = "k"})).is_ok());
      ws.pop(s);
    }
    EXPECT_EQ(ws.watch(s, request({.key = "k"})).status().code(), StatusCode::kResourceExhausted);
    StreamId other = ws.open_stream(nullptr);
    EXPECT_TRUE(ws.watch(other, request({.key = "k"})).is_ok());
  });
}

}  // namespace
}  // namespace dst::watch
