// The MVCC store over a real Backend (SQLite on the simulated disk), run inside a node fiber.
#include "node/mvcc/kv_store.h"

#include <gtest/gtest.h>

#include "base/limits.h"
#include "node/backend/backend_test_util.h"

namespace dst::mvcc {
namespace {

using backend::testing::World;

const std::string kAll(1, '\0');

std::string describe(const mvccpb::KeyValue& kv) {
  return kv.key() + "=" + kv.value() + "@" + std::to_string(kv.create_revision()) + "/" +
         std::to_string(kv.mod_revision()) + "/v" + std::to_string(kv.version()) +
         (kv.lease() ? "/l" + std::to_string(kv.lease()) : "");
}

std::string describe(const Result<RangeResult>& r) {
  if (!r.is_ok()) return "error: " + r.status().message();
  std::string s = "rev=" + std::to_string(r->rev) + " count=" + std::to_string(r->count);
  for (const auto& kv : r->kvs) s += " " + describe(kv);
  return s;
}

int64_t put(KvStore& s, const std::string& k, const std::string& v, int64_t lease = 0) {
  WriteTxn t = s.write();
  auto prev = t.put(k, v, lease);
  EXPECT_TRUE(prev.is_ok());
  return t.end();
}

int64_t del(KvStore& s, const std::string& k, const std::string& end = "") {
  WriteTxn t = s.write();
  auto d = t.delete_range(k, end);
  EXPECT_TRUE(d.is_ok());
  return t.end();
}

// Runs `body(store)` in a fiber with a fresh or reopened store on `w`.
template <typename F>
void with_store(World& w, F body) {
  bool ran = w.run([&] {
    auto be = backend::Backend::open(w.env(), "n1/backend.db");
    ASSERT_TRUE(be.is_ok()) << be.status().to_string();
    auto store = KvStore::open(**be);
    ASSERT_TRUE(store.is_ok()) << store.status().to_string();
    body(**store, **be);
    ASSERT_TRUE((*be)->commit().is_ok());
  });
  ASSERT_TRUE(ran);
}

TEST(KvStore, RevisionsVersionsAndReadsAtPastRevisions) {
  World w;
  with_store(w, [](KvStore& s, backend::Backend&) {
    EXPECT_EQ(s.rev(), 1);  // etcd's empty store is at revision 1
    EXPECT_EQ(put(s, "foo", "bar"), 2);
    EXPECT_EQ(put(s, "foo", "bar2"), 3);
    EXPECT_EQ(put(s, "foo/a", "1"), 4);
    EXPECT_EQ(put(s, "foo/b", "2"), 5);
    EXPECT_EQ(put(s, "foo", "bar3"), 6);
    EXPECT_EQ(describe(s.range("foo", "", {})), "rev=6 count=1 foo=bar3@2/6/v3");
    EXPECT_EQ(describe(s.range("foo", "", {.rev = 2})), "rev=6 count=1 foo=bar@2/2/v1");
    EXPECT_EQ(describe(s.range("foo", "fop", {})), "rev=6 count=3 foo=bar3@2/6/v3 foo/a=1@4/4/v1 foo/b=2@5/5/v1");
    EXPECT_EQ(describe(s.range("foo/", "foo0", {.limit = 1})), "rev=6 count=2 foo/a=1@4/4/v1");
    EXPECT_EQ(describe(s.range("foo/", "foo0", {.count_only = true})), "rev=6 count=2");
    EXPECT_EQ(describe(s.range("nonexist", "", {})), "rev=6 count=0");
    EXPECT_EQ(describe(s.range("foo", "", {.rev = 7})), std::string("error: ") + kErrFutureRev);
    EXPECT_EQ(del(s, "foo/a"), 7);
    EXPECT_EQ(del(s, "nonexist"), 7);  // nothing deleted: no new revision
    EXPECT_EQ(describe(s.range("foo/", "foo0", {})), "rev=7 count=1 foo/b=2@5/5/v1");
    EXPECT_EQ(describe(s.range("foo/", "foo0", {.rev = 6})), "rev=7 count=2 foo/a=1@4/4/v1 foo/b=2@5/5/v1");
    // Re-creating a deleted key starts a new generation: version 1, new create revision.
    EXPECT_EQ(put(s, "foo/a", "again"), 8);
    EXPECT_EQ(describe(s.range("foo/a", "", {})), "rev=8 count=1 foo/a=again@8/8/v1");
  });
}

TEST(KvStore, OneRevisionPerTransactionAndReadsSeeTheTransactionsOwnWrites) {
  World w;
  with_store(w, [](KvStore& s, backend::Backend&) {
    put(s, "a", "1");  // rev 2
    WriteTxn t = s.write();
    auto prev = t.put("a", "2", 0);
    ASSERT_TRUE(prev.is_ok());
    ASSERT_TRUE(prev->has_value());
    EXPECT_EQ(describe(**prev), "a=1@2/2/v1");
    ASSERT_TRUE(t.put("b", "x", 7).is_ok());
    EXPECT_EQ(describe(t.range("a", "c", {})), "rev=3 count=2 a=2@2/3/v2 b=x@3/3/v1/l7");
    auto deleted = t.delete_range("b", "");
    ASSERT_TRUE(deleted.is_ok());
    ASSERT_EQ(deleted->size(), 1u);
    EXPECT_EQ(describe(t.range("a", "c", {})), "rev=3 count=1 a=2@2/3/v2");
    ASSERT_EQ(t.events().size(), 3u);
    EXPECT_EQ(t.events()[2].type(), mvccpb::Event::DELETE);
    EXPECT_EQ(t.events()[2].kv().mod_revision(), 3);
    EXPECT_EQ(t.end(), 3);
    EXPECT_EQ(describe(s.range("", kAll, {})), "rev=3 count=1 a=2@2/3/v2");
  });
}

TEST(KvStore, CompactionForgetsOldRevisionsButNotWhatLaterReadsSee) {
  World w;
  with_store(w, [](KvStore& s, backend::Backend& be) {
    for (int i = 0; i < 10; ++i) put(s, "k", "v" + std::to_string(i));  // revs 2..11
    put(s, "gone", "x");                                                // 12
    del(s, "gone");                                                     // 13
    put(s, "other", "y");                                               // 14
    EXPECT_EQ(s.compact(15).message(), kErrFutureRev);
    ASSERT_TRUE(s.compact(13).is_ok());
    EXPECT_EQ(s.compact(13).message(), kErrCompacted);
    EXPECT_EQ(describe(s.range("k", "", {.rev = 12})), std::string("error: ") + kErrCompacted);
    EXPECT_EQ(describe(s.range("", kAll, {.rev = 13})), "rev=14 count=1 k=v9@2/11/v10");
    EXPECT_EQ(describe(s.range("", kAll, {})), "rev=14 count=2 k=v9@2/11/v10 other=y@14/14/v1");
    // Only k@11 (the newest <= 13 of a live key), other@14 and the rows of revision 13 itself (the
    // tombstone of "gone", kept for watchers resuming at the compaction revision) remain.
    size_t rows = 0;
    ASSERT_TRUE(be.range("key", "", "", 0, [&](std::string_view, std::string_view) { return ++rows > 0; }).is_ok());
    EXPECT_EQ(rows, 3u);
  });
}

// etcd's HashKV: the numbers a real etcd 3.4.23 printed for `endpoint hashkv` after the same
// requests on a fresh single member (recorded on loopback, 2026-12-04), compactions included; and
// etcd's compaction edge: a fresh store (compact revision -1) may compact to 0, once.
TEST(KvStore, EtcdHashKvEqualsARealEtcdsAndCompactionStartsBelowZero) {
  World w;
  with_store(w, [](KvStore& s, backend::Backend&) {
    EXPECT_EQ(s.compact_rev(), -1);
    EXPECT_EQ(*s.etcd_hash_kv(0), 1084519789u);  // crc32c("key"): an empty key bucket
    ASSERT_TRUE(s.compact(0).is_ok());
    EXPECT_EQ(s.compact_rev(), 0);
    EXPECT_EQ(s.compact(0).message(), kErrCompacted);
    EXPECT_EQ(*s.etcd_hash_kv(0), 1084519789u);
    put(s, "a", "1");  // 2
    put(s, "b", "2");  // 3
    del(s, "a");       // 4
    put(s, "c", "3");  // 5
    EXPECT_EQ(*s.etcd_hash_kv(0), 878850413u);
    EXPECT_EQ(*s.etcd_hash_kv(3), 1827592406u);
    EXPECT_EQ(s.etcd_hash_kv(6).status().message(), kErrFutureRev);
    ASSERT_TRUE(s.compact(4).is_ok());
    EXPECT_EQ(*s.etcd_hash_kv(0), 4196123440u);
    EXPECT_EQ(*s.etcd_hash_kv(5), 4196123440u);
    EXPECT_EQ(s.etcd_hash_kv(4).status().message(), kErrCompacted);
    put(s, "x", "1");  // 6
    put(s, "y", "1");  // 7
    del(s, "x");       // 8
    del(s, "y");       // 9
    del(s, "c");       // 10
    del(s, "b");       // 11
    ASSERT_TRUE(s.compact(10).is_ok());  // every key deleted: nothing kept, tombstones not hashed
    EXPECT_EQ(*s.etcd_hash_kv(0), 1057586353u);
    put(s, "z", "9");  // 12
    ASSERT_TRUE(s.compact(11).is_ok());
    EXPECT_EQ(*s.etcd_hash_kv(0), 1566541901u);
    EXPECT_EQ(*s.etcd_hash_kv(12), 1566541901u);
  });
}

TEST(KvStore, ReopenRestoresIndexRevisionAndCompaction) {
  World w;
  uint64_t hash_before = 0;
  with_store(w, [&](KvStore& s, backend::Backend&) {
    for (int i = 0; i < 5; ++i) put(s, "k" + std::to_string(i % 2), "v" + std::to_string(i));  // 2..6
    del(s, "k0");                                                                           // 7
    put(s, "k0", "back");                                                                   // 8
    ASSERT_TRUE(s.compact(5).is_ok());
    auto h = s.hash_at(8);
    ASSERT_TRUE(h.is_ok());
    hash_before = *h;
  });
  with_store(w, [&](KvStore& s, backend::Backend&) {
    EXPECT_EQ(s.rev(), 8);
    EXPECT_EQ(s.compact_rev(), 5);
    EXPECT_EQ(describe(s.range("", kAll, {})), "rev=8 count=2 k0=back@8/8/v1 k1=v3@3/5/v2");
    EXPECT_EQ(describe(s.range("", kAll, {.rev = 6})), "rev=8 count=2 k0=v4@2/6/v3 k1=v3@3/5/v2");
    auto h = s.hash_at(8);
    ASSERT_TRUE(h.is_ok());
    EXPECT_EQ(*h, hash_before);
    EXPECT_EQ(put(s, "k1", "next"), 9);
    EXPECT_EQ(describe(s.range("k1", "", {})), "rev=9 count=1 k1=next@3/9/v3");
  });
}

std::string describe(const mvccpb::Event& ev) {
  std::string s = ev.type() == mvccpb::Event::DELETE ? "DELETE " : "PUT ";
  if (ev.type() == mvccpb::Event::DELETE) {
    // etcd's DELETE event carries only the key and the deletion's revision.
    mvccpb::KeyValue only;
    only.set_key(ev.kv().key());
    only.set_mod_revision(ev.kv().mod_revision());
    EXPECT_EQ(ev.kv().SerializeAsString(), only.SerializeAsString());
    return s + ev.kv().key() + "@" + std::to_string(ev.kv().mod_revision());
  }
  return s + describe(ev.kv());
}

std::string describe(const Result<std::vector<mvccpb::Event>>& r) {
  if (!r.is_ok()) return "error: " + r.status().message();
  std::string s;
  for (const auto& ev : *r) s += (s.empty() ? "" : ", ") + describe(ev);
  return s;
}

TEST(KvStore, HistoryReturnsEveryChangeOfTheRangeInRevisionOrder) {
  World w;
  with_store(w, [](KvStore& s, backend::Backend&) {
    put(s, "a", "1");  // 2
    put(s, "b", "1");  // 3
    {
      WriteTxn t = s.write();  // 4: two changes in one revision
      ASSERT_TRUE(t.put("a", "2", 0).is_ok());
      ASSERT_TRUE(t.delete_range("b", "").is_ok());
      EXPECT_EQ(t.end(), 4);
    }
    put(s, "c", "1");  // 5
    EXPECT_EQ(describe(s.history("", kAll, 1, 5)),
              "PUT a=1@2/2/v1, PUT b=1@3/3/v1, PUT a=2@2/4/v2, DELETE b@4, PUT c=1@5/5/v1");
    EXPECT_EQ(describe(s.history("b", "", 1, 5)), "PUT b=1@3/3/v1, DELETE b@4");
    EXPECT_EQ(describe(s.history("a", "c", 3, 4)), "PUT b=1@3/3/v1, PUT a=2@2/4/v2, DELETE b@4");
    EXPECT_EQ(describe(s.history("", kAll, 5, 4)), "");
    EXPECT_EQ(describe(s.history("", kAll, 5, 6)), std::string("error: ") + kErrFutureRev);
    auto wide = s.history("", kAll, 1, 1 + limits::kWatchSyncRevisionsMax);
    EXPECT_EQ(wide.status().code(), StatusCode::kInvalidArgument);
    ASSERT_TRUE(s.compact(3).is_ok());
    EXPECT_EQ(describe(s.history("", kAll, 2, 5)), std::string("error: ") + kErrCompacted);
    EXPECT_EQ(describe(s.history("", kAll, 3, 5)),
              "PUT b=1@3/3/v1, PUT a=2@2/4/v2, DELETE b@4, PUT c=1@5/5/v1");
  });
}

TEST(KvStore, ObserverSeesEachPublishedRevisionWithItsEvents) {
  World w;
  with_store(w, [](KvStore& s, backend::Backend&) {
    std::vector<std::string> seen;
    s.set_observer([&](const std::vector<mvccpb::Event>& events, int64_t rev) {
      EXPECT_EQ(s.rev(), rev);  // published before the observer runs
      std::string line = std::to_string(rev) + ":";
      for (const auto& ev : events) line += " " + describe(ev);
      seen.push_back(line);
    });
    put(s, "a", "1");
    del(s, "nonexist");  // no change, no revision, no call
    {
      WriteTxn t = s.write();
      ASSERT_TRUE(t.put("b", "2", 0).is_ok());
      ASSERT_TRUE(t.delete_range("a", "").is_ok());
      t.end();
    }
    s.set_observer(nullptr);
    put(s, "c", "3");
    EXPECT_EQ(seen, (std::vector<std::string>{"2: PUT a=1@2/2/v1", "3: PUT b=2@3/3/v1 DELETE a@3"}));
  });
}

// etcd #18089 / #19179: a key deleted at exactly the compaction revision C. A watcher resuming at C
// must still get the DELETE, so the tombstone row must survive compaction (and a reopen), while
// the index forgets the key and reads at >= C see it gone.
TEST(KvStore, DeleteAtTheCompactionRevisionStaysInHistoryAcrossReopen) {
  World w;
  with_store(w, [](KvStore& s, backend::Backend&) {
    put(s, "k", "1");      // 2
    put(s, "other", "x");  // 3
    EXPECT_EQ(del(s, "k"), 4);
    ASSERT_TRUE(s.compact(4).is_ok());
    EXPECT_EQ(describe(s.history("k", "", 4, 4)), "DELETE k@4");
    EXPECT_EQ(describe(s.history("", kAll, 4, 4)), "DELETE k@4");
    EXPECT_EQ(describe(s.range("", kAll, {.rev = 4})), "rev=4 count=1 other=x@3/3/v1");
    EXPECT_FALSE(s.index().get("k", 4).has_value());
  });
  with_store(w, [](KvStore& s, backend::Backend& be) {
    EXPECT_EQ(s.rev(), 4);
    EXPECT_EQ(s.compact_rev(), 4);
    EXPECT_EQ(describe(s.history("k", "", 4, 4)), "DELETE k@4");
    EXPECT_EQ(describe(s.range("", kAll, {})), "rev=4 count=1 other=x@3/3/v1");
    EXPECT_EQ(s.index().keys(), 1u);  // the kept tombstone restores nothing
    // The key comes back as a new generation: version 1, created now.
    EXPECT_EQ(put(s, "k", "2"), 5);
    EXPECT_EQ(describe(s.range("k", "", {})), "rev=5 count=1 k=2@5/5/v1");
    // The next compaction drops the old tombstone like any other row.
    ASSERT_TRUE(s.compact(5).is_ok());
    EXPECT_EQ(describe(s.history("k", "", 4, 5)), std::string("error: ") + kErrCompacted);
    EXPECT_EQ(describe(s.history("k", "", 5, 5)), "PUT k=2@5/5/v1");
    size_t rows = 0;
    ASSERT_TRUE(be.range("key", "", "", 0, [&](std::string_view, std::string_view) { return ++rows > 0; }).is_ok());
    EXPECT_EQ(rows, 2u);  // other@3 and k@5
  });
  with_store(w, [](KvStore& s, backend::Backend&) {
    EXPECT_EQ(describe(s.range("", kAll, {})), "rev=5 count=2 k=2@5/5/v1 other=x@3/3/v1");
    EXPECT_EQ(describe(s.history("", kAll, 5, 5)), "PUT k=2@5/5/v1");
  });
}

// Revisions 2 and 3 put "k", 4 deletes it; then what compact(4) writes before touching any row
// (scheduledCompactRev), as if the process died right after.
void delete_at_4_and_schedule_its_compaction(KvStore& s, backend::Backend& be) {
  put(s, "k", "1");  // 2
  put(s, "k", "2");  // 3
  del(s, "k");       // 4
  std::string four(8, '\0');
  four[7] = 4;
  ASSERT_TRUE(be.put("meta", "scheduledCompactRev", four).is_ok());
}

// A crash between scheduling and finishing a compaction at a deletion's revision: the reopened
// store finishes it and still keeps the tombstone of revision C.
TEST(KvStore, InterruptedCompactionAtADeletionKeepsItsTombstone) {
  World w;
  with_store(w, [](KvStore& s, backend::Backend& be) {
    delete_at_4_and_schedule_its_compaction(s, be);
  });
  with_store(w, [](KvStore& s, backend::Backend& be) {
    EXPECT_EQ(s.compact_rev(), 4);
    EXPECT_EQ(describe(s.history("", kAll, 4, 4)), "DELETE k@4");
    size_t rows = 0;
    ASSERT_TRUE(be.range("key", "", "", 0, [&](std::string_view, std::string_view) { return ++rows > 0; }).is_ok());
    EXPECT_EQ(rows, 1u);
    EXPECT_EQ(describe(s.range("", kAll, {})), "rev=4 count=0");
  });
}

// etcd #17780. The newest revision is a deletion and a compaction at exactly that revision is
// interrupted by a power loss after its batch of deletions (kFaultAfterCompactionBatch), before
// finishedCompactRev. Describes the store as it reopens: its revision, its compaction revision,
// and the revision the next write gets.
std::string reopen_after_crash_compacting_newest_tombstone(StoreOptions options) {
  World w;
  bool crashed = false;
  auto crash_after_batch = [&](std::string_view point) {
    if (point != kFaultAfterCompactionBatch) return;
    crashed = true;
    w.sim.kill(w.sim.current_process(), sim::KillOptions{.lose_unsynced = true});
    ADD_FAILURE() << "a killed process's fiber kept running";
  };
  bool finished = w.run([&] {
    auto be = backend::Backend::open(w.env(), "n1/backend.db");
    ASSERT_TRUE(be.is_ok()) << be.status().to_string();
    auto store = KvStore::open(**be, crash_after_batch, options);
    ASSERT_TRUE(store.is_ok()) << store.status().to_string();
    put(**store, "k", "1");      // 2
    put(**store, "other", "x");  // 3
    EXPECT_EQ(del(**store, "k"), 4);
    ASSERT_TRUE((*be)->commit().is_ok());  // all three revisions are durable
    (void)(*store)->compact(4);            // dies at the fault point
  });
  EXPECT_FALSE(finished);
  EXPECT_TRUE(crashed);
  w.p = w.sim.start_process(w.h, "node");
  std::string out;
  EXPECT_TRUE(w.run([&] {
    auto be = backend::Backend::open(w.env(), "n1/backend.db");
    ASSERT_TRUE(be.is_ok()) << be.status().to_string();
    auto store = KvStore::open(**be, {}, options);  // finishes the compaction
    ASSERT_TRUE(store.is_ok()) << store.status().to_string();
    out = "rev=" + std::to_string((*store)->rev()) + " compacted=" + std::to_string((*store)->compact_rev());
    out += " next write=" + std::to_string(put(**store, "new", "y"));
  }));
  return out;
}

TEST(KvStore, CrashCompactingTheNewestTombstoneKeepsTheRevision) {
  // Our compaction keeps the tombstone at the compaction revision and commits nothing before it
  // finishes (Raft applies the compaction again): the store reopens at revision 4.
  EXPECT_EQ(reopen_after_crash_compacting_newest_tombstone({}), "rev=4 compacted=-1 next write=5");
}

TEST(KvStore, BugCompactionRevisionDecreaseReopensAtALowerRevision) {
  // With etcd's compaction (tombstone at the compaction revision dropped, deletions committed
  // before the finish) and etcd's restore before #17780: the newest row is gone, only
  // scheduledCompactRev remembers revision 4, and it is ignored: the store goes back to 3 (the
  // compaction to 4 is now "in the future" and dropped) and hands revision 4 out a second time.
  EXPECT_EQ(reopen_after_crash_compacting_newest_tombstone({.bugs = Bugs::of(Bug::kCompactionRevisionDecrease)}),
            "rev=3 compacted=-1 next write=4");
}

// What etcd's crash left on disk (the newest row, a tombstone, deleted; scheduledCompactRev
// written; finishedCompactRev not): the correct restore still opens at the compaction revision.
TEST(KvStore, RestoreRaisesTheRevisionToTheScheduledCompaction) {
  World w;
  with_store(w, [](KvStore& s, backend::Backend& be) {
    delete_at_4_and_schedule_its_compaction(s, be);
    ASSERT_TRUE(be.del("key", encode_revision(Revision{4, 0}, true)).is_ok());
  });
  with_store(w, [](KvStore& s, backend::Backend&) {
    EXPECT_EQ(s.rev(), 4);
    EXPECT_EQ(s.compact_rev(), 4);
    EXPECT_EQ(put(s, "k", "3"), 5);
  });
}

}  // namespace
}  // namespace dst::mvcc
