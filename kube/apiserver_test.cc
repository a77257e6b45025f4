// The apiserver's answers, one request at a time, against a simulated 3-member etcd cluster:
// Kubernetes' optimistic concurrency on writes, LIST from etcd or from the cache, WATCH from the
// cache with 410 Gone once the events left the ring, and the list-not-caught-up bug.
#include "kube/apiserver.h"

#include <gtest/gtest.h>

#include <string>

#include "kube/kube_api_test_util.h"
#include "base/bugs.h"
#include "kube/kube_client.h"

namespace dst::kube {
namespace {

using kubeapi::KubeRequest;
using kubeapi::KubeResponse;
using sim::milliseconds;
using sim::seconds;
using testing::kPrefix;

class ApiserverTest : public testing::KubeApiTest {
 protected:
  // Starts an apiserver on a host of its own, serving until `for_how_long` from now.
  void start_apiserver(Bugs bugs = {}, size_t capacity = 100, sim::DurationNs for_how_long = seconds(60)) {
    sim::Simulator& sim = world_->sim();
    options_.prefix = kPrefix;
    options_.members = members();
    options_.cache_capacity = capacity;
    options_.bugs = bugs;
    options_.next_client_id = [this] { return next_client_id(); };
    const sim::TimeNs until = sim.now() + for_how_long;
    start_on_apiserver_host("apiserver", [this, &sim, until] { run_apiserver(sim, options_, recorder_, until, &stats_); });
  }
  std::unique_ptr<KubeConnection> connect() {
    auto c = KubeConnection::open(world_->sim(), sim::Address{apiserver_host_, kApiserverPort});
    EXPECT_TRUE(c.is_ok()) << c.status().to_string();
    return c.is_ok() ? std::move(c).value() : nullptr;
  }
  static KubeResponse call(KubeConnection& c, const KubeRequest& req) {
    auto r = c.call(req, seconds(10));
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return r.is_ok() ? std::move(r).value() : KubeResponse();
  }
  static KubeRequest create(const std::string& name, const std::string& value) {
    KubeRequest r;
    r.mutable_create()->set_key(std::string(kPrefix) + name);
    r.mutable_create()->set_value(value);
    return r;
  }
  static KubeRequest update(const std::string& name, const std::string& value, int64_t rv) {
    KubeRequest r;
    r.mutable_update()->set_key(std::string(kPrefix) + name);
    r.mutable_update()->set_value(value);
    r.mutable_update()->set_resource_version(rv);
    return r;
  }
  static KubeRequest remove(const std::string& name, int64_t rv = 0) {
    KubeRequest r;
    r.mutable_delete_()->set_key(std::string(kPrefix) + name);
    r.mutable_delete_()->set_resource_version(rv);
    return r;
  }
  static KubeRequest list(int64_t rv) {
    KubeRequest r;
    r.mutable_list()->set_resource_version(rv);
    return r;
  }
  // Lets the apiserver's cache catch up (it follows etcd's watch, a few milliseconds behind).
  void settle() { ASSERT_EQ(world_->sim().sleep(milliseconds(300)), sim::WaitResult::kOk); }

