// The Backend's normal life (backend.h): round trips across reopen, byte-ordered ranges, reads of
// the open batch, batching by count and by age, sizes, defragmentation, hashing and argument
// checks. Crashes and disk faults are in backend_crash_test.cc. Every test runs the Backend in a
// fiber of a simulated node process.
#include "node/backend/backend.h"

#include <gtest/gtest.h>

#include "node/backend/backend_test_util.h"

namespace dst::backend {
namespace {

using testing::Contents;
using testing::dump;
using testing::in_fiber;
using testing::open_backend;
using testing::World;

TEST(Backend, RoundTripAcrossCloseAndPowerLoss) {
  World w;
  std::unique_ptr<Backend> b = open_backend(w);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->applied_index(), 0u);
  ASSERT_TRUE(in_fiber(w, [&] {
                if (Status s = b->put("key", "a", "1"); !s.is_ok()) return s;
                if (Status s = b->put("lease", "7", "ttl=5"); !s.is_ok()) return s;
                if (Status s = b->put("key", "empty", ""); !s.is_ok()) return s;
                if (Status s = b->set_applied(3); !s.is_ok()) return s;
                return b->close();
              }).is_ok());
  b.reset();
  w.power_loss();
  b = open_backend(w);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->applied_index(), 3u);
  EXPECT_EQ(b->committed_applied_index(), 3u);
  w.run([&] {
    EXPECT_EQ(b->get("key", "a")->value_or("missing"), "1");
    EXPECT_EQ(b->get("lease", "7")->value_or("missing"), "ttl=5");
    EXPECT_EQ(b->get("key", "empty")->value_or("missing"), "");  // empty, not NULL
    EXPECT_FALSE(b->get("key", "b")->has_value());
    EXPECT_FALSE(b->get("lease", "a")->has_value());  // buckets are separate
  });
}

TEST(Backend, RangeIsInByteOrderIncludingZeroAndFfBytes) {
  World w;
  std::unique_ptr<Backend> b = open_backend(w);
  const std::vector<std::string> keys = {std::string("\xff\xff", 2), "a", std::string("\x00", 1),
                                         "ab", std::string("a\x00", 2), "", std::string("\xff", 1),
                                         std::string("\x00\x00", 2), "\x01", "b", "\x7f", "\x80"};
  std::map<std::string, std::string> model;  // std::string orders bytes as unsigned, like memcmp
  w.run([&] {
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_TRUE(b->put("key", keys[i], std::to_string(i)).is_ok());
      model[keys[i]] = std::to_string(i);
    }
  });
  Contents all = dump(w, *b);
  EXPECT_EQ(all["key"], model);
  // [from, to), a limit, and an early stop by the visitor.
  std::vector<std::string> got;
  auto collect = [&got](std::string_view k, std::string_view) {
    got.emplace_back(k);
    return true;
  };
  w.run([&] {
    ASSERT_TRUE(b->range("key", std::string("\x00", 1), "ab", 0, collect).is_ok());
    EXPECT_EQ(got, (std::vector<std::string>{std::string("\x00", 1), std::string("\x00\x00", 2),
                                             "\x01", "a", std::string("a\x00", 2)}));
    got.clear();
    ASSERT_TRUE(b->range("key", "a", "", 3, collect).is_ok());
    EXPECT_EQ(got, (std::vector<std::string>{"a", std::string("a\x00", 2), "ab"}));
    got.clear();
    ASSERT_TRUE(b->range("key", "\x80", "", 0, [&](std::string_view k, std::string_view) {
                   got.emplace_back(k);
                   return got.size() < 2;
                 }).is_ok());
    EXPECT_EQ(got, (std::vector<std::string>{"\x80", std::string("\xff", 1)}));
  });
}

TEST(Backend, ReadsSeeTheOpenBatchAndDeletes) {
  World w;
  std::unique_ptr<Backend> b = open_backend(w);
  w.run([&] {
    for (char c = 'a'; c <= 'f'; ++c) ASSERT_TRUE(b->put("key", std::string(1, c), "v").is_ok());
    EXPECT_EQ(b->get("key", "c")->value_or(""), "v");  // uncommitted, yet visible
    ASSERT_TRUE(b->del("key", "a").is_ok());
    ASSERT_TRUE(b->del("key", "zz").is_ok());  // deleting a missing key is fine
    ASSERT_TRUE(b->del_range("key", "c", "e").is_ok());
  });
  EXPECT_EQ(dump(w, *b)["key"],
            (std::map<std::string, std::string>{{"b", "v"}, {"e", "v"}, {"f", "v"}}));
  w.run([&] { ASSERT_TRUE(b->del_range("key", "c", "").is_ok()); });
  EXPECT_EQ(dump(w, *b)["key"], (std::map<std::string, std::string>{{"b", "v"}}));
  EXPECT_EQ(b->stats().commits, 0u);
}

