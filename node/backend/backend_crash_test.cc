// The Backend under crashes and disk faults: what a power loss keeps, failed fsyncs, a full disk,
// decayed bits, a kill while a fiber is blocked inside SQLite, and a randomized model check that
// the store always equals the model at its committed applied index (so a restarted node replays
// exactly the entries not yet applied).
#include <gtest/gtest.h>

#include "base/hash.h"
#include "node/backend/backend.h"
#include "node/backend/backend_test_util.h"

namespace dst::backend {
namespace {

using testing::Contents;
using testing::dump;
using testing::in_fiber;
using testing::open_backend;
using testing::World;

// Puts `n` keys "<prefix><i>" and commits with applied index `applied`.
Status write_batch(Backend& b, const std::string& prefix, int n, uint64_t applied) {
  for (int i = 0; i < n; ++i) {
    if (Status s = b.put("key", prefix + std::to_string(i), std::string(300, 'v')); !s.is_ok()) {
      return s;
    }
  }
  if (Status s = b.set_applied(applied); !s.is_ok()) return s;
  return b.commit();
}

TEST(BackendCrash, UncommittedBatchIsLostOnPowerLossCommittedOneKept) {
  for (bool torn : {false, true}) {
    World w(torn ? 3 : 4);
    std::unique_ptr<Backend> b = open_backend(w);
    ASSERT_TRUE(in_fiber(w, [&] { return write_batch(*b, "c", 50, 5); }).is_ok());
    const Contents committed = dump(w, *b);
    w.run([&] {
      // Big enough to spill pages into the SQLite WAL before any commit record.
      for (int i = 0; i < 5000; ++i) ASSERT_TRUE(b->put("key", "u" + std::to_string(i), std::string(2000, 'u')).is_ok());
      ASSERT_TRUE(b->set_applied(6).is_ok());
    });
    w.power_loss(torn);
    b.reset();  // the dead process's Backend is abandoned without I/O
    b = open_backend(w);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->applied_index(), 5u);
    EXPECT_EQ(dump(w, *b), committed);
  }
}

TEST(BackendCrash, ProcessCrashLosesTheOpenBatchAndOpenMakesTheRestDurable) {
  World w;
  std::unique_ptr<Backend> b = open_backend(w);
  w.disk().set_fsync_latency(sim::DurationDist::constant(sim::milliseconds(20)));
  // Kill the process while its commit waits for the fsync: the commit record is in the page cache
  // but not durable. A process crash keeps the cache, so the batch is visible after reopening, and
  // open() must make it durable before the node acts on it.
  w.sim.spawn(w.p, "committer", [&] { (void)write_batch(*b, "a", 20, 7); });
  w.sim.run_for(sim::milliseconds(5));
  ASSERT_GT(w.disk().stats().bytes_written, 0u);
  w.process_crash();  // unwinds the committer from inside SQLite's fsync
  b.reset();
  b = open_backend(w);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->applied_index(), 7u);
  const Contents seen = dump(w, *b);
  b.reset();
  w.power_loss(/*torn=*/true);
  b = open_backend(w);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->applied_index(), 7u);
  EXPECT_EQ(dump(w, *b), seen);
}

TEST(BackendCrash, FailedFsyncFailsTheBackendAndLosesOnlyThatBatch) {
  World w;
  std::unique_ptr<Backend> b = open_backend(w);
  ASSERT_TRUE(in_fiber(w, [&] { return write_batch(*b, "a", 10, 1); }).is_ok());
  const Contents good = dump(w, *b);
  w.disk().fail_fsyncs(1);
  Status st = in_fiber(w, [&] { return write_batch(*b, "b", 10, 2); });
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_NE(st.message().find("SQLITE_IOERR_FSYNC"), std::string::npos) << st.to_string();
  EXPECT_NE(st.message().find("COMMIT"), std::string::npos) << st.to_string();
  EXPECT_NE(st.message().find("disk:"), std::string::npos) << st.to_string();
  EXPECT_EQ(b->failure(), st);
  w.run([&] {
    EXPECT_EQ(b->put("key", "c", "1"), st);  // sticky: the node must restart
    EXPECT_EQ(b->get("key", "a0").status(), st);
  });
  EXPECT_EQ(b->committed_applied_index(), 1u);
  b.reset();
  w.power_loss();
  b = open_backend(w);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->applied_index(), 1u);
  EXPECT_EQ(dump(w, *b), good);
}

