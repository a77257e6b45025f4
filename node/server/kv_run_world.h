// A KV cluster driven by real clients: a workload profile (client/workload.h) and watchers talk to
// a 3-member etcd-style cluster through the client API while the nemesis injects faults; then a
// heal, a liveness check and a quiet period so that watchers catch up. Everything the clients saw
// is recorded (history::Recorder) for the checkers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/workload.h"
#include "history/recorder.h"
#include "node/server/sim_cluster.h"
#include "sim/simulator.h"

namespace dst::node {

struct KvRunOptions {
  size_t nodes = 3;
  client::WorkloadOptions workload;
  sim::DurationNs duration = sim::seconds(20);  // clients and faults run this long
  sim::DurationNs recovery_bound = sim::seconds(15);
  sim::DurationNs settle = sim::seconds(3);  // after recovery: clients stopped, watchers catch up
  bool faults = true;
  NemesisOptions nemesis;  // duration is set from `duration`
};

struct KvRunResult {
  bool invariants_ok = false;
  bool liveness_ok = false;
  bool members_agree = false;  // same state hash at the same applied index after the heal
  LivenessReport liveness;
  std::vector<std::string> violations;
  client::WorkloadStats workload;
  std::vector<std::string> fault_log;
  std::vector<std::string> exits;  // members that took themselves down, and why
};

// Runs the world; every operation and watch response goes to `recorder`, every nemesis action
// becomes a Fault in it.
KvRunResult run_kv_world(sim::Simulator& sim, const KvRunOptions& options, history::Recorder& recorder);

}  // namespace dst::node
