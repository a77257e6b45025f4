// The Kubernetes processes end to end against a simulated 3-member etcd cluster: apiservers fill
// their caches and serve informers, controllers write and reconcile, and every informer's final
// store equals etcd's state, also across an apiserver crash, an apiserver cut off from etcd and a
// paused controller whose watch fell out of the cache's ring.
#include "kube/kube_world.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "history/recorder.h"
#include "base/bugs.h"
#include "node/server/api_test_util.h"

namespace dst::kube {
namespace {

using etcdserverpb::ApiRequest;
using node::testing::ApiTest;
using sim::seconds;

constexpr char kPodsPrefix[] = "/registry/pods/";

class KubeWorldTest : public ApiTest {
 protected:
  std::unique_ptr<KubeWorld> make(KubeWorldOptions o) {
    std::vector<sim::Address> members;
    for (size_t i = 0; i < 3; ++i) members.push_back(world_->member_address(i));
    return std::make_unique<KubeWorld>(world_->sim(), std::move(o), members, recorder_);
  }
  // etcd's objects under the prefix now: key -> value@mod_revision.
  std::map<std::string, std::string> etcd_now() {
    std::map<std::string, std::string> out;
    session([&] {
      ApiRequest r = get(kPodsPrefix);
      r.mutable_range()->set_range_end("/registry/pods0");
      const etcdserverpb::ApiResponse resp = call(leader_, r);
      for (const auto& kv : resp.range().kvs())
        out[kv.key()] = kv.value() + "@" + std::to_string(kv.mod_revision());
    });
    return out;
  }
  static std::map<std::string, std::string> final_store(const history::Informer& i) {
    std::map<std::string, std::string> out;
    for (const history::KubeObject& o : i.final_objects) out[o.key] = o.value + "@" + std::to_string(o.resource_version);
    return out;
  }
  history::MemoryRecorder recorder_;
};

TEST_F(KubeWorldTest, InformersConvergeToEtcdThroughApiserverFaults) {
  start();
  sim::Simulator& sim = world_->sim();
  KubeWorldOptions o;
  o.apiservers = 2;
  o.controllers = 3;
  o.cache_capacity = 50;
  o.writes_per_second = 10;
  auto kube = make(o);
  const sim::TimeNs t0 = sim.now();
  kube->start(t0 + seconds(20), t0 + seconds(30));
  sim.run_until(t0 + seconds(4));
  kube->crash_apiserver(1);
  sim.run_until(t0 + seconds(6));
  kube->restart_apiserver(1);
  kube->cut_apiserver(2);
  sim.run_until(t0 + seconds(12));  // past the stream break timeout: the cache's etcd watch breaks
  kube->reconnect_apiserver(2);
  // A controller that stops reading while 10 writes a second go on: its watch leaves the ring.
  kube->pause_controller(1);
  sim.run_until(t0 + seconds(18));
  kube->resume_controller(1);
  sim.run_until(t0 + seconds(31));
  for (const std::string& line : kube->summary()) std::printf("%s\n", line.c_str());

  const std::map<std::string, std::string> etcd = etcd_now();
  EXPECT_GT(etcd.size(), 5u);
  const history::History& h = recorder_.history();
  ASSERT_EQ(h.informers.size(), 3u);
  size_t watches = 0;
  for (const history::Informer& i : h.informers) {
    ASSERT_TRUE(i.finished);
    EXPECT_EQ(final_store(i), etcd) << "informer " << i.id;
    EXPECT_FALSE(i.processed.empty());
    watches += i.watches.size();
  }
  EXPECT_GE(watches, 5u);  // the crash moved two informers, the pause ended one watch
  // The paused controller's watch ended with 410 and it re-listed.
  bool gone = false;
  for (const history::KubeWatch& w : h.informers[0].watches) gone = gone || w.end.rfind("410", 0) == 0;
  EXPECT_TRUE(gone);
  // Every object got its status from some controller.
  for (const auto& [key, value] : etcd) EXPECT_NE(value.find(";status=c"), std::string::npos) << key;
  world_.reset();  // the kube processes' fibers end before the KubeWorld they use
}

}  // namespace
}  // namespace dst::kube
