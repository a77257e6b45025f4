// The service half of the liveness phase: Raft recovering after the heal (a leader, every member
// caught up) is not yet service. A probe client must then get a write acknowledged, and every
// current member must answer a linearizable read, within the bound: what an etcd user would call
// "the cluster is back". The probe's requests are recorded with the history and checked with it.
#pragma once

#include <cstdint>
#include <string>

#include "history/recorder.h"
#include "world/sim_cluster.h"
#include "sim/simulator.h"

namespace dst::world {

// Client ids of the probe (far above the workload's and the scenario's).
inline constexpr uint32_t kServiceProbeClientIdBase = 2'000'000;

struct ServiceReport {
  bool ok = false;
  sim::DurationNs took = 0;  // from the call to the last member's answer
  std::string detail;        // what did not answer, when not ok
};

// Runs the simulation until the probe is done or `bound` has passed. The probe runs in a process
// on a host of its own, created here.
ServiceReport probe_service(sim::Simulator& sim, SimCluster& cluster, history::Recorder& recorder, uint16_t api_port,
                            sim::DurationNs bound);

}  // namespace dst::world
