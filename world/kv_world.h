// A simulated etcd-style KV cluster with one client host: what `dst shell` and the client-API
// tests drive. Client code runs in fibers of the client process; run_client() advances virtual
// time exactly until that code returns (or a bound passes), so a session of requests is a
// deterministic function of the seed and the requests.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "rpc/etcd_connection.h"
#include "world/sim_cluster.h"
#include "sim/simulator.h"

namespace dst::world {

struct KvWorldOptions {
  uint64_t seed = 1;
  size_t nodes = 3;
  node::ServerOptions server;  // template for every member (state machine forced to KV)
  sim::LinkConfig link;
};

class KvWorld {
 public:
  explicit KvWorld(KvWorldOptions options);
  ~KvWorld();

  sim::Simulator& sim() { return *sim_; }
  SimCluster& cluster() { return *cluster_; }
  sim::Address member_address(size_t i) const;
  sim::HostId client_host() const { return client_host_; }

  // Runs `body` in a fiber of the client process until it returns; false if `bound` of virtual
  // time passed first (the fiber is then cancelled, and ended before this returns).
  bool run_client(std::function<void()> body, sim::DurationNs bound = sim::seconds(120));
  // Lets virtual time pass with nothing but the cluster running.
  void advance(sim::DurationNs d) { sim_->run_for(d); }
  // Runs until some member leads and every live member has applied its commit index; false
  // after `bound`.
  bool await_stable_leader(sim::DurationNs bound = sim::seconds(30));
  // A connection from the client process to member i, opened on first use (call inside
  // run_client); null if it cannot connect. A broken connection is replaced on the next call.
  rpc::Connection* connection(size_t i);

 private:
  KvWorldOptions options_;
  std::unique_ptr<sim::Simulator> sim_;
  std::unique_ptr<SimCluster> cluster_;
  sim::HostId client_host_ = 0;
  sim::ProcessId client_ = sim::kNoProcess;
  std::vector<std::unique_ptr<rpc::Connection>> connections_;
};

}  // namespace dst::world
