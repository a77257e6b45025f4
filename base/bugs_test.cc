// The bug zoo's registry: every bug by name, the zoo's aliases, sets as --bug arguments, layers,
// and a clear error that lists every valid name.
#include "base/bugs.h"

#include <gtest/gtest.h>

#include <set>

namespace dst {
namespace {

TEST(Bugs, EveryBugHasAUniqueNameThatParsesBack) {
  std::set<std::string_view> names;
  for (Bug b : all_bugs()) {
    EXPECT_TRUE(names.insert(bug_name(b)).second) << bug_name(b);
    Result<Bug> back = parse_bug(bug_name(b));
    ASSERT_TRUE(back.is_ok()) << back.status().to_string();
    EXPECT_EQ(*back, b);
  }
  EXPECT_EQ(all_bugs().size(), static_cast<size_t>(Bug::kCount));
}

TEST(Bugs, ListOfNamesAndAliasesAcrossLayers) {
  Result<Bugs> b = parse_bugs("stale-read,vote-not-persisted,commit-old-term,watch-duplicate-event,drop-on-ring-wrap");
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  EXPECT_TRUE(b->on(Bug::kStaleRead));
  EXPECT_TRUE(b->on(Bug::kVoteBeforePersist));
  EXPECT_TRUE(b->on(Bug::kCommitOldTermEntries));
  EXPECT_TRUE(b->on(Bug::kWatchDuplicateEvent));
  EXPECT_TRUE(b->on(Bug::kDropOnRingWrap));
  EXPECT_FALSE(b->on(Bug::kAckBeforePersist));
  EXPECT_EQ(b->list().size(), 5u);
  EXPECT_TRUE(b->any_in(BugLayer::kRaft) && b->any_in(BugLayer::kMember) && b->any_in(BugLayer::kKube));

  Result<Bugs> alias = parse_bugs("ack-before-fsync");
  ASSERT_TRUE(alias.is_ok());
  EXPECT_EQ(*alias, Bugs::of(Bug::kAckBeforePersist));
  EXPECT_FALSE(alias->any_in(BugLayer::kMember));
}

TEST(Bugs, NamesRoundTripAsACommandLineArgument) {
  Bugs set = Bugs::of(Bug::kListNotCaughtUp).with(Bug::kVoteIgnoresLog).with(Bug::kWatchTimeTravel);
  EXPECT_EQ(set.names(), "vote-ignores-log,watch-time-travel,list-not-caught-up");  // enum order
  Result<Bugs> back = parse_bugs(set.names());
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(*back, set);
  EXPECT_EQ(Bugs().names(), "");
  EXPECT_TRUE(Bugs().empty());
  EXPECT_FALSE(set.empty());
}

TEST(Bugs, UnknownOrEmptyEntryListsEveryValidName) {
  Result<Bugs> b = parse_bugs("stale-read,stale-raed");
  ASSERT_FALSE(b.is_ok());
  const std::string m = b.status().message();
  EXPECT_NE(m.find("unknown bug 'stale-raed'"), std::string::npos) << m;
  for (Bug each : all_bugs()) EXPECT_NE(m.find(bug_name(each)), std::string::npos) << m;
  EXPECT_NE(m.find("ack-before-fsync"), std::string::npos) << m;
  EXPECT_FALSE(parse_bugs("").is_ok());
  EXPECT_FALSE(parse_bugs("stale-read,").is_ok());
  EXPECT_FALSE(parse_bugs("stale-read,,commit-old-term").is_ok());
}

}  // namespace
}  // namespace dst
