// Vote Safety as the votes go out: every vote a node sends is recorded at the moment it is sent,
// so a second vote in the same term is caught even when the node's hard state was overwritten
// before any Ready showed the first one (issue 21: the latest hard state alone missed it).
#include "node/raft/invariants.h"

#include <gtest/gtest.h>

namespace dst::raft {
namespace {

raftpb::Message vote(raftpb::MessageType type, uint64_t from, uint64_t to, uint64_t term, bool reject = false) {
  raftpb::Message m;
  m.set_type(type);
  m.set_from(from);
  m.set_to(to);
  m.set_term(term);
  m.set_reject(reject);
  return m;
}

TEST(InvariantsVotes, TwoGrantedVotesInOneTermAreCaughtFromTheMessagesAlone) {
  Invariants inv;
  inv.observe_sent(2, {vote(raftpb::MSG_VOTE_RESP, 2, 1, 5)});
  EXPECT_TRUE(inv.ok());
  inv.observe_sent(2, {vote(raftpb::MSG_VOTE_RESP, 2, 3, 5)});
  ASSERT_EQ(inv.violations().size(), 1u);
  EXPECT_EQ(inv.violations()[0], "Vote Safety: node 2 voted for 1 and for 3 in term 5");
  inv.observe_sent(2, {vote(raftpb::MSG_VOTE_RESP, 2, 3, 5)});
  EXPECT_EQ(inv.violations().size(), 1u);  // reported once per node and term
}

TEST(InvariantsVotes, ACandidatesOwnVoteCountsRefusalsAndPreVotesDoNot) {
  Invariants inv;
  inv.observe_sent(3, {vote(raftpb::MSG_VOTE, 3, 1, 7), vote(raftpb::MSG_VOTE, 3, 2, 7)});  // votes for itself
  inv.observe_sent(3, {vote(raftpb::MSG_VOTE_RESP, 3, 1, 7, /*reject=*/true)});
  inv.observe_sent(3, {vote(raftpb::MSG_PRE_VOTE_RESP, 3, 1, 8)});  // binds nothing
  inv.observe_sent(3, {vote(raftpb::MSG_VOTE_RESP, 3, 1, 8)});      // a new term: a new vote
  EXPECT_TRUE(inv.ok()) << inv.violations().front();
  inv.observe_sent(3, {vote(raftpb::MSG_VOTE_RESP, 3, 2, 7)});  // but not for another in term 7
  ASSERT_EQ(inv.violations().size(), 1u);
  EXPECT_EQ(inv.violations()[0], "Vote Safety: node 3 voted for 3 and for 2 in term 7");
}

}  // namespace
}  // namespace dst::raft
