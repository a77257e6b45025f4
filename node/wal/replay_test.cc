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