TEST(Backend, BatchCommitsByCount) {
  World w;
  BackendOptions options;
  options.batch_limit_ops = 3;
  options.batch_interval_ns = sim::seconds(3600);
  std::unique_ptr<Backend> b = open_backend(w, options);
  w.run([&] {
    EXPECT_FALSE(b->should_commit());
    ASSERT_TRUE(b->put("key", "a", "1").is_ok());
    ASSERT_TRUE(b->set_applied(1).is_ok());
    EXPECT_FALSE(b->should_commit());
    ASSERT_TRUE(b->maybe_commit().is_ok());
    EXPECT_EQ(b->stats().commits, 0u);
    ASSERT_TRUE(b->put("key", "b", "2").is_ok());
    EXPECT_TRUE(b->should_commit());
    ASSERT_TRUE(b->maybe_commit().is_ok());
    EXPECT_EQ(b->stats().commits, 1u);
    EXPECT_EQ(b->stats().ops_committed, 3u);
    EXPECT_EQ(b->pending_ops(), 0u);
    EXPECT_EQ(b->committed_applied_index(), 1u);
    EXPECT_FALSE(b->should_commit());
  });
}

TEST(Backend, BatchCommitsByAgeOnTheHostClock) {
  World w;
  BackendOptions options;
  options.batch_interval_ns = sim::milliseconds(100);
  std::unique_ptr<Backend> b = open_backend(w, options);
  w.run([&] {
    w.sim.sleep(sim::milliseconds(500));  // an idle backend is never due
    EXPECT_FALSE(b->should_commit());
    ASSERT_TRUE(b->put("key", "a", "1").is_ok());
    w.sim.sleep(sim::milliseconds(99));
    EXPECT_FALSE(b->should_commit());
    w.sim.sleep(sim::milliseconds(1));
    EXPECT_TRUE(b->should_commit());
    ASSERT_TRUE(b->maybe_commit().is_ok());
    EXPECT_EQ(b->stats().commits, 1u);
  });
}

TEST(Backend, EmptyCommitDoesNoIo) {
  World w;
  std::unique_ptr<Backend> b = open_backend(w);
  const uint64_t fsyncs = w.disk().stats().fsyncs;
  ASSERT_TRUE(in_fiber(w, [&] { return b->commit(); }).is_ok());
  EXPECT_EQ(w.disk().stats().fsyncs, fsyncs);
  EXPECT_EQ(b->stats().commits, 0u);
}

TEST(Backend, CommitWaitsForTheFsyncAndSlowFsyncSlowsIt) {
  auto commit_time = [](sim::DurationNs fsync) {
    World w;
    w.disk().set_fsync_latency(sim::DurationDist::constant(fsync));
    std::unique_ptr<Backend> b = open_backend(w);
    sim::DurationNs took = 0;
    w.run([&] {
      ASSERT_TRUE(b->put("key", "a", std::string(100, 'x')).is_ok());
      const sim::TimeNs start = w.sim.now();
      ASSERT_TRUE(b->commit().is_ok());
      took = w.sim.now() - start;
    });
    return took;
  };
  const sim::DurationNs fast = commit_time(sim::milliseconds(1));
  const sim::DurationNs slow = commit_time(sim::milliseconds(40));
  EXPECT_GE(fast, sim::milliseconds(1));  // at least the WAL's fsync
  EXPECT_GE(slow, sim::milliseconds(40));
  EXPECT_EQ(slow / sim::milliseconds(40), fast / sim::milliseconds(1));  // the same fsyncs, slower
}

TEST(Backend, ConcurrentCallersWaitForACommitInProgress) {
  World w;
  std::unique_ptr<Backend> b = open_backend(w);
  w.disk().set_fsync_latency(sim::DurationDist::constant(sim::milliseconds(30)));
  sim::TimeNs read_done = 0, commit_done = 0;
  w.run([&] {
    ASSERT_TRUE(b->put("key", "a", "1").is_ok());
    w.sim.spawn(w.p, "reader", [&] {
      EXPECT_EQ(b->get("key", "a")->value_or(""), "1");
      read_done = w.sim.now();
    });
    ASSERT_TRUE(b->commit().is_ok());
    commit_done = w.sim.now();
  });
  EXPECT_GT(read_done, 0);
  EXPECT_GE(read_done, commit_done);  // the reader waited for the fiber inside SQLite
}

