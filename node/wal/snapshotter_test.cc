// Snapshot files (snapshotter.h): durable save, newest-first loading that skips broken files,
// load by (index, term), purging old files; and the node's restart path of falling back to an
// older snapshot and opening the WAL from its marker.
#include "node/wal/snapshotter.h"

#include <gtest/gtest.h>

#include "node/wal/wal.h"
#include "node/wal/wal_test_util.h"

namespace dst::wal {
namespace {

using testing::kDir;
using testing::World;

raftpb::Snapshot snapshot(uint64_t index, uint64_t term, std::string data = "") {
  raftpb::Snapshot s;
  s.set_data(data.empty() ? "state@" + std::to_string(index) : data);
  s.mutable_metadata()->set_index(index);
  s.mutable_metadata()->set_term(term);
  s.mutable_metadata()->mutable_conf_state()->add_voters(1);
  s.mutable_metadata()->mutable_conf_state()->add_voters(2);
  s.mutable_metadata()->mutable_conf_state()->add_learners(5);
  return s;
}

Status save(World& w, const raftpb::Snapshot& s) {
  Status st(StatusCode::kUnavailable, "not run");
  w.run([&] { st = Snapshotter(w.fs, kDir).save(s); });
  return st;
}

Result<NewestSnapshot> load_newest(World& w) {
  std::optional<Result<NewestSnapshot>> got;
  w.run([&] { got.emplace(Snapshotter(w.fs, kDir).load_newest()); });
  EXPECT_TRUE(got.has_value());
  return std::move(*got);
}

std::string file_of(uint64_t index, uint64_t term) {
  return snapshot_file_name(kDir, SnapshotName{term, index});
}

TEST(Snapshotter, SaveIsDurableAndLoadsBackWhole) {
  World w;
  ASSERT_TRUE(save(w, snapshot(10, 2, std::string(5000, 'k'))).is_ok());
  w.power_loss();
  Result<NewestSnapshot> got = load_newest(w);
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  ASSERT_TRUE(got->snapshot.has_value());
  EXPECT_TRUE(got->broken.empty());
  EXPECT_EQ(got->snapshot->SerializeAsString(),
            snapshot(10, 2, std::string(5000, 'k')).SerializeAsString());
  EXPECT_TRUE(w.fs.exists("n1/snap/0000000000000002-000000000000000a.snap"));
}

TEST(Snapshotter, NoSnapshotIsNotAnError) {
  World w;
  Result<NewestSnapshot> got = load_newest(w);
  ASSERT_TRUE(got.is_ok());
  EXPECT_FALSE(got->snapshot.has_value());
}

TEST(Snapshotter, NewestOfSeveralWins) {
  World w;
  for (uint64_t i : {5, 20, 10}) ASSERT_TRUE(save(w, snapshot(i, 1)).is_ok());
  ASSERT_TRUE(save(w, snapshot(15, 2)).is_ok());  // a later term is newer
  Result<NewestSnapshot> got = load_newest(w);
  ASSERT_TRUE(got.is_ok());
  ASSERT_TRUE(got->snapshot.has_value());
  EXPECT_EQ(got->snapshot->metadata().index(), 15u);
}

TEST(Snapshotter, CorruptedNewestFallsBackToAnOlderOneAndIsReported) {
  World w;
  ASSERT_TRUE(save(w, snapshot(5, 1)).is_ok());
  ASSERT_TRUE(save(w, snapshot(9, 1)).is_ok());
  ASSERT_TRUE(save(w, snapshot(12, 1)).is_ok());
  const std::string newest = file_of(12, 1);
  const uint64_t size = w.disk().durable_content(newest)->size();
  ASSERT_TRUE(w.disk().flip_bits(newest, 0, size, 3).is_ok());
  // And the second newest lost its tail.
  const std::string second = file_of(9, 1);
  const sim::FileId id = *w.fs.open(second, sim::OpenMode::kExisting);
  ASSERT_TRUE(w.disk().truncate(id, 10).is_ok());
  Result<NewestSnapshot> got = load_newest(w);
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  ASSERT_TRUE(got->snapshot.has_value());
  EXPECT_EQ(got->snapshot->metadata().index(), 5u);
  ASSERT_EQ(got->broken.size(), 2u);
  EXPECT_NE(got->broken[0].find(newest), std::string::npos) << got->broken[0];
  EXPECT_NE(got->broken[1].find(second), std::string::npos) << got->broken[1];
  // Broken files are evidence: left in place.
  EXPECT_TRUE(w.fs.exists(newest));
}

TEST(Snapshotter, AllBrokenMeansNoSnapshot) {
  World w;
  ASSERT_TRUE(save(w, snapshot(5, 1)).is_ok());
  const sim::FileId id = *w.fs.open(file_of(5, 1), sim::OpenMode::kExisting);
  ASSERT_TRUE(w.disk().truncate(id, 0).is_ok());
  Result<NewestSnapshot> got = load_newest(w);
  ASSERT_TRUE(got.is_ok());
  EXPECT_FALSE(got->snapshot.has_value());
  EXPECT_EQ(got->broken.size(), 1u);
}

TEST(Snapshotter, LoadByIndexAndTerm) {
  World w;
  ASSERT_TRUE(save(w, snapshot(5, 1)).is_ok());
  ASSERT_TRUE(save(w, snapshot(9, 2)).is_ok());
  ASSERT_TRUE(w.disk().flip_bits(file_of(9, 2), 4, 8, 2).is_ok());
  w.run([&] {
    Snapshotter snap(w.fs, kDir);
    Result<raftpb::Snapshot> five = snap.load(5, 1);
    ASSERT_TRUE(five.is_ok()) << five.status().to_string();
    EXPECT_EQ(five->data(), "state@5");
    EXPECT_EQ(snap.load(5, 2).status().code(), StatusCode::kNotFound);
    const Result<raftpb::Snapshot> nine = snap.load(9, 2);
    EXPECT_EQ(nine.status().code(), StatusCode::kCorruption);
    EXPECT_NE(nine.status().message().find(file_of(9, 2)), std::string::npos);
  });
}

TEST(Snapshotter, FileWhoseContentDoesNotMatchItsNameIsBroken) {
  World w;
  ASSERT_TRUE(save(w, snapshot(5, 1)).is_ok());
  ASSERT_TRUE(w.disk().rename(file_of(5, 1), file_of(6, 1)).is_ok());
  Result<NewestSnapshot> got = load_newest(w);
  ASSERT_TRUE(got.is_ok());
  EXPECT_FALSE(got->snapshot.has_value());
  ASSERT_EQ(got->broken.size(), 1u);
  EXPECT_NE(got->broken[0].find("not its name's"), std::string::npos) << got->broken[0];
}

TEST(Snapshotter, RemoveOlderKeepsTheNewestK) {
  World w;
  for (uint64_t i = 1; i <= 7; ++i) ASSERT_TRUE(save(w, snapshot(i * 10, 1)).is_ok());
  ASSERT_TRUE(w.disk().open(file_of(80, 1) + ".tmp", sim::OpenMode::kCreate).is_ok());
  Status st;
  w.run([&] { st = Snapshotter(w.fs, kDir).remove_older(3); });
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(w.fs.list("n1/snap/"),
            (std::vector<std::string>{file_of(50, 1), file_of(60, 1), file_of(70, 1)}));
  w.run([&] { st = Snapshotter(w.fs, kDir).remove_older(0); });
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
}

TEST(Snapshotter, SnapshotAtIndexZeroIsRefused) {
  World w;
  EXPECT_EQ(save(w, snapshot(0, 0)).code(), StatusCode::kInvalidArgument);
}

TEST(Snapshotter, FsyncErrorIsReturnedAndNoNameAppears) {
  World w;
  w.disk().fail_fsyncs(1);
  EXPECT_EQ(save(w, snapshot(5, 1)).code(), StatusCode::kIoError);
  EXPECT_FALSE(w.fs.exists(file_of(5, 1)));
}

TEST(Snapshotter, PowerLossDuringSaveLeavesThePreviousSnapshot) {
  World w;
  ASSERT_TRUE(save(w, snapshot(5, 1)).is_ok());
  // Die while the new snapshot's fsync is in flight (fsyncs take 2 ms in World).
  w.sim.spawn(w.p, "saver", [&] { (void)Snapshotter(w.fs, kDir).save(snapshot(9, 1)); });
  w.sim.run_for(sim::milliseconds(1));
  w.power_loss(/*torn=*/true);
  w.sim.run_until_idle();
  Result<NewestSnapshot> got = load_newest(w);
  ASSERT_TRUE(got.is_ok());
  ASSERT_TRUE(got->snapshot.has_value());
  EXPECT_EQ(got->snapshot->metadata().index(), 5u);
  EXPECT_TRUE(got->broken.empty());
}

// The restart path of a node: the newest snapshot file is broken, so it falls back to the older
// one and replays the WAL from that snapshot's marker.
TEST(Snapshotter, NodeRestartFallsBackToAnOlderSnapshotAndItsWalMarker) {
  World w;
  w.run([&] {
    Snapshotter snap(w.fs, kDir);
    Result<std::unique_ptr<Wal>> wal = Wal::create(w.fs, kDir, testing::metadata());
    ASSERT_TRUE(wal.is_ok());
    ASSERT_TRUE((*wal)->save(nullptr, testing::entries(1, 12, 1), true).is_ok());
    for (uint64_t index : {4, 8}) {
      ASSERT_TRUE(snap.save(snapshot(index, 1)).is_ok());  // file first, then the marker
      ASSERT_TRUE((*wal)->save_snapshot_marker(index, 1).is_ok());
    }
  });
  w.power_loss();
  ASSERT_TRUE(w.disk().flip_bits(file_of(8, 1), 2, 6, 1).is_ok());
  w.run([&] {
    Result<NewestSnapshot> newest = Snapshotter(w.fs, kDir).load_newest();
    ASSERT_TRUE(newest.is_ok());
    ASSERT_TRUE(newest->snapshot.has_value());
    EXPECT_EQ(newest->broken.size(), 1u);
    OpenOptions from;
    from.snapshot.emplace();
    from.snapshot->set_index(newest->snapshot->metadata().index());
    from.snapshot->set_term(newest->snapshot->metadata().term());
    Result<OpenResult> opened = Wal::open(w.fs, kDir, {}, from);
    ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
    EXPECT_EQ(testing::describe(opened->entries), testing::describe_range(5, 12, 1));
  });
}

}  // namespace
}  // namespace dst::wal