TEST(BackendCrash, FullDiskIsNoSpaceAndFailsTheBackend) {
  World w;
  std::unique_ptr<Backend> b = open_backend(w);
  ASSERT_TRUE(in_fiber(w, [&] { return write_batch(*b, "a", 10, 1); }).is_ok());
  w.disk().set_full(true);
  Status st = in_fiber(w, [&] { return write_batch(*b, "b", 10, 2); });
  EXPECT_EQ(st.code(), StatusCode::kNoSpace) << st.to_string();
  EXPECT_NE(st.message().find("SQLITE_FULL"), std::string::npos) << st.to_string();
  EXPECT_FALSE(b->failure().is_ok());
  b.reset();
  w.disk().set_full(false);
  w.process_crash();
  b = open_backend(w);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->applied_index(), 1u);
}

// Flips bits across the database file's data pages after everything is checkpointed into it.
void write_and_flip(World& w, int bits) {
  std::unique_ptr<Backend> b = open_backend(w);
  ASSERT_TRUE(in_fiber(w, [&] { return write_batch(*b, "a", 200, 1); }).is_ok());
  ASSERT_TRUE(in_fiber(w, [&] { return b->close(); }).is_ok());
  Result<sim::FileId> db = w.fs.open(testing::kPath, sim::OpenMode::kExisting);
  const uint64_t size = *w.fs.size(*db);
  ASSERT_GT(size, 4 * limits::kBackendPageBytes);
  ASSERT_TRUE(w.disk().flip_bits(testing::kPath, limits::kBackendPageBytes,
                                    size - limits::kBackendPageBytes, bits).is_ok());
}

TEST(BackendCrash, BitFlipInTheDatabaseFileIsACorruptionError) {
  World w;
  write_and_flip(w, 1);
  Result<std::unique_ptr<Backend>> opened = testing::try_open(w);
  ASSERT_FALSE(opened.is_ok());
  EXPECT_EQ(opened.status().code(), StatusCode::kCorruption) << opened.status().to_string();
  EXPECT_NE(opened.status().message().find("checksum"), std::string::npos)
      << opened.status().to_string();
}

TEST(BackendCrash, BitFlipFoundByAReadWhenOpenDoesNotCheck) {
  World w(5);
  write_and_flip(w, 1);
  BackendOptions options;
  options.check_on_open = false;
  std::unique_ptr<Backend> b = open_backend(w, options);
  ASSERT_NE(b, nullptr);
  w.run([&] {
    Result<uint64_t> h = b->hash();
    ASSERT_FALSE(h.is_ok());
    EXPECT_EQ(h.status().code(), StatusCode::kCorruption) << h.status().to_string();
  });
  EXPECT_GT(b->vfs_stats().checksum_failures, 0u);
}

// --- randomized crash/recovery against a model ---------------------------------------------------

// What the test knows across incarnations of the node.
struct Model {
  std::map<uint64_t, Contents> at_index;  // contents as of each applied index that began a commit
  uint64_t acked = 0;                     // highest applied index whose commit returned ok
  uint64_t recoveries = 0;
  uint64_t commits = 0;
};

// One incarnation: open, check the recovered state against the model, then apply random entries
// and commit at random points until killed or a fault fails the backend.
void incarnation(World& w, Model& m, sim::Rng& rng) {
  Result<std::unique_ptr<Backend>> opened = Backend::open(w.env(), testing::kPath);
  if (!opened.is_ok()) {
    // Only injected faults may fail an open.
    ASSERT_EQ(opened.status().code(), StatusCode::kIoError) << opened.status().to_string();
    return;
  }
  Backend& b = **opened;
  const uint64_t applied = b.committed_applied_index();
  ASSERT_GE(applied, m.acked) << "an acknowledged commit was lost";
  ASSERT_EQ(m.at_index.count(applied), 1u) << "applied index " << applied << " never committed";
  Result<Contents> got = testing::dump_in_fiber(b, {"key"});
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  ASSERT_EQ(*got, m.at_index[applied]) << "store differs from the model at index " << applied;
  ++m.recoveries;
  // Entries after `applied` were lost: the node will apply (new) entries with those indexes.
  m.at_index.erase(m.at_index.upper_bound(applied), m.at_index.end());
  m.acked = applied;
  Contents model = m.at_index[applied];
  for (uint64_t index = applied + 1;; ++index) {
    const int ops = static_cast<int>(rng.uniform_int(1, 8));
    for (int i = 0; i < ops; ++i) {
      const std::string key = "k" + std::to_string(rng.uniform_int(0, 150));
      Status st;
      if (rng.bernoulli(0.75)) {
        const std::string value(static_cast<size_t>(rng.uniform_int(0, 1500)),
                                static_cast<char>('a' + index % 26));
        st = b.put("key", key, value);
        model["key"][key] = value;
      } else if (rng.bernoulli(0.8)) {
        st = b.del("key", key);
        model["key"].erase(key);
      } else {
        const std::string to = key + "5";
        st = b.del_range("key", key, to);
        auto& rows = model["key"];
        rows.erase(rows.lower_bound(key), rows.lower_bound(to));
      }
      if (!st.is_ok()) return;  // the node would crash here
    }
    if (!b.set_applied(index).is_ok()) return;
    if (rng.bernoulli(0.3)) {
      m.at_index[index] = model;  // a crash during the commit may or may not keep it
      if (!b.commit().is_ok()) return;
      m.acked = index;
      ++m.commits;
    }
  }
}

