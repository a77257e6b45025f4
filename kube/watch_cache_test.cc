#include "kube/watch_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dst::kube {
namespace {

mvccpb::Event put(const std::string& key, const std::string& value, int64_t rev) {
  mvccpb::Event e;
  e.set_type(mvccpb::Event::PUT);
  e.mutable_kv()->set_key(key);
  e.mutable_kv()->set_value(value);
  e.mutable_kv()->set_mod_revision(rev);
  return e;
}

mvccpb::Event del(const std::string& key, int64_t rev) {
  mvccpb::Event e;
  e.set_type(mvccpb::Event::DELETE);
  e.mutable_kv()->set_key(key);
  e.mutable_kv()->set_mod_revision(rev);
  return e;
}

std::vector<std::string> describe(const std::vector<CacheEvent>& events) {
  std::vector<std::string> out;
  for (const CacheEvent& e : events)
    out.push_back(std::string(event_type_name(e.type)) + " " + e.key + "=" + e.value + "@" +
                  std::to_string(e.resource_version));
  return out;
}

TEST(WatchCache, EventsBecomeObjectsAndTheRingReplaysAfterARevision) {
  WatchCache c(10);
  ASSERT_TRUE(c.apply(put("/registry/pods/a", "1", 5)).is_ok());
  ASSERT_TRUE(c.apply(put("/registry/pods/b", "1", 6)).is_ok());
  ASSERT_TRUE(c.apply(put("/registry/pods/a", "2", 7)).is_ok());
  ASSERT_TRUE(c.apply(del("/registry/pods/b", 8)).is_ok());
  EXPECT_EQ(c.resource_version(), 8);
  Result<ListResult> l = c.list(0);
  ASSERT_TRUE(l.is_ok());
  EXPECT_EQ(l->resource_version, 8);
  ASSERT_EQ(l->objects.size(), 1u);
  EXPECT_EQ(l->objects[0].first, "/registry/pods/a");
  EXPECT_EQ(l->objects[0].second.value, "2");
  EXPECT_EQ(l->objects[0].second.resource_version, 7);
  Result<std::vector<CacheEvent>> w = c.events_after(6);
  ASSERT_TRUE(w.is_ok());
  // A deletion carries the object as it was last, as Kubernetes sends it.
  EXPECT_EQ(describe(*w), (std::vector<std::string>{"MODIFIED /registry/pods/a=2@7", "DELETED /registry/pods/b=1@8"}));
  EXPECT_TRUE(c.events_after(8)->empty());
}

TEST(WatchCache, ASelectedReplayKeepsItsPrefixAndSaysHowFarItWent) {
  WatchCache c(10);
  ASSERT_TRUE(c.apply(put("/p/n1-a", "1", 5)).is_ok());
  ASSERT_TRUE(c.apply(put("/p/n2-a", "1", 6)).is_ok());
  ASSERT_TRUE(c.apply(put("/p/n1-b", "1", 7)).is_ok());
  ASSERT_TRUE(c.apply(put("/p/n2-b", "1", 8)).is_ok());
  int64_t newest = 5;
  Result<std::vector<CacheEvent>> w = c.events_after(5, "/p/n1-", newest);
  ASSERT_TRUE(w.is_ok());
  EXPECT_EQ(describe(*w), (std::vector<std::string>{"ADDED /p/n1-b=1@7"}));
  EXPECT_EQ(newest, 8);  // past n2-b too: the watch goes on from there
  int64_t none = 8;
  EXPECT_TRUE(c.events_after(8, "/p/n1-", none)->empty());
  EXPECT_EQ(none, 8);
  EXPECT_EQ(describe(*c.events_after(6)), (std::vector<std::string>{"ADDED /p/n1-b=1@7", "ADDED /p/n2-b=1@8"}));
}

TEST(WatchCache, EventsOfOneTxnShareARevisionButNeverGoBack) {
  WatchCache c(10);
  ASSERT_TRUE(c.apply(put("a", "1", 4)).is_ok());
  ASSERT_TRUE(c.apply(put("b", "1", 4)).is_ok());  // the same txn
  Status back = c.apply(put("c", "1", 3));
  EXPECT_EQ(back.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(back.message(), "event at revision 3 after the cache reached 4");
  EXPECT_EQ(c.apply(del("nope", 5)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(c.resource_version(), 4);
  // A progress notification promises revision 9 complete: an event at 9 afterwards was lost
  // and reordered by the feed.
  c.progress(9);
  EXPECT_EQ(c.resource_version(), 9);
  EXPECT_EQ(c.apply(put("a", "2", 9)).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(c.apply(put("a", "2", 10)).is_ok());
}

TEST(WatchCache, AWatchFromBeforeTheRingIsTooOld) {
  WatchCache c(3);
  for (int64_t rev = 2; rev <= 6; ++rev) ASSERT_TRUE(c.apply(put("k", std::to_string(rev), rev)).is_ok());
  EXPECT_EQ(c.ring_size(), 3u);  // 4, 5, 6
  EXPECT_EQ(c.oldest_watchable(), 3);
  Result<std::vector<CacheEvent>> gone = c.events_after(2);
  ASSERT_FALSE(gone.is_ok());
  EXPECT_EQ(gone.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(gone.status().message(), "too old resource version: 2 (3)");
  Result<std::vector<CacheEvent>> from3 = c.events_after(3);
  ASSERT_TRUE(from3.is_ok());
  EXPECT_EQ(describe(*from3), (std::vector<std::string>{"MODIFIED k=4@4", "MODIFIED k=5@5", "MODIFIED k=6@6"}));
}

TEST(WatchCache, ARevisionSplitByTheRingEdgeIsServedOnlyFromItsEnd) {
  WatchCache c(2);
  ASSERT_TRUE(c.apply(put("a", "1", 5)).is_ok());
  ASSERT_TRUE(c.apply(put("b", "1", 5)).is_ok());
  ASSERT_TRUE(c.apply(put("c", "1", 6)).is_ok());  // evicts a@5; b@5 stays
  EXPECT_EQ(c.oldest_watchable(), 5);
  EXPECT_FALSE(c.events_after(4).is_ok());  // would miss a@5
  EXPECT_EQ(describe(*c.events_after(5)), (std::vector<std::string>{"ADDED c=1@6"}));
}

TEST(WatchCache, AListWaitsForTheCacheToReachItsRevision) {
  WatchCache c(4);
  ASSERT_TRUE(c.apply(put("k", "1", 3)).is_ok());
  Result<ListResult> ahead = c.list(5);
  ASSERT_FALSE(ahead.is_ok());
  EXPECT_EQ(ahead.status().code(), StatusCode::kUnavailable);
  c.progress(5);  // an etcd progress notification: nothing changed up to 5
  Result<ListResult> at5 = c.list(5);
  ASSERT_TRUE(at5.is_ok());
  EXPECT_EQ(at5->resource_version, 5);
  EXPECT_EQ(at5->objects.size(), 1u);
}

TEST(WatchCache, AReListReplacesEverythingAndForgetsTheRing) {
  WatchCache c(4);
  ASSERT_TRUE(c.apply(put("a", "1", 3)).is_ok());
  ASSERT_TRUE(c.apply(put("b", "1", 4)).is_ok());
  mvccpb::KeyValue b;
  b.set_key("b");
  b.set_value("2");
  b.set_mod_revision(9);
  ASSERT_TRUE(c.replace({b}, 12).is_ok());
  EXPECT_EQ(c.size(), 1u);
  EXPECT_EQ(c.resource_version(), 12);
  EXPECT_EQ(c.ring_size(), 0u);
  EXPECT_FALSE(c.events_after(11).is_ok());  // the events up to 12 were never seen
  EXPECT_TRUE(c.events_after(12)->empty());
  EXPECT_EQ(c.replace({b}, 11).code(), StatusCode::kInvalidArgument);  // never back
  b.set_mod_revision(13);
  EXPECT_EQ(c.replace({b}, 12).code(), StatusCode::kInvalidArgument);  // an object newer than its list
  ASSERT_TRUE(c.apply(put("a", "2", 13)).is_ok());
  EXPECT_EQ(describe(*c.events_after(12)), (std::vector<std::string>{"ADDED a=2@13"}));
}

}  // namespace
}  // namespace dst::kube
