// The WAL's normal life (wal.h): create, save, reopen, what survives crashes, overwrites, segment
// cuts and release, snapshot markers, I/O failures and argument checks. Damage and torn tails are
// in wal_corruption_test.cc. Every test runs the WAL in a fiber of a simulated node process.
#include "node/wal/wal.h"

#include <gtest/gtest.h>

#include "node/wal/wal_test_util.h"

namespace dst::wal {
namespace {

using testing::describe;
using testing::describe_range;
using testing::entries;
using testing::hard_state;
using testing::kDir;
using testing::World;

// Creates a WAL (in a fiber); fails the test if that fails.
std::unique_ptr<Wal> create_wal(World& w, WalOptions options = {}) {
  std::unique_ptr<Wal> wal;
  w.run([&] {
    Result<std::unique_ptr<Wal>> created = Wal::create(w.fs, kDir, testing::metadata(), options);
    ASSERT_TRUE(created.is_ok()) << created.status().to_string();
    wal = std::move(*created);
  });
  EXPECT_NE(wal, nullptr);
  return wal;
}

Result<OpenResult> open_wal(World& w, OpenOptions open_options = {}, WalOptions options = {}) {
  std::optional<Result<OpenResult>> opened;
  w.run([&] { opened.emplace(Wal::open(w.fs, kDir, options, open_options)); });
  EXPECT_TRUE(opened.has_value());
  return std::move(*opened);
}

// Saves in a fiber and returns the status.
Status save(World& w, Wal& wal, const raftpb::HardState* hs,
            const std::vector<raftpb::Entry>& es, bool sync) {
  Status st(StatusCode::kUnavailable, "not run");
  w.run([&] { st = wal.save(hs, es, sync); });
  return st;
}

// After a process crash: open() returns entries 1..3 of term 1, and since a node may act on what
// open() returned, they must survive a power loss right after it too.
void expect_open_returns_durably_1_to_3(World& w) {
  Result<OpenResult> opened = open_wal(w);
  ASSERT_TRUE(opened.is_ok());
  EXPECT_EQ(describe(opened->entries), describe_range(1, 3, 1));
  opened->wal.reset();
  w.power_loss();
  Result<OpenResult> again = open_wal(w);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(describe(again->entries), describe_range(1, 3, 1));
}

TEST(Wal, CreateThenOpenReturnsTheMetadataAndAnEmptyLog) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w);
  wal.reset();
  w.power_loss();  // create() is durable
  Result<OpenResult> opened = open_wal(w);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(opened->metadata.node_id(), 1u);
  EXPECT_EQ(opened->metadata.cluster_id(), 0xc1u);
  EXPECT_TRUE(opened->entries.empty());
  EXPECT_EQ(opened->snapshot.index(), 0u);
  EXPECT_FALSE(opened->repair.repaired);
  EXPECT_EQ(opened->wal->segment_files(),
            std::vector<std::string>{"n1/wal/0000000000000000-0000000000000001.wal"});
}

TEST(Wal, CreateRefusesAnExistingWalAndOpenNeedsOne) {
  World w;
  EXPECT_EQ(open_wal(w).status().code(), StatusCode::kNotFound);
  create_wal(w);
  w.run([&] {
    EXPECT_EQ(Wal::create(w.fs, kDir, testing::metadata()).status().code(),
              StatusCode::kAlreadyExists);
  });
}

TEST(Wal, EntriesAndHardStateRoundTripAcrossReopen) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w);
  const raftpb::HardState hs1 = hard_state(1, 1, 0), hs2 = hard_state(2, 1, 3);
  ASSERT_TRUE(save(w, *wal, &hs1, entries(1, 3, 1), true).is_ok());
  ASSERT_TRUE(save(w, *wal, &hs2, entries(4, 5, 2), true).is_ok());
  EXPECT_EQ(wal->last_index(), 5u);
  wal.reset();
  w.power_loss();
  Result<OpenResult> opened = open_wal(w);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  std::vector<std::string> want = describe_range(1, 3, 1);
  for (const std::string& s : describe_range(4, 5, 2)) want.push_back(s);
  EXPECT_EQ(describe(opened->entries), want);
  EXPECT_EQ(opened->entries[2].data(), "v3@1");
  EXPECT_TRUE(testing::same_hard_state(opened->hard_state, hs2));
  EXPECT_EQ(opened->wal->last_index(), 5u);
}