// Runs incarnations, killing each at a random time in a random way; sometimes an fsync fails.
Model run_crash_loop(uint64_t seed, int rounds) {
  World w(seed);
  w.disk().set_fsync_latency(sim::DurationDist::uniform(sim::microseconds(200), sim::milliseconds(3)));
  sim::Rng rng = sim::Rng::substream(seed, "test/crash-loop");
  Model m;
  m.at_index[0] = Contents{{"key", {}}};
  for (int round = 0; round < rounds; ++round) {
    if (rng.bernoulli(0.15)) w.disk().fail_fsyncs(1);
    w.sim.spawn(w.p, "node", [&] { incarnation(w, m, rng); });
    w.sim.run_for(rng.uniform_int(sim::milliseconds(1), sim::milliseconds(300)));
    if (::testing::Test::HasFatalFailure() || ::testing::Test::HasFailure()) break;
    w.disk().fail_fsyncs(0);
    const int64_t how = rng.uniform_int(0, 2);
    if (how == 0) w.process_crash();
    else w.power_loss(/*torn=*/how == 2);
  }
  w.sim.spawn(w.p, "node", [&] { incarnation(w, m, rng); });  // a last recovery check
  w.sim.run_for(sim::milliseconds(1));
  // Checkpoints ran (the database file holds more than what creating it wrote), so crashes also
  // hit WAL restarts and database writes, not only WAL appends.
  Result<sim::FileId> db = w.fs.open(testing::kPath, sim::OpenMode::kExisting);
  EXPECT_GT(*w.fs.size(*db), 16 * limits::kBackendPageBytes);
  return m;
}

// The sanitizer build, looking for memory errors, runs 4 of the 12 seeds (the 12 took 124 s there).
#ifdef DST_SANITIZER_BUILD
constexpr uint64_t kCrashSeeds = 4;
#else
constexpr uint64_t kCrashSeeds = 12;
#endif

TEST(BackendCrash, RandomCrashesAlwaysRecoverTheModelAtTheAppliedIndex) {
  uint64_t recoveries = 0, commits = 0;
  for (uint64_t seed = 1; seed <= kCrashSeeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Model m = run_crash_loop(seed, 25);
    if (HasFailure()) return;
    recoveries += m.recoveries;
    commits += m.commits;
  }
  EXPECT_GT(recoveries, kCrashSeeds * 20);
  EXPECT_GT(commits, kCrashSeeds * 1000 / 12);
}

TEST(BackendCrash, SameSeedSameTraceAndSameFileBytes) {
  auto run = [](uint64_t seed) {
    World w(seed);
    w.disk().set_fsync_latency(sim::DurationDist::lognormal(sim::milliseconds(2), 0.5));
    sim::Rng rng = sim::Rng::substream(seed, "test/determinism");
    Model m;
    m.at_index[0] = Contents{{"key", {}}};
    w.sim.spawn(w.p, "node", [&] { incarnation(w, m, rng); });
    w.sim.run_for(sim::milliseconds(400));
    w.power_loss(/*torn=*/true);
    w.sim.spawn(w.p, "node", [&] { incarnation(w, m, rng); });
    w.sim.run_for(sim::milliseconds(200));
    return std::make_pair(w.sim.trace().hash(), w.disk().digest());
  };
  const auto a = run(21), b = run(21), c = run(22);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.first, c.first);
}

}  // namespace
}  // namespace dst::backend
