// Progress: how the leader's view of a follower moves on acknowledgements and rejections.
#include "node/raft/progress.h"

#include <gtest/gtest.h>

namespace dst::raft {
namespace {

Progress probing(uint64_t match, uint64_t next) {
  Progress pr(4);
  pr.match = match;
  pr.next = next;
  pr.probe_sent = true;
  return pr;
}

TEST(Progress, AProbeRejectionMovesNextBackToTheHint) {
  Progress pr = probing(0, 11);
  EXPECT_TRUE(pr.maybe_decr_to(10, 6));
  EXPECT_EQ(pr.next, 7u);
  EXPECT_FALSE(pr.probe_sent);
  // Never below match + 1.
  pr = probing(5, 11);
  EXPECT_TRUE(pr.maybe_decr_to(10, 2));
  EXPECT_EQ(pr.next, 6u);
}

TEST(Progress, ARejectionOfAnOlderProbeIsStale) {
  Progress pr = probing(0, 11);
  EXPECT_FALSE(pr.maybe_decr_to(7, 3));
  EXPECT_EQ(pr.next, 11u);
  EXPECT_TRUE(pr.probe_sent);
}

TEST(Progress, ARejectionAtOrBelowMatchLeavesTheProbePaused) {
  // A follower that rejects what it acknowledged (it lost it) must not be answered at once: next
  // cannot move, so the same append would go back and forth at network speed.
  Progress pr = probing(359, 360);
  EXPECT_FALSE(pr.maybe_decr_to(359, 359));
  EXPECT_EQ(pr.next, 360u);
  EXPECT_TRUE(pr.is_paused());
}

TEST(Progress, AReplicatingFollowerFallsBackToJustAfterMatch) {
  Progress pr(4);
  pr.match = 8;
  pr.become_replicate();
  pr.next = 15;
  EXPECT_FALSE(pr.maybe_decr_to(8, 3));  // already matched: stale
  EXPECT_EQ(pr.next, 15u);
  EXPECT_TRUE(pr.maybe_decr_to(12, 3));
  EXPECT_EQ(pr.next, 9u);
}

TEST(Progress, AnAcknowledgementMovesMatchAndNextForwardOnly) {
  Progress pr = probing(3, 5);
  EXPECT_TRUE(pr.maybe_update(6));
  EXPECT_EQ(pr.match, 6u);
  EXPECT_EQ(pr.next, 7u);
  EXPECT_FALSE(pr.probe_sent);
  EXPECT_FALSE(pr.maybe_update(4));
  EXPECT_EQ(pr.match, 6u);
  EXPECT_EQ(pr.next, 7u);
}

}  // namespace
}  // namespace dst::raft
