#include "node/server/kv_run_world.h"

namespace dst::node {

KvRunResult run_kv_world(sim::Simulator& sim, const KvRunOptions& options, history::Recorder& recorder) {
  ClusterOptions co;
  co.nodes = options.nodes;
  co.server.state_machine = StateMachineKind::kKv;
  co.server.snapshot_every = 500;  // snapshots and their installs happen in every run
  co.server.wal.segment_bytes = 64 * 1024;
  SimCluster cluster(sim, co);
  cluster.start_all();
  // Clients start once the cluster has elected its first leader (as etcd's robustness tests wait
  // for a healthy cluster): before that every write would only time out.
  for (int i = 0; i < 1000 && !cluster.leader(); ++i) sim.run_for(sim::milliseconds(10));
  std::vector<sim::Address> members;
  for (size_t i = 0; i < cluster.size(); ++i) members.push_back(sim::Address{cluster.host(i), co.server.api.port});
  client::Workload workload(sim, members, options.workload, recorder);
  const sim::TimeNs clients_until = sim.now() + options.duration;
  // Watchers outlive the clients by the whole recovery bound and the settle time, so they see
  // every write that was still in flight (unknown outcomes applied after the heal) and the
  // checkers know every revision.
  const sim::TimeNs watchers_until = clients_until + options.recovery_bound + options.settle;
  workload.start(clients_until, watchers_until);
  if (options.faults) {
    NemesisOptions n = options.nemesis;
    n.duration = options.duration;
    cluster.start_nemesis(n);
  }
  sim.run_until(clients_until);
  cluster.heal_all();
  KvRunResult r;
  r.liveness = cluster.await_recovery(options.recovery_bound);
  r.liveness_ok = r.liveness.ok;
  sim.run_until(std::max(sim.now(), watchers_until));
  r.members_agree = r.liveness_ok && cluster.await_agreement(sim::seconds(10)).ok;
  r.invariants_ok = cluster.invariants().ok();
  r.violations = cluster.invariants().violations();
  r.workload = workload.stats();
  r.fault_log = cluster.fault_log();
  r.exits = cluster.exits();
  // The nemesis log ("t=1.234s crash n2 power-loss") as fault records: kind and target; the end
  // of each fault is the heal (the nemesis does not pair its actions).
  for (const std::string& line : r.fault_log) {
    history::Fault f;
    const size_t sp = line.find(' ');
    const std::string t = line.substr(2, sp - 3);  // "t=1.234s " -> "1.234"
    f.start_ns = static_cast<int64_t>(std::stod(t) * 1e9);
    const std::string what = line.substr(sp + 1);
    const size_t sp2 = what.find(' ');
    f.kind = what.substr(0, sp2);
    f.target = sp2 == std::string::npos ? "" : what.substr(sp2 + 1);
    f.end_ns = clients_until;
    recorder.fault_ended(recorder.fault_started(f), f.end_ns);
  }
  return r;
}

}  // namespace dst::node
