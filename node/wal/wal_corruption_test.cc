// How Wal::open treats damaged logs (wal.h): a torn tail in the last segment is truncated,
// reported and the log stays appendable; damage with valid data after it, damage in an older
// segment, a broken segment header or a missing segment is refused with an error naming the file,
// the byte offset and what was wrong.
#include <gtest/gtest.h>

#include "node/wal/wal.h"
#include "node/wal/wal_test_util.h"

namespace dst::wal {
namespace {

using testing::describe;
using testing::describe_range;
using testing::entries;
using testing::kDir;
using testing::World;

// Writes entries 1..n, each in its own synced save, and closes the WAL.
void write_log(World& w, uint64_t n, WalOptions options = {}) {
  w.run([&] {
    Result<std::unique_ptr<Wal>> wal = Wal::create(w.fs, kDir, testing::metadata(), options);
    ASSERT_TRUE(wal.is_ok()) << wal.status().to_string();
    for (uint64_t i = 1; i <= n; ++i) {
      ASSERT_TRUE((*wal)->save(nullptr, entries(i, i, 1), true).is_ok());
    }
  });
}

Result<OpenResult> open_corrupt_wal(World& w, WalOptions options = {}) {
  std::optional<Result<OpenResult>> opened;
  w.run([&] { opened.emplace(Wal::open(w.fs, kDir, options)); });
  EXPECT_TRUE(opened.has_value());
  return std::move(*opened);
}

std::vector<std::string> segments(World& w) { return w.fs.list("n1/wal/"); }

// Changes a file's durable content outside any process, as decay or a crash would.
void durable_truncate(World& w, const std::string& name, uint64_t size) {
  const sim::FileId id = *w.fs.open(name, sim::OpenMode::kExisting);
  ASSERT_TRUE(w.disk().truncate(id, size).is_ok());
  ASSERT_TRUE(w.disk().complete_fsync(w.disk().begin_fsync(id)).is_ok());
}
void durable_append(World& w, const std::string& name, const std::string& bytes) {
  const sim::FileId id = *w.fs.open(name, sim::OpenMode::kExisting);
  ASSERT_TRUE(w.disk().write(id, *w.disk().size(id), bytes).is_ok());
  ASSERT_TRUE(w.disk().complete_fsync(w.disk().begin_fsync(id)).is_ok());
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// --- torn tails ----------------------------------------------------------------------------------

TEST(WalCorruption, TornLastRecordIsTruncatedAndReported) {
  for (uint64_t keep : {uint64_t{5}, uint64_t{12}}) {  // inside the header, inside the payload
    World w;
    write_log(w, 5);
    const std::string seg = segments(w).back();
    const SegmentScan scan = testing::scan_file(w, seg);
    const uint64_t last = scan.records.back().offset;
    durable_truncate(w, seg, last + keep);
    Result<OpenResult> opened = open_corrupt_wal(w);
    ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
    EXPECT_EQ(describe(opened->entries), describe_range(1, 4, 1));
    EXPECT_TRUE(opened->repair.repaired);
    EXPECT_EQ(opened->repair.file, seg);
    EXPECT_EQ(opened->repair.offset, last);
    EXPECT_EQ(opened->repair.bytes_truncated, keep);
    EXPECT_FALSE(opened->repair.reason.empty());
    // The truncation itself is durable.
    EXPECT_EQ(w.disk().durable_content(seg)->size(), last);
  }
}

TEST(WalCorruption, ZeroFilledTailIsRepaired) {
  World w;
  write_log(w, 3);
  const std::string seg = segments(w).back();
  const uint64_t end = testing::scan_file(w, seg).valid_bytes;
  durable_append(w, seg, std::string(4096, '\0'));
  Result<OpenResult> opened = open_corrupt_wal(w);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  EXPECT_EQ(describe(opened->entries), describe_range(1, 3, 1));
  EXPECT_EQ(opened->repair.offset, end);
  EXPECT_EQ(opened->repair.bytes_truncated, 4096u);
  EXPECT_TRUE(contains(opened->repair.reason, "zero length")) << opened->repair.reason;
}

TEST(WalCorruption, RepairedWalIsAppendableAndTheAppendIsDurable) {
  World w;
  write_log(w, 5);
  const std::string seg = segments(w).back();
  durable_truncate(w, seg, testing::scan_file(w, seg).records.back().offset + 10);
  Result<OpenResult> opened = open_corrupt_wal(w);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  ASSERT_TRUE(opened->repair.repaired);
  EXPECT_EQ(opened->wal->last_index(), 4u);
  Status st;
  w.run([&] { st = opened->wal->save(nullptr, entries(5, 6, 2), true); });
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  opened->wal.reset();
  w.power_loss();
  Result<OpenResult> again = open_corrupt_wal(w);
  ASSERT_TRUE(again.is_ok()) << again.status().to_string();
  EXPECT_FALSE(again->repair.repaired);
  std::vector<std::string> want = describe_range(1, 4, 1);
  for (const std::string& s : describe_range(5, 6, 2)) want.push_back(s);
  EXPECT_EQ(describe(again->entries), want);
}

TEST(WalCorruption, TornPowerLossesNeverLoseSyncedEntriesNorRefuseToOpen) {
  int repaired = 0, kept_unsynced = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    World w(seed);
    w.run([&] {
      Result<std::unique_ptr<Wal>> wal = Wal::create(w.fs, kDir, testing::metadata());
      ASSERT_TRUE(wal.is_ok());
      ASSERT_TRUE((*wal)->save(nullptr, entries(1, 3, 1), true).is_ok());
      // Records of 1.5 KiB span several sectors, so a torn crash can cut one in the middle.
      for (uint64_t i = 4; i <= 8; ++i) {
        const std::vector<raftpb::Entry> big = {
            testing::entry(i, 1, std::string(1500, static_cast<char>('a' + i)))};
        ASSERT_TRUE((*wal)->save(nullptr, big, false).is_ok());
      }
    });
    w.power_loss(/*torn=*/true);
    Result<OpenResult> opened = open_corrupt_wal(w);
    ASSERT_TRUE(opened.is_ok()) << "seed " << seed << ": " << opened.status().to_string();
    const std::vector<raftpb::Entry>& got = opened->entries;
    ASSERT_GE(got.size(), 3u) << "seed " << seed;
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k].index(), k + 1);
      if (k >= 3) {
        EXPECT_EQ(got[k].data(), std::string(1500, static_cast<char>('a' + got[k].index())));
      }
    }
    repaired += opened->repair.repaired ? 1 : 0;
    kept_unsynced += got.size() > 3 ? 1 : 0;
  }
  // The seeds exercise both torn records and surviving unsynced ones.
  EXPECT_GT(repaired, 0);
  EXPECT_GT(kept_unsynced, 0);
}