TEST(Backend, SizesAndDefragmentShrinkTheFileAndKeepContents) {
  World w;
  std::unique_ptr<Backend> b = open_backend(w);
  w.run([&] {
    for (int i = 0; i < 2000; ++i) {
      ASSERT_TRUE(b->put("key", "k" + std::to_string(100000 + i), std::string(400, 'v')).is_ok());
    }
    ASSERT_TRUE(b->commit().is_ok());
    for (int i = 0; i < 2000; ++i) {
      if (i % 10 != 0) {
        ASSERT_TRUE(b->del("key", "k" + std::to_string(100000 + i)).is_ok());
      }
    }
    ASSERT_TRUE(b->set_applied(9).is_ok());
    ASSERT_TRUE(b->commit().is_ok());
  });
  uint64_t size_before = 0, in_use_before = 0, hash_before = 0;
  w.run([&] {
    size_before = *b->size_bytes();
    in_use_before = *b->size_in_use();
    hash_before = *b->hash();
  });
  EXPECT_GT(size_before, 2000u * 400);
  EXPECT_LT(in_use_before, size_before / 4);  // the deleted rows' pages are free
  EXPECT_EQ(size_before % limits::kBackendPageBytes, 0u);
  const Contents before = dump(w, *b);
  ASSERT_TRUE(in_fiber(w, [&] { return b->defragment(); }).is_ok());
  uint64_t size_after = 0;
  w.run([&] { size_after = *b->size_bytes(); });
  EXPECT_LT(size_after, size_before / 4);
  Result<sim::FileId> db = w.fs.open(testing::kPath, sim::OpenMode::kExisting);
  EXPECT_EQ(*w.fs.size(*db), size_after);  // the file itself shrank
  EXPECT_EQ(dump(w, *b), before);
  w.run([&] { EXPECT_EQ(*b->hash(), hash_before); });
  // Still a working backend, durable across a power loss.
  b.reset();
  w.power_loss(/*torn=*/true);
  b = open_backend(w);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(dump(w, *b), before);
  EXPECT_EQ(b->applied_index(), 9u);
}

TEST(Backend, HashDependsOnContentsOnlyNotOnHowTheyWereWritten) {
  auto hash_after = [](bool reverse, bool commit_each) {
    World w(reverse ? 11 : 12);
    std::unique_ptr<Backend> b = open_backend(w);
    uint64_t h = 0;
    w.run([&] {
      for (int n = 0; n < 50; ++n) {
        const int i = reverse ? 49 - n : n;
        ASSERT_TRUE(b->put("key", "k" + std::to_string(i), "v" + std::to_string(i)).is_ok());
        ASSERT_TRUE(b->put("lease", std::to_string(i), "l").is_ok());
        if (commit_each) {
          ASSERT_TRUE(b->commit().is_ok());
        }
      }
      ASSERT_TRUE(b->put("key", "gone", "x").is_ok());
      ASSERT_TRUE(b->del("key", "gone").is_ok());
      h = *b->hash({"key", "lease"});
    });
    return h;
  };
  const uint64_t h = hash_after(false, false);
  EXPECT_EQ(hash_after(true, true), h);
  EXPECT_EQ(hash_after(true, false), h);
  World w;
  std::unique_ptr<Backend> b = open_backend(w);
  w.run([&] {
    ASSERT_TRUE(b->put("key", "k1", "v1").is_ok());
    EXPECT_NE(*b->hash({"key", "lease"}), h);
  });
}

TEST(Backend, ArgumentChecks) {
  World w;
  BackendOptions bad;
  bad.buckets = {"key", "Key; DROP"};
  EXPECT_EQ(testing::try_open(w, bad).status().code(), StatusCode::kInvalidArgument);
  std::unique_ptr<Backend> b = open_backend(w);
  w.run([&] {
    EXPECT_EQ(b->put("key", std::string(limits::kBackendKeyBytesMax + 1, 'k'), "v").code(),
              StatusCode::kInvalidArgument);
    EXPECT_TRUE(b->put("key", std::string(limits::kBackendKeyBytesMax, 'k'), "v").is_ok());
    EXPECT_TRUE(b->failure().is_ok());  // a refused argument does not fail the backend
  });
}

TEST(Backend, CloseMakesItUnusable) {
  World w;
  std::unique_ptr<Backend> b = open_backend(w);
  w.run([&] {
    ASSERT_TRUE(b->close().is_ok());
    EXPECT_EQ(b->put("key", "a", "1").code(), StatusCode::kClosed);
    EXPECT_EQ(b->get("key", "a").status().code(), StatusCode::kClosed);
  });
  EXPECT_FALSE(w.fs.exists(std::string(testing::kPath) + "-wal"));  // close removes the WAL
}

TEST(Backend, FileHasPageChecksumSpace) {
  World w;
  std::unique_ptr<Backend> b = open_backend(w);
  ASSERT_TRUE(in_fiber(w, [&] { return b->close(); }).is_ok());
  Result<std::string> db = w.disk().durable_content(testing::kPath);
  ASSERT_TRUE(db.is_ok());
  ASSERT_GE(db->size(), 100u);
  EXPECT_EQ(db->substr(0, 16), std::string("SQLite format 3\0", 16));
  EXPECT_EQ(static_cast<uint8_t>((*db)[20]), 8);       // reserved bytes per page
  EXPECT_EQ(static_cast<uint8_t>((*db)[18]), 2);       // WAL mode (write version)
  EXPECT_EQ(static_cast<uint8_t>((*db)[16]) << 8 | static_cast<uint8_t>((*db)[17]),
            static_cast<int>(limits::kBackendPageBytes));
}

}  // namespace
}  // namespace dst::backend