TEST(Wal, ReopenedWalAppendsAfterTheOldEntries) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(1, 2, 1), true).is_ok());
  wal.reset();
  Result<OpenResult> opened = open_wal(w);
  ASSERT_TRUE(opened.is_ok());
  ASSERT_TRUE(save(w, *opened->wal, nullptr, entries(3, 4, 1), true).is_ok());
  opened->wal.reset();
  w.power_loss();
  Result<OpenResult> again = open_wal(w);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(describe(again->entries), describe_range(1, 4, 1));
}

TEST(Wal, SyncedRecordsSurvivePowerLossUnsyncedOnesDoNot) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w);
  const raftpb::HardState synced_hs = hard_state(1, 1, 2), unsynced_hs = hard_state(3, 1, 4);
  ASSERT_TRUE(save(w, *wal, &synced_hs, entries(1, 2, 1), true).is_ok());
  ASSERT_TRUE(save(w, *wal, &unsynced_hs, entries(3, 4, 1), false).is_ok());
  wal.reset();
  w.power_loss();
  Result<OpenResult> opened = open_wal(w);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(describe(opened->entries), describe_range(1, 2, 1));
  EXPECT_TRUE(testing::same_hard_state(opened->hard_state, synced_hs));
  EXPECT_FALSE(opened->repair.repaired);  // the lost records were whole writes, not torn
}

TEST(Wal, UnsyncedRecordsSurviveAProcessCrashAndOpenMakesThemDurable) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(1, 3, 1), false).is_ok());
  wal.reset();
  w.process_crash();  // the page cache survives
  expect_open_returns_durably_1_to_3(w);
}

TEST(Wal, ConflictingTailIsReplacedOnReplay) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(1, 5, 1), true).is_ok());
  // A new leader in term 2 overwrites 3..5 with a shorter tail.
  ASSERT_TRUE(save(w, *wal, nullptr, entries(3, 4, 2), true).is_ok());
  EXPECT_EQ(wal->last_index(), 4u);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(5, 5, 2), true).is_ok());
  wal.reset();
  Result<OpenResult> opened = open_wal(w);
  ASSERT_TRUE(opened.is_ok());
  std::vector<std::string> want = describe_range(1, 2, 1);
  for (const std::string& s : describe_range(3, 5, 2)) want.push_back(s);
  EXPECT_EQ(describe(opened->entries), want);
}

TEST(Wal, SaveRefusesEntriesThatDoNotExtendTheLogWithoutFailing) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(1, 2, 1), true).is_ok());
  EXPECT_EQ(save(w, *wal, nullptr, entries(4, 5, 1), true).code(), StatusCode::kInvalidArgument);
  std::vector<raftpb::Entry> holey = {testing::entry(3, 1), testing::entry(5, 1)};
  EXPECT_EQ(save(w, *wal, nullptr, holey, true).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(save(w, *wal, nullptr, entries(0, 0, 1), true).code(), StatusCode::kInvalidArgument);
  const std::vector<raftpb::Entry> huge = {
      testing::entry(3, 1, std::string(limits::kWalRecordBytesMax, 'x'))};
  EXPECT_EQ(save(w, *wal, nullptr, huge, true).code(), StatusCode::kInvalidArgument);
  // Refused arguments wrote nothing, so the WAL is still usable.
  EXPECT_TRUE(wal->failure().is_ok());
  ASSERT_TRUE(save(w, *wal, nullptr, entries(3, 3, 1), true).is_ok());
  wal.reset();
  Result<OpenResult> opened = open_wal(w);
  ASSERT_TRUE(opened.is_ok());
  EXPECT_EQ(describe(opened->entries), describe_range(1, 3, 1));
}