TEST(WalCorruption, RefusedOpenLeavesATornTailInPlace) {
  World w;
  write_log(w, 3);
  const std::string seg = segments(w).back();
  const uint64_t size = testing::scan_file(w, seg).valid_bytes - 4;
  durable_truncate(w, seg, size);
  OpenOptions wrong_node;
  wrong_node.expected_metadata = testing::metadata(/*node_id=*/2);
  w.run([&] {
    EXPECT_EQ(Wal::open(w.fs, kDir, {}, wrong_node).status().code(), StatusCode::kInvalidArgument);
  });
  // open() changes the disk only once it has decided to succeed.
  EXPECT_EQ(w.disk().durable_content(seg)->size(), size);
  EXPECT_EQ(*w.disk().size(*w.fs.open(seg, sim::OpenMode::kExisting)), size);
}

// --- bit flips -----------------------------------------------------------------------------------

TEST(WalCorruption, BitFlipInTheMiddleIsAnErrorNamingFileAndOffset) {
  World probe;
  write_log(probe, 6);
  const std::string seg = segments(probe).back();
  const SegmentScan clean = testing::scan_file(probe, seg);
  ASSERT_EQ(clean.records.size(), 7u);  // metadata + 6 entries
  // Every entry record but the last, a few random bits each.
  for (size_t k = 1; k + 1 < clean.records.size(); ++k) {
    for (uint64_t seed : {11, 12, 13}) {
      World w(seed);
      write_log(w, 6);
      const uint64_t offset = clean.records[k].offset;
      const uint64_t length = clean.records[k + 1].offset - offset;
      ASSERT_TRUE(w.disk().flip_bits(seg, offset, length, 1).is_ok());
      Result<OpenResult> opened = open_corrupt_wal(w);
      ASSERT_FALSE(opened.is_ok()) << "record " << k << " seed " << seed;
      const Status& st = opened.status();
      EXPECT_EQ(st.code(), StatusCode::kCorruption);
      EXPECT_TRUE(contains(st.message(), seg + " at byte " + std::to_string(offset)))
          << st.to_string();
      EXPECT_TRUE(contains(st.message(), "a valid record follows at byte")) << st.to_string();
      // Nothing was truncated.
      EXPECT_EQ(w.disk().durable_content(seg)->size(), clean.valid_bytes);
    }
  }
}

TEST(WalCorruption, BitFlipInTheLastRecordIsRepairedAsATornTail) {
  for (uint64_t seed : {21, 22, 23, 24}) {
    World w(seed);
    write_log(w, 4);
    const std::string seg = segments(w).back();
    const SegmentScan clean = testing::scan_file(w, seg);
    const uint64_t last = clean.records.back().offset;
    ASSERT_TRUE(w.disk().flip_bits(seg, last, clean.valid_bytes - last, 1).is_ok());
    Result<OpenResult> opened = open_corrupt_wal(w);
    ASSERT_TRUE(opened.is_ok()) << "seed " << seed << ": " << opened.status().to_string();
    EXPECT_TRUE(opened->repair.repaired);
    EXPECT_EQ(opened->repair.offset, last);
    EXPECT_EQ(describe(opened->entries), describe_range(1, 3, 1));
  }
}

