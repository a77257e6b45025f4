#include "world/raft_world.h"

#include <cstdio>

#include "node/raft/config.h"
#include "world/cluster_nemesis.h"

namespace dst::world {

ClusterOptions standard_cluster_options(size_t nodes) {
  ClusterOptions o;
  o.nodes = nodes;
  o.load.propose_every = sim::milliseconds(50);
  o.load.read_every = sim::milliseconds(200);
  o.server.snapshot_every = 100;
  o.server.wal.segment_bytes = 16 * 1024;
  return o;
}

namespace {

std::string line(const char* label, const std::string& text) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%-18s", label);
  return std::string(buf) + text + "\n";
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The summary a person reads: the cluster, what was committed, each node, the faults and the checks.
std::string describe_raft_world(const sim::Simulator& sim, const SimCluster& cluster, const RaftWorldOptions& options,
                                const RaftWorldResult& r) {
  const raft::Invariants& inv = const_cast<SimCluster&>(cluster).invariants();
  std::string s;
  s += line("virtual time", sim::format_duration(sim.now()) + ", " + std::to_string(sim.events_executed()) + " events");
  std::string bugs;
  for (Bug b : options.bugs.list()) bugs += std::string(bugs.empty() ? "" : ", ") + std::string(bug_name(b));
  s += line("cluster", std::to_string(options.nodes) + " nodes, tick 100ms, election 10 ticks, pre-vote, check-quorum, " +
                           (options.kv ? "etcd KV state machine" : "hash-chain state machine") +
                           (bugs.empty() ? "" : ", BUGS: " + bugs));
  uint64_t max_term = 0, reads_asked = 0, reads_answered = 0;
  uint64_t snapshots_installed = 0;
  for (size_t i = 0; i < cluster.size(); ++i) {
    reads_asked += cluster.counters(i).reads_requested;
    reads_answered += cluster.counters(i).reads_answered;
    snapshots_installed += cluster.counters(i).snapshots_installed;
    if (const node::Server* srv = cluster.server(i)) max_term = std::max(max_term, srv->raft().term());
  }
  s += line("committed", std::to_string(inv.max_committed()) + " entries, highest term " + std::to_string(max_term));
  for (size_t i = 0; i < cluster.size(); ++i) {
    const node::Server* srv = cluster.server(i);
    std::string name = "  n" + std::to_string(i + 1);
    if (!srv) {
      s += line(name.c_str(), "down");
      continue;
    }
    s += line(name.c_str(), std::string(raft::role_name(srv->raft().role())) + " term " +
                                std::to_string(srv->raft().term()) + ", applied " +
                                std::to_string(srv->state_machine().applied_index()) + " hash " +
                                hex(srv->state_machine().state_hash().is_ok() ? *srv->state_machine().state_hash() : 0) +
                                ", snapshot at " +
                                std::to_string(srv->raft().log().snapshot_metadata().index()));
  }
  s += line("reads", std::to_string(reads_asked) + " ReadIndex requests, " + std::to_string(reads_answered) +
                         " answered (the rest hit a node without a leader or died with it)");
  s += line("snapshots", std::to_string(snapshots_installed) + " installed from a leader");
  s += line("faults", std::to_string(r.fault_log.size()) + " nemesis actions, " +
                          std::to_string(cluster.exits().size()) + " times a node took itself down");
  for (size_t i = 0; i < cluster.exits().size() && i < 5; ++i) s += "  " + cluster.exits()[i] + "\n";
  if (r.invariants_ok) {
    s += line("invariants", "ok: election, vote, log matching, leader completeness, state machine, read safety");
  } else {
    s += line("invariants", std::to_string(r.violation_count) + " VIOLATIONS, first:");
    for (size_t i = 0; i < r.violations.size() && i < 5; ++i) s += "  " + r.violations[i] + "\n";
  }
  if (r.liveness_ok) {
    s += line("liveness", "ok: one leader and every node caught up " + sim::format_duration(r.liveness.recovery) +
                              " after the heal (bound " + sim::format_duration(options.recovery_bound) + ")" +
                              (r.liveness.restarted_after_heal.empty() ? "" : "; exited after the heal and restarted: " +
                                                                                  r.liveness.restarted_after_heal));
  } else {
    s += line("liveness", "FAILED: " + r.liveness.detail);
  }
  if (!r.fault_log.empty()) {
    s += "fault schedule    (first 12 of " + std::to_string(r.fault_log.size()) + ")\n";
    for (size_t i = 0; i < r.fault_log.size() && i < 12; ++i) s += "  " + r.fault_log[i] + "\n";
  }
  return s;
}

}  // namespace

RaftWorldResult run_raft_world(sim::Simulator& sim, const RaftWorldOptions& options) {
  ClusterOptions co = standard_cluster_options(options.nodes);
  co.server.bugs = options.bugs;
  if (options.kv) co.server.state_machine = node::StateMachineKind::kKv;
  SimCluster cluster(sim, co);
  cluster.start_all();
  history::MemoryRecorder recorder;  // the fault windows and schedule; the summary shows the log
  ClusterNemesis nemesis(cluster, recorder);
  if (options.faults) nemesis.driver.start_random(faults::RandomFaultOptions{.duration = options.duration});
  sim.run_until(options.duration + sim::seconds(1));
  nemesis.nemesis.finish();
  cluster.heal_all();
  RaftWorldResult r;
  r.liveness = cluster.await_recovery(options.recovery_bound);
  r.liveness_ok = r.liveness.ok;
  const raft::Invariants& inv = cluster.invariants();
  r.invariants_ok = inv.ok();
  r.violations = inv.violations();
  r.violation_count = inv.violation_count();
  r.fault_log = nemesis.nemesis.log().lines();

  r.summary = describe_raft_world(sim, cluster, options, r);
  return r;
}

}  // namespace dst::world
