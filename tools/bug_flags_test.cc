// `--bug NAMES`: Raft, node and kube bugs by name, the bug zoo's aliases, and a clear error.
#include "tools/bug_flags.h"

#include <gtest/gtest.h>

#include "kube/kube_bugs.h"
#include "node/raft/config.h"
#include "node/server/node_bugs.h"

namespace dst {
namespace {

TEST(BugFlags, RaftNodeAndAliasNames) {
  Result<BugSet> b = parse_bug_list("stale-read,vote-not-persisted,commit-old-term,watch-duplicate-event");
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  EXPECT_EQ(b->raft, static_cast<uint32_t>(raft::Bug::kVoteBeforePersist) |
                         static_cast<uint32_t>(raft::Bug::kCommitOldTermEntries));
  EXPECT_EQ(b->node, static_cast<uint32_t>(node::NodeBug::kStaleRead) |
                         static_cast<uint32_t>(node::NodeBug::kWatchDuplicateEvent));
  Result<BugSet> alias = parse_bug_list("ack-before-fsync");
  ASSERT_TRUE(alias.is_ok());
  EXPECT_EQ(alias->raft, static_cast<uint32_t>(raft::Bug::kAckBeforePersist));
  EXPECT_EQ(alias->node, 0u);
  Result<BugSet> kube = parse_bug_list("drop-on-ring-wrap,list-not-caught-up");
  ASSERT_TRUE(kube.is_ok());
  EXPECT_EQ(kube->kube, static_cast<uint32_t>(kube::KubeBug::kDropOnRingWrap) |
                            static_cast<uint32_t>(kube::KubeBug::kListNotCaughtUp));
  EXPECT_EQ(kube->raft | kube->node, 0u);
}

TEST(BugFlags, UnknownNameListsEveryValidOne) {
  Result<BugSet> b = parse_bug_list("stale-read,stale-raed");
  ASSERT_FALSE(b.is_ok());
  const std::string m = b.status().message();
  EXPECT_NE(m.find("unknown bug 'stale-raed'"), std::string::npos) << m;
  for (raft::Bug r : raft::all_bugs()) EXPECT_NE(m.find(raft::bug_name(r)), std::string::npos) << m;
  for (node::NodeBug n : node::all_node_bugs()) EXPECT_NE(m.find(node::node_bug_name(n)), std::string::npos) << m;
  for (kube::KubeBug k : kube::all_kube_bugs()) EXPECT_NE(m.find(kube::kube_bug_name(k)), std::string::npos) << m;
  EXPECT_FALSE(parse_bug_list("").is_ok());
}

}  // namespace
}  // namespace dst
