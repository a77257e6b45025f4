// The watch-duplicate-event bug's layer (base/bugs.h): a txn's last event is sent again at the
// front of the watch's next response with events, and nothing else changes.
#include "node/server/repeat_txn_event.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dst::node {
namespace {

etcdserverpb::WatchResponse response(int64_t watch, std::vector<std::pair<std::string, int64_t>> events) {
  etcdserverpb::WatchResponse r;
  r.set_watch_id(watch);
  for (auto& [key, rev] : events) {
    mvccpb::Event* e = r.add_events();
    e->mutable_kv()->set_key(key);
    e->mutable_kv()->set_mod_revision(rev);
  }
  return r;
}

std::vector<std::string> keys(const etcdserverpb::WatchResponse& r) {
  std::vector<std::string> out;
  for (const auto& e : r.events()) out.push_back(e.kv().key() + "@" + std::to_string(e.kv().mod_revision()));
  return out;
}

TEST(RepeatLastTxnEvent, ATxnsLastEventComesAgainFirstInTheNextResponse) {
  RepeatLastTxnEvent bug;
  auto txn = response(1, {{"a", 3}, {"b", 3}});
  bug.pass(txn);
  EXPECT_EQ(keys(txn), (std::vector<std::string>{"a@3", "b@3"}));  // sent as it was
  auto progress = response(1, {});
  bug.pass(progress);
  EXPECT_EQ(progress.events_size(), 0);  // a progress notification carries nothing
  auto next = response(1, {{"c", 4}, {"d", 5}});
  bug.pass(next);
  EXPECT_EQ(keys(next), (std::vector<std::string>{"b@3", "c@4", "d@5"}));  // etcd #17247
  auto after = response(1, {{"e", 6}});
  bug.pass(after);
  EXPECT_EQ(keys(after), (std::vector<std::string>{"e@6"}));  // d@5 ended no txn: nothing more
  EXPECT_EQ(bug.pending(), 0u);
}

TEST(RepeatLastTxnEvent, OtherWatchesAndCanceledWatchesAreLeftAlone) {
  RepeatLastTxnEvent bug;
  auto txn = response(1, {{"a", 3}, {"b", 3}});
  bug.pass(txn);
  auto other = response(2, {{"x", 4}});
  bug.pass(other);
  EXPECT_EQ(keys(other), (std::vector<std::string>{"x@4"}));
  auto cancel = response(1, {});
  cancel.set_canceled(true);
  bug.pass(cancel);
  EXPECT_EQ(bug.pending(), 0u);  // forgotten with its watch: a reused id starts clean
  auto reused = response(1, {{"c", 5}});
  bug.pass(reused);
  EXPECT_EQ(keys(reused), (std::vector<std::string>{"c@5"}));
}

}  // namespace
}  // namespace dst::node
