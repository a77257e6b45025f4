// The Cacher against a simulated 3-member etcd cluster: its cache must equal etcd's state for the
// prefix at the cache's resourceVersion, also after the member it watches crashes.
#include "kube/cacher.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kube/kube_api_test_util.h"

namespace dst::kube {
namespace {

using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;
using sim::milliseconds;
using sim::seconds;
using testing::kPrefix;

class CacherTest : public testing::KubeApiTest {
 protected:
  CacherOptions options() {
    CacherOptions o;
    o.prefix = kPrefix;
    o.members = members();
    o.capacity = 1000;
    o.next_client_id = [this] { return next_client_id(); };
    return o;
  }
  // Starts the cacher on a host of its own (the apiserver's), running until `until`.
  void start_cacher(Cacher& c, sim::TimeNs until) { start_on_apiserver_host("cacher", [&c, until] { c.run(until); }); }
  // Cuts (or restores) the apiserver's links to every member, both ways.
  void cut_apiserver(bool cut) {
    for (size_t i = 0; i < 3; ++i) {
      world_->sim().net().set_reachable(apiserver_host_, world_->cluster().host(i), !cut);
      world_->sim().net().set_reachable(world_->cluster().host(i), apiserver_host_, !cut);
    }
  }
  // etcd's objects under the prefix at `rev`, as the cache lists them.
  std::vector<std::string> etcd_at(size_t member, int64_t rev) {
    ApiRequest r = get(kPrefix, false, rev);
    r.mutable_range()->set_range_end("/registry/pods0");
    ApiResponse resp = call(member, r);
    std::vector<std::string> out;
    for (const auto& kv : resp.range().kvs())
      out.push_back(kv.key() + "=" + kv.value() + "@" + std::to_string(kv.mod_revision()));
    return out;
  }
  static std::vector<std::string> cached(const WatchCache& cache) {
    std::vector<std::string> out;
    const Result<ListResult> listed = cache.list(0);
    for (const auto& [key, obj] : listed->objects)
      out.push_back(key + "=" + obj.value + "@" + std::to_string(obj.resource_version));
    return out;
  }
  // Puts, overwrites and deletes under the prefix, and writes outside it.
  void write_traffic(size_t member, int rounds) {
    for (int i = 0; i < rounds; ++i) {
      const std::string pod = std::string(kPrefix) + "p" + std::to_string(i % 7);
      call(member, put(pod, "v" + std::to_string(i)));
      call(member, put("/registry/nodes/n" + std::to_string(i % 3), "x"));
      if (i % 5 == 4) call(member, del(pod));
    }
  }
};

TEST_F(CacherTest, TheCacheEqualsEtcdAtItsResourceVersion) {
  start();
  Cacher cacher(world_->sim(), options(), recorder_);
  start_cacher(cacher, world_->sim().now() + seconds(20));
  session([&] {
    call(leader_, put(std::string(kPrefix) + "before", "1"));
    ASSERT_EQ(world_->sim().sleep(milliseconds(500)), sim::WaitResult::kOk);
    write_traffic(leader_, 60);
    ASSERT_EQ(world_->sim().sleep(seconds(2)), sim::WaitResult::kOk);
    const int64_t rv = cacher.cache().resource_version();
    EXPECT_EQ(cached(cacher.cache()), etcd_at(leader_, rv));
    EXPECT_EQ(cached(cacher.cache()), etcd_at(leader_, 0));  // caught up with the latest state
  });
  EXPECT_EQ(cacher.stats().lists, 1u);
  EXPECT_EQ(cacher.stats().refused, 0u);
  EXPECT_GT(cacher.stats().events, 60u);
  EXPECT_GT(cacher.stats().progress, 0u);  // the node/ prefix writes move etcd, not the cache's prefix
  world_.reset();  // its fibers (the cacher's among them) end before the cacher they use
}

TEST_F(CacherTest, AWatchBrokenByACrashResumesOnTheNextMemberWithoutAGap) {
  start();
  Cacher cacher(world_->sim(), options(), recorder_);  // watches member 0 first
  start_cacher(cacher, world_->sim().now() + seconds(30));
  session([&] {
    write_traffic(leader_, 20);
    world_->cluster().crash(0);
    write_traffic(leader_ == 0 ? 1 : leader_, 20);
    ASSERT_EQ(world_->sim().sleep(seconds(5)), sim::WaitResult::kOk);
    // The cluster may have a new leader; read from a live member.
    const size_t live = world_->cluster().leader().value_or(1);
    const int64_t rv = cacher.cache().resource_version();
    EXPECT_EQ(cached(cacher.cache()), etcd_at(live, rv));
    EXPECT_EQ(cached(cacher.cache()), etcd_at(live, 0));
  });
  EXPECT_GE(cacher.stats().watches, 2u);
  EXPECT_EQ(cacher.stats().lists, 1u);  // resumed, not re-listed
  EXPECT_EQ(cacher.stats().refused, 0u);
  world_.reset();
}

TEST_F(CacherTest, AWatchOverrunByCompactionReLists) {
  start();
  Cacher cacher(world_->sim(), options(), recorder_);
  start_cacher(cacher, world_->sim().now() + seconds(40));
  session([&] {
    write_traffic(leader_, 10);
    ASSERT_EQ(world_->sim().sleep(seconds(1)), sim::WaitResult::kOk);
    const int64_t before = cacher.cache().resource_version();
    cut_apiserver(true);
    write_traffic(leader_, 30);
    // Compact everything the cut-off cache has not seen: its resumed watch is refused.
    const int64_t latest = call(leader_, get(kPrefix)).range().header().revision();
    call(leader_, compact(latest, true));
    // Long enough for the cut to break the watch stream (a short cut only delays its events).
    ASSERT_EQ(world_->sim().sleep(seconds(10)), sim::WaitResult::kOk);
    cut_apiserver(false);
    ASSERT_EQ(world_->sim().sleep(seconds(8)), sim::WaitResult::kOk);
    EXPECT_GT(cacher.cache().resource_version(), before);
    EXPECT_EQ(cached(cacher.cache()), etcd_at(leader_, 0));
    // The re-list emptied the ring: a WATCH from before it is 410 Gone.
    EXPECT_FALSE(cacher.cache().events_after(before).is_ok());
  });
  EXPECT_GE(cacher.stats().compacted, 1u);
  EXPECT_EQ(cacher.stats().lists, 2u);
  world_.reset();
}

}  // namespace
}  // namespace dst::kube