TEST(Wal, InvalidOptionsAreRefused) {
  World w;
  w.run([&] {
    EXPECT_EQ(Wal::create(w.fs, kDir, testing::metadata(), WalOptions{.segment_bytes = 0})
                  .status()
                  .code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(Wal::open(w.fs, kDir, WalOptions{.segment_bytes = limits::kWalSegmentBytesMax + 1})
                  .status()
                  .code(),
              StatusCode::kInvalidArgument);
  });
}

TEST(Wal, MetadataMismatchIsRefused) {
  World w;
  create_wal(w);
  OpenOptions other;
  other.expected_metadata = testing::metadata(/*node_id=*/2);
  Result<OpenResult> opened = open_wal(w, other);
  EXPECT_EQ(opened.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(opened.status().message().find("belongs to node 1 cluster 193, expected node 2"),
            std::string::npos)
      << opened.status().to_string();
  OpenOptions same;
  same.expected_metadata = testing::metadata();
  EXPECT_TRUE(open_wal(w, same).is_ok());
}

// --- segments ------------------------------------------------------------------------------------

SegmentName name_of(const std::string& file) {
  const std::optional<SegmentName> name =
      parse_segment_name(file.substr(std::string("n1/wal/").size()));
  EXPECT_TRUE(name.has_value()) << file;
  return name.value_or(SegmentName{});
}

TEST(Wal, SegmentsAreCutAtTheSizeLimitAndReadBackInOrder) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w, WalOptions{.segment_bytes = 200});
  const raftpb::HardState hs = hard_state(1, 1, 0);
  for (uint64_t i = 1; i <= 30; ++i) {
    ASSERT_TRUE(save(w, *wal, &hs, entries(i, i, 1), /*sync=*/false).is_ok());
  }
  const std::vector<std::string> files = wal->segment_files();
  ASSERT_GE(files.size(), 4u);
  // Each segment is named after the index that follows the previous segment's last entry, and
  // starts with the metadata and the hard state.
  for (size_t k = 0; k + 1 < files.size(); ++k) {
    EXPECT_EQ(name_of(files[k]).seq, k);
    const SegmentScan scan = testing::scan_file(w, files[k]);
    EXPECT_FALSE(scan.bad.has_value());
    uint64_t last_entry = 0;
    for (const DecodedRecord& r : scan.records) {
      if (r.record.has_entry()) last_entry = r.record.entry().index();
    }
    EXPECT_EQ(last_entry + 1, name_of(files[k + 1]).first_index);
    const SegmentScan next = testing::scan_file(w, files[k + 1]);
    ASSERT_GE(next.records.size(), 2u);
    EXPECT_TRUE(next.records[0].record.has_metadata());
    EXPECT_TRUE(next.records[1].record.has_hard_state());
  }
  wal.reset();
  // Cuts sync the old segment and the directory: every entry before the last cut is durable even
  // though no save asked for sync; the unsynced tail of the last segment is lost.
  w.power_loss();
  Result<OpenResult> opened = open_wal(w, {}, WalOptions{.segment_bytes = 200});
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(describe(opened->entries),
            describe_range(1, name_of(files.back()).first_index - 1, 1));
  EXPECT_EQ(opened->wal->segment_files(), files);
}

TEST(Wal, ReleaseToRemovesOldSegmentsButKeepsTheOneContainingTheIndex) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w, WalOptions{.segment_bytes = 200});
  for (uint64_t i = 1; i <= 60; ++i) {
    ASSERT_TRUE(save(w, *wal, nullptr, entries(i, i, 1), true).is_ok());
  }
  const std::vector<std::string> before = wal->segment_files();
  ASSERT_GE(before.size(), 4u);
  Status st;
  // Entries of segments 0 and 1 are all below the first index of segment 2.
  const uint64_t index = name_of(before[2]).first_index;
  w.run([&] { st = wal->release_to(index - 1); });
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(wal->segment_files(),
            std::vector<std::string>(before.begin() + 1, before.end()));  // 1 holds index-1
  w.run([&] { st = wal->release_to(index); });
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(wal->segment_files(), std::vector<std::string>(before.begin() + 2, before.end()));
  EXPECT_FALSE(w.fs.exists(before[0]));
  EXPECT_FALSE(w.fs.exists(before[1]));
  // Never the current segment, however far the index.
  w.run([&] { st = wal->release_to(1000); });
  ASSERT_TRUE(st.is_ok());
  EXPECT_EQ(wal->segment_files(), std::vector<std::string>{before.back()});
}

TEST(Wal, AfterReleaseReopenStartsAtTheSnapshotWithTheHardState) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w, WalOptions{.segment_bytes = 200});
  const raftpb::HardState hs = hard_state(4, 2, 20);
  ASSERT_TRUE(save(w, *wal, &hs, entries(1, 20, 4), true).is_ok());
  Status st;
  w.run([&] { st = wal->save_snapshot_marker(20, 4); });
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  for (uint64_t i = 21; i <= 40; ++i) {
    ASSERT_TRUE(save(w, *wal, nullptr, entries(i, i, 4), true).is_ok());
  }
  w.run([&] { st = wal->release_to(20); });
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  wal.reset();
  w.power_loss();
  Result<OpenResult> opened = open_wal(w, {}, WalOptions{.segment_bytes = 200});
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(opened->snapshot.index(), 20u);
  EXPECT_EQ(describe(opened->entries), describe_range(21, 40, 4));
  // The hard state was saved before the released segments; segment headers carry it forward.
  EXPECT_TRUE(testing::same_hard_state(opened->hard_state, hs));
}

// --- snapshot markers ----------------------------------------------------------------------------

