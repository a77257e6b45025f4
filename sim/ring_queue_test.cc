// Tests of the ring-buffer FIFO (sim/ring_queue.h): order across wrap-around and growth, indexing,
// and that popping releases what an item held.
#include "sim/ring_queue.h"

#include <gtest/gtest.h>

#include <memory>

namespace dst::sim {
namespace {

TEST(RingQueue, KeepsFifoOrderAcrossWrapAroundAndGrowth) {
  RingQueue<int> q;
  int next_in = 0, next_out = 0;
  // Interleave pushes and pops so the head wraps many times while the ring grows to 64 and more.
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < round + 3; ++i) q.push_back(next_in++);
    for (int i = 0; i < round + 1; ++i) {
      ASSERT_EQ(q.front(), next_out++);
      q.pop_front();
    }
    ASSERT_EQ(q.size(), static_cast<size_t>(next_in - next_out));
    for (size_t i = 0; i < q.size(); ++i) ASSERT_EQ(q[i], next_out + static_cast<int>(i));
  }
  while (!q.empty()) {
    ASSERT_EQ(q.front(), next_out++);
    q.pop_front();
  }
  EXPECT_EQ(next_out, next_in);
}

TEST(RingQueue, PopReleasesTheItem) {
  RingQueue<std::shared_ptr<int>> q;
  auto p = std::make_shared<int>(7);
  q.push_back(p);
  EXPECT_EQ(p.use_count(), 2);
  q.pop_front();
  EXPECT_EQ(p.use_count(), 1);
}

TEST(RingQueue, UsableAfterBeingMovedFromAndCleared) {
  RingQueue<int> a;
  a.push_back(1);
  RingQueue<int> b = std::move(a);
  a.push_back(2);  // NOLINT(bugprone-use-after-move): a moved-from ring must stay usable
  EXPECT_EQ(a.front(), 2);
  EXPECT_EQ(b.front(), 1);
  b.clear();
  EXPECT_TRUE(b.empty());
}

TEST(RingQueueDeathTest, FrontOfEmptyDies) {
  EXPECT_DEATH(
      {
        RingQueue<int> q;
        (void)q.front();
      },
      "empty");
}

}  // namespace
}  // namespace dst::sim
