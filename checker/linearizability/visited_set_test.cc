// The memo of failed nodes: exact membership (a hash collision never claims a pair that was not
// inserted), the shared byte budget, and tables handed on through a Spare.
#include "checker/linearizability/visited_set.h"

#include <gtest/gtest.h>

#include <vector>

namespace dst::checker {
namespace {

TEST(VisitedSet, CollidingHashesStayDistinct) {
  size_t used = 0;
  VisitedSet<uint32_t> v(1, &used, 1 << 20);
  const uint64_t set_a[1] = {0b01}, set_b[1] = {0b10};
  v.insert_absent(42, 7, set_a);
  EXPECT_TRUE(v.contains(42, 7, set_a));
  EXPECT_FALSE(v.contains(42, 7, set_b));  // same hash and state, other set
  EXPECT_FALSE(v.contains(42, 8, set_a));  // same hash and set, other state
  EXPECT_TRUE(v.insert_if_absent(42, 7, set_b));
  EXPECT_FALSE(v.insert_if_absent(42, 7, set_b));
  EXPECT_EQ(v.size(), 2u);
  EXPECT_GT(used, 0u);
  v.release();
  EXPECT_EQ(used, 0u);
  EXPECT_FALSE(v.contains(42, 7, set_a));
}

TEST(VisitedSet, BudgetStopsRememberingButStaysSound) {
  size_t used = 0;
  VisitedSet<uint32_t> v(1, &used, 64);  // room for a couple of entries
  for (uint64_t i = 0; i < 10; ++i) {
    const uint64_t set[1] = {i};
    v.insert_absent(i, 0, set);
  }
  EXPECT_TRUE(v.full());
  EXPECT_LE(used, 64u);
  const uint64_t never[1] = {99};
  EXPECT_FALSE(v.contains(99, 0, never));
}

TEST(VisitedSet, ReleasedTablesAreReusedThroughTheSpare) {
  size_t used = 0;
  VisitedSet<uint32_t>::Spare spare;
  std::vector<uint64_t> sets(300);
  for (size_t i = 0; i < sets.size(); ++i) sets[i] = i * 3 + 1;
  {
    VisitedSet<uint32_t> first(1, &used, 1 << 20);
    first.configure(1, &used, 1 << 20, &spare);  // not yet used: may be configured again
    for (size_t i = 0; i < sets.size(); ++i) first.insert_absent(sets[i] * 11, 5, &sets[i]);
    first.release();
  }
  EXPECT_EQ(used, 0u);
  const size_t kept = spare.entries.capacity();
  EXPECT_GE(kept, sets.size());  // the first set's tables wait in the spare
  VisitedSet<uint32_t> second(2, &used, 1 << 20);
  second.configure(2, &used, 1 << 20, &spare);
  const uint64_t pair[2] = {1, 2};
  EXPECT_FALSE(second.contains(7, 5, pair));  // nothing of the first set is visible
  second.insert_absent(7, 5, pair);
  EXPECT_EQ(spare.entries.capacity(), 0u);  // taken
  EXPECT_TRUE(second.contains(7, 5, pair));
  const uint64_t other[2] = {1, 3};
  EXPECT_FALSE(second.contains(7, 5, other));
  EXPECT_EQ(second.size(), 1u);
}

}  // namespace
}  // namespace dst::checker