TEST(Wal, ReplayStartsAfterTheNewestMarkerOrTheGivenSnapshot) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(1, 10, 1), true).is_ok());
  Status st;
  w.run([&] { st = wal->save_snapshot_marker(4, 1); });
  ASSERT_TRUE(st.is_ok());
  w.run([&] { st = wal->save_snapshot_marker(8, 1); });
  ASSERT_TRUE(st.is_ok());
  w.run([&] { st = wal->save_snapshot_marker(6, 1); });
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);  // markers never go backwards
  EXPECT_EQ(save(w, *wal, nullptr, entries(8, 8, 1), true).code(), StatusCode::kInvalidArgument);
  wal.reset();
  w.power_loss();  // markers are synced

  Result<OpenResult> newest = open_wal(w);
  ASSERT_TRUE(newest.is_ok());
  EXPECT_EQ(newest->snapshot.index(), 8u);
  EXPECT_EQ(describe(newest->entries), describe_range(9, 10, 1));
  newest->wal.reset();

  OpenOptions from_older;  // e.g. the newest snapshot file was broken
  from_older.snapshot.emplace();
  from_older.snapshot->set_index(4);
  from_older.snapshot->set_term(1);
  Result<OpenResult> older = open_wal(w, from_older);
  ASSERT_TRUE(older.is_ok()) << older.status().to_string();
  EXPECT_EQ(older->snapshot.index(), 4u);
  EXPECT_EQ(describe(older->entries), describe_range(5, 10, 1));
  older->wal.reset();

  OpenOptions unknown;
  unknown.snapshot.emplace();
  unknown.snapshot->set_index(5);
  unknown.snapshot->set_term(1);
  EXPECT_EQ(open_wal(w, unknown).status().code(), StatusCode::kNotFound);
}

TEST(Wal, MarkerBeyondTheLogLetsAFollowerContinueAfterAnInstalledSnapshot) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(1, 3, 1), true).is_ok());
  Status st;
  w.run([&] { st = wal->save_snapshot_marker(50, 3); });
  ASSERT_TRUE(st.is_ok());
  EXPECT_EQ(wal->last_index(), 50u);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(51, 52, 3), true).is_ok());
  wal.reset();
  Result<OpenResult> opened = open_wal(w);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(describe(opened->entries), describe_range(51, 52, 3));
}

// --- I/O failures --------------------------------------------------------------------------------

TEST(Wal, FsyncErrorFailsTheWalAndLaterWritesAreRefused) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(1, 2, 1), true).is_ok());
  w.disk().fail_fsyncs(1);
  EXPECT_EQ(save(w, *wal, nullptr, entries(3, 4, 1), true).code(), StatusCode::kIoError);
  EXPECT_EQ(wal->failure().code(), StatusCode::kIoError);
  // The device works again, but the WAL does not know what reached the disk: it stays failed.
  const Status later = save(w, *wal, nullptr, entries(5, 5, 1), true);
  EXPECT_EQ(later.code(), StatusCode::kIoError);
  EXPECT_NE(later.message().find("refusing writes after an earlier failure"), std::string::npos);
  Status marker, release;
  w.run([&] {
    marker = wal->save_snapshot_marker(2, 1);
    release = wal->release_to(2);
  });
  EXPECT_EQ(marker.code(), StatusCode::kIoError);
  EXPECT_EQ(release.code(), StatusCode::kIoError);
  // The caller crashes the node; after a power loss the failed batch is gone (Linux forgot the
  // dirty pages of the failed fsync) and the synced one is there.
  wal.reset();
  w.power_loss();
  Result<OpenResult> opened = open_wal(w);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(describe(opened->entries), describe_range(1, 2, 1));
}

TEST(Wal, AfterFsyncErrorAndProcessCrashOpenMakesTheReadBackRecordsDurable) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w);
  w.disk().fail_fsyncs(1);
  EXPECT_EQ(save(w, *wal, nullptr, entries(1, 3, 1), true).code(), StatusCode::kIoError);
  wal.reset();
  // The records still read back from the page cache, and must survive a power loss although a
  // plain fsync would not cover writes a failed fsync already dropped: open() rewrites them.
  w.process_crash();
  expect_open_returns_durably_1_to_3(w);
}

TEST(Wal, DiskFullFailsTheWalAndThePreviousRecordsStayIntact) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(1, 2, 1), true).is_ok());
  w.disk().set_full(true);
  EXPECT_EQ(save(w, *wal, nullptr, entries(3, 4, 1), true).code(), StatusCode::kNoSpace);
  w.disk().set_full(false);
  EXPECT_EQ(save(w, *wal, nullptr, entries(3, 4, 1), true).code(), StatusCode::kNoSpace);
  wal.reset();
  w.process_crash();
  Result<OpenResult> opened = open_wal(w);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(describe(opened->entries), describe_range(1, 2, 1));
  EXPECT_FALSE(opened->repair.repaired);  // a refused write leaves no partial record
  ASSERT_TRUE(save(w, *opened->wal, nullptr, entries(3, 4, 1), true).is_ok());
}

