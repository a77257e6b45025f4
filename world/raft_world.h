// The standard Raft world behind `dst run raft`: a cluster under random faults for a while, then a
// heal and a liveness check, with the invariants checked after every step. Its summary is what a
// person reads to see whether (and how) a seed failed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "world/sim_cluster.h"
#include "sim/simulator.h"

namespace dst::world {

struct RaftWorldOptions {
  size_t nodes = 3;
  sim::DurationNs duration = sim::seconds(20);  // the fault window
  sim::DurationNs recovery_bound = sim::seconds(15);
  bool faults = true;
  Bugs bugs;  // the run's bugs (base/bugs.h): Raft's only
  bool kv = false;    // apply a mixed etcd KV load to the KV state machine instead of a hash chain
};

struct RaftWorldResult {
  bool invariants_ok = false;
  bool liveness_ok = false;
  std::vector<std::string> violations;  // the first ones, in order
  uint64_t violation_count = 0;
  LivenessReport liveness;
  std::vector<std::string> fault_log;
  std::string summary;  // multi-line report, without the seed line and the trace hash
  bool pass() const { return invariants_ok && liveness_ok; }
};

// The cluster configuration the Raft simulation tests and this world share: load at the leader,
// reads on every node, frequent snapshots and WAL segment cuts so every run exercises them.
ClusterOptions standard_cluster_options(size_t nodes);

RaftWorldResult run_raft_world(sim::Simulator& sim, const RaftWorldOptions& options);

}  // namespace dst::world