  ApiserverOptions options_;
  ApiserverStats stats_;
};

TEST_F(ApiserverTest, WritesFollowKubernetesOptimisticConcurrency) {
  start();
  start_apiserver();
  session([&] {
    auto c = connect();
    ASSERT_NE(c, nullptr);
    const KubeResponse created = call(*c, create("a", "v1"));
    ASSERT_EQ(created.status().code(), 201);
    const int64_t rv1 = created.object().resource_version();
    EXPECT_GT(rv1, 0);
    EXPECT_EQ(call(*c, create("a", "v2")).status().code(), 409);  // already exists
    const KubeResponse updated = call(*c, update("a", "v2", rv1));
    ASSERT_EQ(updated.status().code(), 200);
    EXPECT_GT(updated.object().resource_version(), rv1);
    EXPECT_EQ(call(*c, update("a", "v3", rv1)).status().code(), 409);  // stale resourceVersion
    EXPECT_EQ(call(*c, update("b", "v1", 0)).status().code(), 404);    // no such object
    EXPECT_EQ(call(*c, remove("a", rv1)).status().code(), 409);
    const KubeResponse removed = call(*c, remove("a", updated.object().resource_version()));
    ASSERT_EQ(removed.status().code(), 200);
    EXPECT_EQ(removed.object().value(), "v2");  // the object as it was
    EXPECT_EQ(call(*c, remove("a")).status().code(), 404);
    KubeRequest outside;
    outside.mutable_create()->set_key("/registry/nodes/n1");
    EXPECT_EQ(call(*c, outside).status().code(), 400);
  });
  EXPECT_EQ(stats_.conflicts, 2u);
  world_.reset();
}

TEST_F(ApiserverTest, ListsFromEtcdOrFromTheCacheOnceItCaughtUp) {
  start();
  start_apiserver();
  session([&] {
    auto c = connect();
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(call(*c, create("a", "1")).status().code(), 201);
    const int64_t rv = call(*c, create("b", "2")).object().resource_version();
    const KubeResponse consistent = call(*c, list(0));
    ASSERT_EQ(consistent.status().code(), 200);
    EXPECT_GE(consistent.list().resource_version(), rv);
    ASSERT_EQ(consistent.list().items_size(), 2);
    EXPECT_EQ(consistent.list().items(1).value(), "2");
    settle();
    const KubeResponse cached = call(*c, list(rv));
    ASSERT_EQ(cached.status().code(), 200);
    EXPECT_GE(cached.list().resource_version(), rv);
    EXPECT_EQ(cached.list().items_size(), 2);
    // A resourceVersion etcd has not reached: the cache cannot get there in time.
    const KubeResponse future = call(*c, list(rv + 1000));
    EXPECT_EQ(future.status().code(), 504);
    EXPECT_NE(future.status().message().find("Too large resource version"), std::string::npos);
  });
  EXPECT_EQ(stats_.lists_from_etcd, 1u);
  EXPECT_EQ(stats_.lists_from_cache, 1u);
  world_.reset();
}

TEST_F(ApiserverTest, AKeyPrefixSelectsWhatAListAndAWatchSee) {
  start();
  start_apiserver();
  session([&] {
    auto c = connect();
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(call(*c, create("n1-a", "1")).status().code(), 201);
    const int64_t rv = call(*c, create("n2-a", "1")).object().resource_version();
    KubeRequest selected = list(0);
    selected.mutable_list()->set_key_prefix(std::string(kPrefix) + "n1-");
    const KubeResponse fresh = call(*c, selected);  // from etcd
    ASSERT_EQ(fresh.status().code(), 200);
    ASSERT_EQ(fresh.list().items_size(), 1);
    EXPECT_EQ(fresh.list().items(0).key(), std::string(kPrefix) + "n1-a");
    settle();
    selected.mutable_list()->set_resource_version(rv);
    const KubeResponse cached = call(*c, selected);  // from the cache
    ASSERT_EQ(cached.list().items_size(), 1);
    EXPECT_EQ(cached.list().items(0).key(), std::string(kPrefix) + "n1-a");
    KubeRequest outside = list(0);
    outside.mutable_list()->set_key_prefix("/registry/secrets/");
    EXPECT_EQ(call(*c, outside).status().code(), 400);
    // The watch is told only of its prefix's objects, and goes on past the others.
    kubeapi::WatchRequest w;
    w.set_resource_version(rv);
    w.set_key_prefix(std::string(kPrefix) + "n2-");
    auto call_id = c->watch(w);
    ASSERT_TRUE(call_id.is_ok());
    ASSERT_EQ(call(*c, update("n1-a", "2", 0)).status().code(), 200);
    const int64_t last = call(*c, update("n2-a", "2", 0)).object().resource_version();
    auto e = c->next_event(*call_id, seconds(5));
    ASSERT_TRUE(e.is_ok()) << e.status().to_string();
    EXPECT_EQ(e->object().key(), std::string(kPrefix) + "n2-a");
    EXPECT_EQ(e->object().resource_version(), last);
  });
  world_.reset();
}

TEST_F(ApiserverTest, ASelectedWatchIsToldByBookmarkThatItsVersionMovedOnWithOthersChanges) {
  start();
  start_apiserver();
  session([&] {
    auto c = connect();
    ASSERT_NE(c, nullptr);
    const int64_t rv = call(*c, create("n1-a", "1")).object().resource_version();
    settle();
    kubeapi::WatchRequest w;
    w.set_resource_version(rv);
    w.set_allow_bookmarks(true);
    w.set_key_prefix(std::string(kPrefix) + "n2-");
    auto call_id = c->watch(w);
    ASSERT_TRUE(call_id.is_ok());
    const int64_t last = call(*c, update("n1-a", "2", 0)).object().resource_version();
    auto e = c->next_event(*call_id, seconds(5));  // nothing of n2-: a bookmark at the newest rv
    ASSERT_TRUE(e.is_ok()) << e.status().to_string();
    EXPECT_EQ(e->type(), kubeapi::WatchEvent::BOOKMARK);
    EXPECT_EQ(e->object().resource_version(), last);
  });
  world_.reset();
}

TEST_F(ApiserverTest, TheBugAnswersAListTheCacheHasNotReachedWithStaleObjects) {
  start();
  start_apiserver(Bugs::of(Bug::kListNotCaughtUp));
  session([&] {
    auto c = connect();
    ASSERT_NE(c, nullptr);
    const int64_t rv = call(*c, create("a", "1")).object().resource_version();
    settle();
    const KubeResponse lie = call(*c, list(rv + 1000));
    ASSERT_EQ(lie.status().code(), 200);
    EXPECT_EQ(lie.list().resource_version(), rv + 1000);  // claims a version etcd never had
    EXPECT_EQ(lie.list().items_size(), 1);
  });
  world_.reset();
}

TEST_F(ApiserverTest, AWatchGetsEveryEventAfterItsVersionOr410WhenTheRingLostThem) {
  start();
  start_apiserver(Bugs(), /*capacity=*/5);
  session([&] {
    auto c = connect();
    ASSERT_NE(c, nullptr);
    const int64_t rv0 = call(*c, create("a", "0")).object().resource_version();
    for (int i = 1; i <= 3; ++i) ASSERT_EQ(call(*c, update("a", std::to_string(i), 0)).status().code(), 200);
    settle();
    kubeapi::WatchRequest w;
    w.set_resource_version(rv0);
    auto call_id = c->watch(w);
    ASSERT_TRUE(call_id.is_ok());
    for (int i = 1; i <= 3; ++i) {
      auto e = c->next_event(*call_id, seconds(5));
      ASSERT_TRUE(e.is_ok()) << e.status().to_string();
      EXPECT_EQ(e->type(), kubeapi::WatchEvent::MODIFIED);
      EXPECT_EQ(e->object().value(), std::to_string(i));
      EXPECT_GT(e->object().resource_version(), rv0);
    }
    // Ten more changes push the first ones out of a ring of 5: from rv0 is now too old.
    for (int i = 4; i <= 13; ++i) ASSERT_EQ(call(*c, update("a", std::to_string(i), 0)).status().code(), 200);
    settle();
    auto old = c->watch(w);
    ASSERT_TRUE(old.is_ok());
    auto gone = c->next_event(*old, seconds(5));
    ASSERT_TRUE(gone.is_ok());
    EXPECT_EQ(gone->type(), kubeapi::WatchEvent::ERROR);
    EXPECT_EQ(gone->status().code(), 410);
    EXPECT_NE(gone->status().message().find("too old resource version"), std::string::npos);
  });
  EXPECT_EQ(stats_.gone, 1u);
  world_.reset();
}

}  // namespace
}  // namespace dst::kube
