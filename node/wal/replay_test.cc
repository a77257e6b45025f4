// Replay semantics (replay.h), without any disk: overwrites, snapshot markers, gaps.
#include "node/wal/replay.h"

#include <gtest/gtest.h>

#include "node/wal/wal_test_util.h"

namespace dst::wal {
namespace {

using testing::describe;
using testing::describe_range;

walpb::WalRecord rec(const raftpb::Entry& e) {
  walpb::WalRecord r;
  *r.mutable_entry() = e;
  return r;
}

walpb::WalRecord marker(uint64_t index, uint64_t term) {
  walpb::WalRecord r;
  r.mutable_snapshot()->set_index(index);
  r.mutable_snapshot()->set_term(term);
  return r;
}

void add_all(Replay& replay, const std::vector<raftpb::Entry>& es) {
  for (const raftpb::Entry& e : es) ASSERT_TRUE(replay.add(rec(e), "test").is_ok());
}

walpb::SnapshotMarker snapshot_at(uint64_t index, uint64_t term) {
  return marker(index, term).snapshot();
}

TEST(Replay, LaterEntryReplacesTheConflictingTail) {
  Replay replay(std::nullopt);
  add_all(replay, testing::entries(1, 5, 1));
  add_all(replay, testing::entries(3, 4, 2));  // a new leader overwrote 3..5
  EXPECT_EQ(replay.last_index(), 4u);
  std::vector<std::string> want = describe_range(1, 2, 1);
  for (const std::string& s : describe_range(3, 4, 2)) want.push_back(s);
  EXPECT_EQ(describe(replay.take_entries()), want);
}

TEST(Replay, NewestMarkerStartsTheEntries) {
  Replay replay(std::nullopt);
  add_all(replay, testing::entries(1, 5, 1));
  ASSERT_TRUE(replay.add(marker(3, 1), "test").is_ok());
  add_all(replay, testing::entries(6, 7, 1));
  EXPECT_EQ(replay.start().index(), 3u);
  EXPECT_EQ(describe(replay.take_entries()), describe_range(4, 7, 1));
}

TEST(Replay, MarkerBeyondTheLogSkipsEntriesItCovers) {
  Replay replay(std::nullopt);
  add_all(replay, testing::entries(1, 2, 1));
  ASSERT_TRUE(replay.add(marker(10, 3), "test").is_ok());  // installed snapshot from the leader
  add_all(replay, testing::entries(11, 12, 3));
  EXPECT_EQ(describe(replay.take_entries()), describe_range(11, 12, 3));
}

TEST(Replay, GivenSnapshotMustHaveItsMarker) {
  Replay found(snapshot_at(3, 1));
  add_all(found, testing::entries(1, 5, 1));
  ASSERT_TRUE(found.add(marker(3, 1), "test").is_ok());
  ASSERT_TRUE(found.add(marker(5, 1), "test").is_ok());  // newer, but the caller chose 3
  EXPECT_TRUE(found.finish().is_ok());
  EXPECT_EQ(found.start().index(), 3u);
  EXPECT_EQ(found.newest_marker()->index(), 5u);
  EXPECT_EQ(describe(found.take_entries()), describe_range(4, 5, 1));

  Replay missing(snapshot_at(4, 1));
  add_all(missing, testing::entries(1, 5, 1));
  EXPECT_EQ(missing.finish().code(), StatusCode::kNotFound);
}

TEST(Replay, GapIsCorruption) {
  Replay replay(std::nullopt);
  add_all(replay, testing::entries(1, 2, 1));
  const Status st = replay.add(rec(testing::entry(4, 1)), "seg at byte 99");
  EXPECT_EQ(st.code(), StatusCode::kCorruption);
  EXPECT_NE(st.message().find("seg at byte 99"), std::string::npos) << st.to_string();
}

TEST(Replay, LastHardStateWins) {
  Replay replay(std::nullopt);
  EXPECT_FALSE(replay.has_hard_state());
  walpb::WalRecord r;
  *r.mutable_hard_state() = testing::hard_state(1, 1, 0);
  ASSERT_TRUE(replay.add(r, "test").is_ok());
  *r.mutable_hard_state() = testing::hard_state(2, 3, 4);
  ASSERT_TRUE(replay.add(r, "test").is_ok());
  EXPECT_TRUE(replay.has_hard_state());
  EXPECT_TRUE(testing::same_hard_state(replay.hard_state(), testing::hard_state(2, 3, 4)));
}

}  // namespace
}  // namespace dst::wal

namespace dst::wal {
namespace {

// Found by the KV sweep (seed 3105): a follower with an uncommitted tail from an old term installs
// the leader's snapshot; after a restart its WAL replayed the stale tail after the snapshot, a log
// whose terms went down. A marker that resets the log drops what was written before it.
TEST(Replay, ResetMarkerDropsTheStaleTailWrittenBeforeIt) {
  for (bool explicit_start : {false, true}) {
    walpb::SnapshotMarker start;
    start.set_index(10);
    start.set_term(1);
    Replay replay(explicit_start ? std::optional<walpb::SnapshotMarker>(start) : std::nullopt);
    walpb::WalRecord m0;
    *m0.mutable_snapshot() = start;
    ASSERT_TRUE(replay.add(m0, "t").is_ok());
    for (uint64_t i = 11; i <= 15; ++i) {
      walpb::WalRecord e;
      e.mutable_entry()->set_index(i);
      e.mutable_entry()->set_term(2);
      ASSERT_TRUE(replay.add(e, "t").is_ok());
    }
    walpb::WalRecord reset;
    reset.mutable_snapshot()->set_index(12);
    reset.mutable_snapshot()->set_term(3);
    reset.mutable_snapshot()->set_reset_log(true);
    ASSERT_TRUE(replay.add(reset, "t").is_ok());
    walpb::WalRecord after;
    after.mutable_entry()->set_index(13);
    after.mutable_entry()->set_term(3);
    ASSERT_TRUE(replay.add(after, "t").is_ok());
    if (explicit_start) {
      // From the older snapshot at 10 the log cannot be rebuilt: 11..12 were replaced by the
      // snapshot at 12, which this replay does not have.
      EXPECT_EQ(replay.finish().code(), StatusCode::kNotFound);
      continue;
    }
    ASSERT_TRUE(replay.finish().is_ok());
    // Following markers: the log starts after 12 with only the new entry 13.
    EXPECT_EQ(replay.start().index(), 12u);
    EXPECT_EQ(replay.last_index(), 13u);
    std::vector<raftpb::Entry> entries = replay.take_entries();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].term(), 3u);
  }
}

}  // namespace
}  // namespace dst::wal
