#include "kube/workqueue.h"

#include <gtest/gtest.h>

namespace dst::kube {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(Workqueue, AKeyIsQueuedOnceAndHandedOutInOrder) {
  Workqueue q;
  ASSERT_TRUE(q.add("a").is_ok());
  ASSERT_TRUE(q.add("b").is_ok());
  ASSERT_TRUE(q.add("a").is_ok());  // already waiting: nothing
  EXPECT_EQ(q.queued(), 2u);
  EXPECT_EQ(q.get(), "a");
  EXPECT_EQ(q.get(), "b");
  EXPECT_EQ(q.get(), std::nullopt);
}

TEST(Workqueue, AKeyAddedWhileProcessingComesBackOnceAfterDone) {
  Workqueue q;
  ASSERT_TRUE(q.add("a").is_ok());
  ASSERT_EQ(q.get(), "a");
  ASSERT_TRUE(q.add("a").is_ok());
  ASSERT_TRUE(q.add("a").is_ok());
  EXPECT_EQ(q.get(), std::nullopt);  // never processed twice at once
  q.done("a");
  EXPECT_EQ(q.get(), "a");  // the change after processing started is processed again
  q.done("a");
  EXPECT_EQ(q.get(), std::nullopt);
}

TEST(Workqueue, DelayedKeysArriveWhenDueAndTheEarlierDueTimeWins) {
  Workqueue q;
  ASSERT_TRUE(q.add_after("a", 100 * kMs, 0).is_ok());
  ASSERT_TRUE(q.add_after("b", 50 * kMs, 0).is_ok());
  ASSERT_TRUE(q.add_after("a", 20 * kMs, 10 * kMs).is_ok());  // due at 30 ms now
  EXPECT_EQ(q.promote_due(29 * kMs), 30 * kMs);
  EXPECT_EQ(q.get(), std::nullopt);
  EXPECT_EQ(q.promote_due(30 * kMs), 50 * kMs);
  EXPECT_EQ(q.get(), "a");
  EXPECT_EQ(q.promote_due(60 * kMs), std::nullopt);
  EXPECT_EQ(q.get(), "b");
}

TEST(Workqueue, RetriesBackOffExponentiallyUntilForgotten) {
  Workqueue q(WorkqueueOptions{.backoff_base_ns = 5 * kMs, .backoff_max_ns = 40 * kMs, .qps = 1000, .burst = 1000});
  const int64_t expected[] = {5, 10, 20, 40, 40, 40};
  for (int64_t want : expected) {
    ASSERT_TRUE(q.add_rate_limited("k", 0).is_ok());
    EXPECT_EQ(q.promote_due(0), want * kMs);
    EXPECT_EQ(q.promote_due(want * kMs), std::nullopt);
    ASSERT_EQ(q.get(), "k");
    q.done("k");
  }
  EXPECT_EQ(q.failures("k"), 3);  // stops counting once the backoff reached its maximum
  q.forget("k");
  EXPECT_EQ(q.failures("k"), 0);
  ASSERT_TRUE(q.add_rate_limited("k", 0).is_ok());
  EXPECT_EQ(q.promote_due(0), 5 * kMs);
}

TEST(Workqueue, TheTokenBucketSpreadsABurstOfRetries) {
  // 10 a second after a burst of 3 (the per-key backoff is tiny here).
  Workqueue q(WorkqueueOptions{.backoff_base_ns = 1, .backoff_max_ns = 1, .qps = 10, .burst = 3});
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(q.add_rate_limited("k" + std::to_string(i), 0).is_ok());
  // k0..k2 go at once (1 ns), k3 after 100 ms, k4 after 200 ms.
  EXPECT_EQ(q.promote_due(1), 100 * kMs);
  EXPECT_EQ(q.queued(), 3u);
  EXPECT_EQ(q.promote_due(100 * kMs), 200 * kMs);
  EXPECT_EQ(q.queued(), 4u);
}

TEST(Workqueue, ItIsBounded) {
  Workqueue q(WorkqueueOptions{.capacity = 2});
  ASSERT_TRUE(q.add("a").is_ok());
  ASSERT_TRUE(q.add_after("b", kMs, 0).is_ok());
  EXPECT_EQ(q.add("c").code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(q.add_after("c", kMs, 0).code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(q.add("a").is_ok());  // already held
  EXPECT_EQ(q.promote_due(kMs), std::nullopt);
  EXPECT_EQ(q.queued(), 2u);
}

}  // namespace
}  // namespace dst::kube