TEST(WalCorruption, DamageAtTheEndOfAnOlderSegmentIsAnError) {
  World w;
  write_log(w, 20, WalOptions{.segment_bytes = 120});
  const std::vector<std::string> segs = segments(w);
  ASSERT_GE(segs.size(), 3u);
  const SegmentScan first = testing::scan_file(w, segs[0]);
  const uint64_t last = first.records.back().offset;
  ASSERT_TRUE(w.disk().flip_bits(segs[0], last, first.valid_bytes - last, 2).is_ok());
  Result<OpenResult> opened = open_corrupt_wal(w, WalOptions{.segment_bytes = 120});
  ASSERT_FALSE(opened.is_ok());
  EXPECT_EQ(opened.status().code(), StatusCode::kCorruption);
  EXPECT_TRUE(contains(opened.status().message(), segs[0] + " at byte " + std::to_string(last)))
      << opened.status().to_string();
  EXPECT_TRUE(contains(opened.status().message(), "not the last segment"))
      << opened.status().to_string();
}

TEST(WalCorruption, DamagedHeaderOfTheLastSegmentIsAnError) {
  World w;
  write_log(w, 20, WalOptions{.segment_bytes = 120});
  const std::string seg = segments(w).back();
  const SegmentScan scan = testing::scan_file(w, seg);
  ASSERT_GE(scan.records.size(), 2u);
  ASSERT_TRUE(w.disk().flip_bits(seg, 0, scan.records[1].offset, 1).is_ok());
  Result<OpenResult> opened = open_corrupt_wal(w, WalOptions{.segment_bytes = 120});
  ASSERT_FALSE(opened.is_ok());
  EXPECT_EQ(opened.status().code(), StatusCode::kCorruption);
  EXPECT_TRUE(contains(opened.status().message(), seg + " at byte 0"))
      << opened.status().to_string();
}

TEST(WalCorruption, GarbageFollowedByAValidRecordAtTheTailIsAnError) {
  World w;
  write_log(w, 3);
  const std::string seg = segments(w).back();
  const uint64_t end = testing::scan_file(w, seg).valid_bytes;
  walpb::WalRecord record;
  *record.mutable_entry() = testing::entry(4, 1);
  std::string valid;
  ASSERT_TRUE(append_record(record, valid).is_ok());
  durable_append(w, seg, std::string("\x07\x01\x02", 3) + valid);
  Result<OpenResult> opened = open_corrupt_wal(w);
  ASSERT_FALSE(opened.is_ok());
  EXPECT_TRUE(contains(opened.status().message(), seg + " at byte " + std::to_string(end)))
      << opened.status().to_string();
  EXPECT_TRUE(contains(opened.status().message(),
                       "a valid record follows at byte " + std::to_string(end + 3)))
      << opened.status().to_string();
}

// --- segment set ---------------------------------------------------------------------------------

TEST(WalCorruption, MissingMiddleSegmentIsAnError) {
  World w;
  write_log(w, 20, WalOptions{.segment_bytes = 120});
  const std::vector<std::string> segs = segments(w);
  ASSERT_GE(segs.size(), 3u);
  ASSERT_TRUE(w.disk().remove(segs[1]).is_ok());
  Result<OpenResult> opened = open_corrupt_wal(w, WalOptions{.segment_bytes = 120});
  ASSERT_FALSE(opened.is_ok());
  EXPECT_EQ(opened.status().code(), StatusCode::kCorruption);
  EXPECT_TRUE(contains(opened.status().message(), "missing")) << opened.status().to_string();
}

TEST(WalCorruption, SegmentOfAnotherNodeIsAnError) {
  World w;
  write_log(w, 20, WalOptions{.segment_bytes = 120});
  const std::string seg = segments(w).back();
  std::string foreign;
  walpb::WalRecord record;
  *record.mutable_metadata() = testing::metadata(/*node_id=*/9);
  ASSERT_TRUE(append_record(record, foreign).is_ok());
  durable_truncate(w, seg, 0);
  durable_append(w, seg, foreign);
  Result<OpenResult> opened = open_corrupt_wal(w, WalOptions{.segment_bytes = 120});
  ASSERT_FALSE(opened.is_ok());
  EXPECT_EQ(opened.status().code(), StatusCode::kCorruption);
  EXPECT_TRUE(contains(opened.status().message(), "belongs to node 9"))
      << opened.status().to_string();
}

TEST(WalCorruption, LeftoverTempFilesAreIgnoredButForeignFilesAreNot) {
  World w;
  write_log(w, 2);
  ASSERT_TRUE(w.disk().open("n1/wal/0000000000000001-0000000000000003.wal.tmp",
                               sim::OpenMode::kCreate).is_ok());
  EXPECT_TRUE(open_corrupt_wal(w).is_ok());
  ASSERT_TRUE(w.disk().open("n1/wal/notes.txt", sim::OpenMode::kCreate).is_ok());
  EXPECT_EQ(open_corrupt_wal(w).status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace dst::wal
