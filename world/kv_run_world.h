// A KV cluster driven by real clients: a workload profile (client/workload.h) and watchers talk to
// a 3-member etcd-style cluster through the client API while the nemesis injects faults; then a
// heal, a liveness check and a quiet period so that watchers catch up. Everything the clients saw
// is recorded (history::Recorder) for the checkers, with periodic samples of every member's Raft
// and store state (Recorder::metric) for the reports.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/workload.h"
#include "faults/fault_step.h"
#include "faults/nemesis.h"
#include "faults/random_faults.h"
#include "history/recorder.h"
#include "world/sim_cluster.h"
#include "sim/simulator.h"

namespace dst::world {

// The client ids of the members' automatic compactions in a run's history (one per compaction):
// far above the workload's and the scenario's own (1,000,000 + n).
inline constexpr uint32_t kAutoCompactorClientIdBase = 2'000'000'000;
inline constexpr uint32_t kAutoCompactorClientsMax = 1'000'000;

struct KvRunOptions {
  size_t nodes = 3;
  client::WorkloadOptions workload;
  sim::DurationNs duration = sim::seconds(20);  // clients and faults run this long
  sim::DurationNs recovery_bound = sim::seconds(15);
  sim::DurationNs settle = sim::seconds(3);  // after recovery: clients stopped, watchers catch up
  // The random nemesis (duration is set from `duration`), unless `replay` is given.
  bool faults = true;
  faults::RandomFaultOptions nemesis;
  // A recorded schedule's timed steps (random or added by hand) to run instead of random faults;
  // a scenario's own steps are matched to its calls by the scenario (scenarios/schedule_file.h).
  std::optional<std::vector<faults::FaultStep>> replay;
  // How often a sampler (a harness process on its own host, reading the members' in-memory state
  // without blocking or messaging) records each member's metrics through Recorder::metric, from
  // the clients' start to the end of the run, plus one final sample (0: never). At most one sample
  // per kKvRunMetricsEveryMin, so a typo cannot flood the run database.
  sim::DurationNs metrics_every = sim::milliseconds(500);
  // A scenario's cluster settings (link latency, raft timing, quota), applied to the defaults.
  std::function<void(ClusterOptions&)> configure_cluster;
  // A scenario's own faults (scenarios/): called once the clients have started, with the
  // world's nemesis and the time the fault phase ends; `on_heal` right before the harness ends
  // every fault window and heals everything at that time.
  std::function<void(SimCluster&, faults::Nemesis&, history::Recorder&, const client::Workload&, sim::TimeNs faults_until)>
      on_start;
  std::function<void()> on_heal;
};

inline constexpr sim::DurationNs kKvRunMetricsEveryMin = sim::milliseconds(10);

// The metrics the sampler records, per member (1-based) at each sample; a member that is down
// records only "up" = 0. Member 0 records the cluster-wide "leader".
//   up             1 if the member's process runs and its server has started, else 0
//   role           raft role: 0 follower, 1 leader, 2 pre-candidate, 3 candidate
//   leader         the leader this member knows of (member id, 0: none); member 0: the live
//                  leader with the highest term (0: none)
//   term           current raft term
//   commit_index   raft commit index
//   applied_index  index applied to the KV store (as reads see it)
//   revision       the KV store's current revision
//   compact_revision  the KV store's compact revision
inline constexpr const char* kKvRunMetricNames[] = {"up",           "role",          "leader",   "term",
                                                    "commit_index", "applied_index", "revision", "compact_revision"};

struct KvRunResult {
  bool invariants_ok = false;
  bool liveness_ok = false;
  bool members_agree = false;  // same state hash at the same applied index after the heal
  std::string agreement_detail;  // why not (AgreementReport::detail, or the failed liveness)
  LivenessReport liveness;
  std::vector<std::string> violations;
  client::WorkloadStats workload;
  std::vector<std::string> fault_log;  // what the nemesis did, one line per action
  std::optional<std::string> fault_error;  // a replayed step that could not be applied
  std::vector<std::string> exits;  // members that took themselves down, and why
  sim::TimeNs phase_start = 0;  // when the clients and the fault phase started (the first leader's)
};

// Runs the world; every operation and watch response goes to `recorder`, every fault step
// becomes a schedule row and a Fault window in it.
KvRunResult run_kv_world(sim::Simulator& sim, const KvRunOptions& options, history::Recorder& recorder);

}  // namespace dst::world
