#include "node/mvcc/key_index.h"

#include <gtest/gtest.h>

#include "node/mvcc/revision.h"
#include "node/mvcc/tree_index.h"

namespace dst::mvcc {
namespace {

Revision R(int64_t main, int64_t sub = 0) { return Revision{main, sub}; }

// put 2, put 4, del 6, put 8, put 10, del 12, put 14.0, put 14.1, del 16
KeyIndex history() {
  KeyIndex ki("foo");
  ki.put(R(2));
  ki.put(R(4));
  EXPECT_TRUE(ki.tombstone(R(6)).is_ok());
  ki.put(R(8));
  ki.put(R(10));
  EXPECT_TRUE(ki.tombstone(R(12)).is_ok());
  ki.put(R(14, 0));
  ki.put(R(14, 1));
  EXPECT_TRUE(ki.tombstone(R(16)).is_ok());
  return ki;
}

void expect_at(const KeyIndex& ki, int64_t at, std::optional<KeyAt> want) {
  SCOPED_TRACE("at " + std::to_string(at) + ": " + ki.describe());
  std::optional<KeyAt> got = ki.get(at);
  ASSERT_EQ(got.has_value(), want.has_value());
  if (!want) return;
  EXPECT_EQ(got->modified, want->modified);
  EXPECT_EQ(got->created, want->created);
  EXPECT_EQ(got->version, want->version);
}

TEST(KeyIndex, ReadsSeeTheGenerationAliveAtTheRevision) {
  KeyIndex ki = history();
  expect_at(ki, 1, std::nullopt);
  expect_at(ki, 2, KeyAt{R(2), R(2), 1});
  expect_at(ki, 5, KeyAt{R(4), R(2), 2});
  expect_at(ki, 6, std::nullopt);  // deleted at 6
  expect_at(ki, 7, std::nullopt);
  expect_at(ki, 9, KeyAt{R(8), R(8), 1});
  expect_at(ki, 11, KeyAt{R(10), R(8), 2});
  expect_at(ki, 13, std::nullopt);
  expect_at(ki, 14, KeyAt{R(14, 1), R(14, 0), 2});
  expect_at(ki, 100, std::nullopt);
}

TEST(KeyIndex, DeletingADeadKeyIsNotFound) {
  KeyIndex ki("k");
  EXPECT_EQ(ki.tombstone(R(1)).code(), StatusCode::kNotFound);
  ki.put(R(2));
  EXPECT_TRUE(ki.tombstone(R(3)).is_ok());
  EXPECT_EQ(ki.tombstone(R(4)).code(), StatusCode::kNotFound);
}

TEST(KeyIndex, SinceKeepsOnlyTheLastChangeOfEachTransaction) {
  KeyIndex ki = history();
  std::vector<Revision> want = {R(10), R(12), R(14, 1), R(16)};
  EXPECT_EQ(ki.since(10), want);
  EXPECT_EQ(ki.since(17), std::vector<Revision>{});
}

TEST(KeyIndex, CompactionKeepsWhatReadsAtOrAfterItCanSee) {
  struct Case {
    int64_t at;
    std::set<Revision> available;
    std::string after;
  };
  std::vector<Case> cases = {
      {1, {}, "foo modified=16.0 generations: {2.0 4.0 6.0} {8.0 10.0 12.0} {14.0 14.1 16.0} {}"},
      {4, {R(4)}, "foo modified=16.0 generations: {4.0 6.0} {8.0 10.0 12.0} {14.0 14.1 16.0} {}"},
      {5, {R(4)}, "foo modified=16.0 generations: {4.0 6.0} {8.0 10.0 12.0} {14.0 14.1 16.0} {}"},
      // At 6 the key is deleted: its first generation is no longer readable at all.
      {6, {}, "foo modified=16.0 generations: {8.0 10.0 12.0} {14.0 14.1 16.0} {}"},
      {11, {R(10)}, "foo modified=16.0 generations: {10.0 12.0} {14.0 14.1 16.0} {}"},
      {14, {R(14, 1)}, "foo modified=16.0 generations: {14.1 16.0} {}"},
      {16, {}, "foo modified=16.0 generations: {}"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("compact at " + std::to_string(c.at));
    KeyIndex ki = history();
    std::set<Revision> kept;
    ki.keep(c.at, kept);
    std::set<Revision> available;
    ki.compact(c.at, available);
    EXPECT_EQ(available, c.available);
    EXPECT_EQ(kept, c.available) << "keep() must predict compact()";
    EXPECT_EQ(ki.describe(), c.after);
    // Every read at or after the compaction point answers as before it.
    KeyIndex full = history();
    for (int64_t at = c.at; at <= 17; ++at) {
      std::optional<KeyAt> a = ki.get(at), b = full.get(at);
      ASSERT_EQ(a.has_value(), b.has_value()) << "at " << at;
      if (a) {
        EXPECT_EQ(a->modified, b->modified) << "at " << at;
        EXPECT_EQ(a->version, b->version) << "at " << at;
      }
    }
  }
  KeyIndex ki = history();
  std::set<Revision> available;
  ki.compact(16, available);
  EXPECT_TRUE(ki.empty());
}

TEST(Revision, EncodingSortsLikeRevisionsAndRoundTrips) {
  std::vector<Revision> revs = {R(0), R(1), R(1, 1), R(2), R(255), R(256), R(1LL << 40, 3)};
  for (size_t i = 0; i + 1 < revs.size(); ++i) {
    EXPECT_LT(encode_revision(revs[i]), encode_revision(revs[i + 1]));
  }
  for (const Revision& r : revs) {
    for (bool tomb : {false, true}) {
      auto d = decode_revision(encode_revision(r, tomb));
      ASSERT_TRUE(d.is_ok());
      EXPECT_EQ(d->rev, r);
      EXPECT_EQ(d->tombstone, tomb);
    }
  }
  EXPECT_EQ(decode_revision("short").status().code(), StatusCode::kCorruption);
}

TEST(TreeIndex, RangesFollowEtcdsEndConventions) {
  TreeIndex t;
  int64_t rev = 1;
  for (const char* k : {"a", "b", "ba", "c", "d"}) t.put(k, R(rev++));
  ASSERT_TRUE(t.tombstone("c", R(rev++)).is_ok());  // rev 6
  auto keys = [&](const std::string& key, const std::string& end, int64_t at, size_t limit) {
    size_t total = 0;
    std::string out;
    for (const IndexedKey& k : t.range(key, end, at, limit, &total)) out += k.key + " ";
    return out + "total=" + std::to_string(total);
  };
  EXPECT_EQ(keys("b", "", 10, 0), "b total=1");
  EXPECT_EQ(keys("b", "c", 10, 0), "b ba total=2");
  EXPECT_EQ(keys("b", std::string(1, '\0'), 10, 0), "b ba d total=3");
  EXPECT_EQ(keys("b", std::string(1, '\0'), 5, 0), "b ba c d total=4");  // before c was deleted
  EXPECT_EQ(keys("a", std::string(1, '\0'), 10, 2), "a b total=4");      // limit does not cut total
  EXPECT_EQ(keys("zz", std::string(1, '\0'), 10, 0), "total=0");
  auto changes = t.changes_since("b", "d", 3);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0], std::make_pair(R(3), std::string("ba")));
  EXPECT_EQ(changes[1], std::make_pair(R(4), std::string("c")));
  EXPECT_EQ(changes[2], std::make_pair(R(6), std::string("c")));
  std::set<Revision> available = t.compact(6);
  EXPECT_EQ(available, (std::set<Revision>{R(1), R(2), R(3), R(5)}));
  EXPECT_EQ(t.keys(), 4u);  // c is gone entirely
}

}  // namespace
}  // namespace dst::mvcc