TEST(Wal, DiskFullDuringASegmentCutFailsTheWal) {
  World w;
  std::unique_ptr<Wal> wal = create_wal(w, WalOptions{.segment_bytes = 100});
  // Room for the six 20-byte records (past the cut size) but not for the new segment's header.
  w.disk().set_capacity(w.disk().used_bytes() + 125);
  EXPECT_EQ(save(w, *wal, nullptr, entries(1, 6, 1), true).code(), StatusCode::kNoSpace);
  EXPECT_EQ(wal->failure().code(), StatusCode::kNoSpace);
  EXPECT_EQ(wal->segment_files().size(), 1u);
  wal.reset();
  w.disk().set_capacity(limits::kDiskCapacityBytesDefault);
  w.power_loss();
  // The old segment was synced before the cut; the unfinished segment left only a temp file.
  Result<OpenResult> opened = open_wal(w, {}, WalOptions{.segment_bytes = 100});
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(describe(opened->entries), describe_range(1, 6, 1));
}

}  // namespace
}  // namespace dst::wal

namespace dst::wal {
namespace {

// Found by the KV sweep (seed 3260): a segment header repeats the newest snapshot marker; when that
// marker had reset the log, replaying the copy reset it again and dropped the valid entries saved
// after the original marker in the previous segment (a "gap" at the next restart).
TEST(Wal, ResetMarkerCopiedIntoALaterSegmentHeaderDoesNotResetAgain) {
  World w;
  WalOptions small;
  small.segment_bytes = 200;  // cut after a few entries
  std::unique_ptr<Wal> wal = create_wal(w, small);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(1, 5, 1), true).is_ok());
  Status marked(StatusCode::kUnavailable, "not run");
  w.run([&] { marked = wal->save_snapshot_marker(3, 2, /*reset_log=*/true); });
  ASSERT_TRUE(marked.is_ok()) << marked.to_string();
  ASSERT_TRUE(save(w, *wal, nullptr, entries(4, 12, 2), true).is_ok());  // cuts at least once
  ASSERT_GE(wal->segment_files().size(), 2u);
  wal.reset();
  Result<OpenResult> opened = open_wal(w, OpenOptions{}, small);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(opened->snapshot.index(), 3u);
  EXPECT_EQ(describe(opened->entries), describe_range(4, 12, 2));
}

// Regression (dst swarm_kube seed 56): after release_to() the oldest remaining segment can start
// with a header marker (the newest one at its cut) older than its first entry, the entries between
// having been released with the older segments; a newer marker later in the log covers them. Open
// without a snapshot (the server's fallback when the newest snapshot file lost its marker) must
// start at that newer marker, not report a gap after the header's.
TEST(Wal, OpenAfterTheNewestMarkerIgnoresEntriesReleasedBelowIt) {
  World w;
  WalOptions small;
  small.segment_bytes = 200;  // cut after a few entries
  std::unique_ptr<Wal> wal = create_wal(w, small);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(1, 3, 1), true).is_ok());
  Status st(StatusCode::kUnavailable, "not run");
  w.run([&] { st = wal->save_snapshot_marker(2, 1); });
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  // Segments 0 and 1 and the first entry of segment 2, whose header carries marker 2.
  for (uint64_t i = 4; wal->segment_files().size() < 3; ++i) {
    ASSERT_TRUE(save(w, *wal, nullptr, entries(i, i, 1), true).is_ok());
  }
  const std::vector<std::string> files = wal->segment_files();
  const uint64_t first = name_of(files[2]).first_index;
  ASSERT_GT(first, 4u);
  ASSERT_TRUE(save(w, *wal, nullptr, entries(first, first + 1, 1), true).is_ok());
  ASSERT_EQ(wal->segment_files().size(), 3u);
  w.run([&] { st = wal->save_snapshot_marker(first, 1); });
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  w.run([&] { st = wal->release_to(first); });
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(wal->segment_files(), std::vector<std::string>{files[2]});
  wal.reset();  // a process crash: the removals stay (a later cut's sync_dir would keep them too)
  Result<OpenResult> opened = open_wal(w, OpenOptions{}, small);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(opened->snapshot.index(), first);
  EXPECT_EQ(describe(opened->entries), describe_range(first + 1, first + 1, 1));
}

}  // namespace
}  // namespace dst::wal
