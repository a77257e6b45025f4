#include "kube/informer_store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dst::kube {
namespace {

// Records the handler's notifications as "add k=v@rv", "update k v->w@rv", "delete k=v@rv".
struct Recorder {
  std::vector<std::string> lines;
  InformerStore::Handler handler() {
    return [this](const Notification& n) {
      switch (n.kind) {
        case Notification::Kind::kAdd:
          lines.push_back("add " + n.key + "=" + n.new_value + "@" + std::to_string(n.resource_version));
          break;
        case Notification::Kind::kUpdate:
          lines.push_back("update " + n.key + " " + n.old_value + "->" + n.new_value + "@" +
                          std::to_string(n.resource_version));
          break;
        case Notification::Kind::kDelete:
          lines.push_back("delete " + n.key + "=" + n.old_value + "@" + std::to_string(n.resource_version));
          break;
      }
    };
  }
};

CacheEvent ev(EventType t, const std::string& key, const std::string& value, int64_t rv) { return {t, key, value, rv}; }

TEST(InformerStore, ListThenWatchEventsNotifyTheHandlers) {
  Recorder r;
  InformerStore s(r.handler());
  ASSERT_TRUE(s.replace({{"a", {"1", 3}}, {"b", {"1", 4}}}, 5).is_ok());
  ASSERT_TRUE(s.apply(ev(EventType::kModified, "a", "2", 6)).is_ok());
  ASSERT_TRUE(s.apply(ev(EventType::kAdded, "c", "1", 7)).is_ok());
  ASSERT_TRUE(s.apply(ev(EventType::kDeleted, "b", "1", 8)).is_ok());
  EXPECT_EQ(r.lines, (std::vector<std::string>{"add a=1@3", "add b=1@4", "update a 1->2@6", "add c=1@7", "delete b=1@8"}));
  EXPECT_EQ(s.resource_version(), 8);
  EXPECT_EQ(s.objects().size(), 2u);
}

TEST(InformerStore, EventsThatDoNotFitAreRefusedAndChangeNothing) {
  Recorder r;
  InformerStore s(r.handler());
  ASSERT_TRUE(s.replace({{"a", {"1", 3}}}, 5).is_ok());
  r.lines.clear();
  EXPECT_EQ(s.apply(ev(EventType::kModified, "a", "x", 5)).code(), StatusCode::kInvalidArgument);  // at the list's rv
  EXPECT_EQ(s.apply(ev(EventType::kAdded, "a", "x", 6)).code(), StatusCode::kInvalidArgument);     // held already
  EXPECT_EQ(s.apply(ev(EventType::kModified, "b", "x", 6)).code(), StatusCode::kInvalidArgument);  // not held
  EXPECT_EQ(s.apply(ev(EventType::kDeleted, "b", "x", 6)).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(s.apply(ev(EventType::kModified, "a", "2", 9)).is_ok());
  Status back = s.apply(ev(EventType::kAdded, "z", "1", 8));
  EXPECT_EQ(back.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(back.message(), "ADDED z at 8: before the informer's 9");
  s.bookmark(12);
  EXPECT_EQ(s.apply(ev(EventType::kAdded, "z", "1", 12)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.lines, (std::vector<std::string>{"update a 1->2@9"}));
  EXPECT_EQ(s.resource_version(), 12);
}

TEST(InformerStore, AReListTurnsTheDifferenceIntoNotifications) {
  Recorder r;
  InformerStore s(r.handler());
  ASSERT_TRUE(s.replace({{"a", {"1", 3}}, {"b", {"1", 4}}, {"c", {"1", 5}}}, 5).is_ok());
  r.lines.clear();
  // After a 410: b changed, c was deleted and d created while the informer was not watching.
  ASSERT_TRUE(s.replace({{"a", {"1", 3}}, {"b", {"2", 9}}, {"d", {"1", 10}}}, 11).is_ok());
  EXPECT_EQ(r.lines,
            (std::vector<std::string>{"update a 1->1@3", "update b 1->2@9", "delete c=1@11", "add d=1@10"}));
  EXPECT_EQ(s.replace({}, 10).code(), StatusCode::kInvalidArgument);  // never back
}

TEST(InformerStore, ResyncUpdatesEveryObjectWithItself) {
  Recorder r;
  InformerStore s(r.handler());
  ASSERT_TRUE(s.replace({{"a", {"1", 3}}, {"b", {"2", 4}}}, 4).is_ok());
  r.lines.clear();
  s.resync();
  EXPECT_EQ(r.lines, (std::vector<std::string>{"update a 1->1@3", "update b 2->2@4"}));
}

}  // namespace
}  // namespace dst::kube
