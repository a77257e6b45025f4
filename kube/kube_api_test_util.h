// A fixture for tests of the kube processes (the Cacher, the apiserver) against a simulated
// 3-member etcd cluster: they run on a host of their own, get client ids that do not clash with
// the test's, and record their etcd traffic.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "history/recorder.h"
#include "node/server/api_test_util.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::kube::testing {

inline constexpr char kPrefix[] = "/registry/pods/";

class KubeApiTest : public node::testing::ApiTest {
 protected:
  // The etcd members' client addresses.
  std::vector<sim::Address> members() const {
    std::vector<sim::Address> out;
    for (size_t i = 0; i < 3; ++i) out.push_back(world_->member_address(i));
    return out;
  }
  // Starts a process on the apiserver's host (added on first use) whose one fiber runs `body`.
  template <typename Body>
  void start_on_apiserver_host(const std::string& fiber, Body body) {
    sim::Simulator& sim = world_->sim();
    if (!host_added_) apiserver_host_ = sim.add_host("apiserver");
    host_added_ = true;
    sim.spawn(sim.start_process(apiserver_host_, "apiserver"), fiber, std::move(body));
  }
  uint32_t next_client_id() { return next_client_++; }

  sim::HostId apiserver_host_ = 0;
  // The kube process's etcd traffic, recorded as a run records an apiserver's.
  history::MemoryRecorder recorder_;

 private:
  bool host_added_ = false;
  uint32_t next_client_ = 100;
};

}  // namespace dst::kube::testing
