#include "world/kv_run_world.h"
#include "world/service_probe.h"

#include <map>
#include <memory>

#include "base/assert.h"
#include "client/kv_client.h"
#include "world/cluster_nemesis.h"

namespace dst::world {

namespace {

int64_t role_code(raft::Role role) {
  switch (role) {
    case raft::Role::kFollower: return 0;
    case raft::Role::kLeader: return 1;
    case raft::Role::kPreCandidate: return 2;
    case raft::Role::kCandidate: return 3;
  }
  return -1;
}

// One sample of every member's in-memory state. Reads fields only: no blocking, no messages, no
// random draws, so the members behave exactly as without the sampler.
void sample_metrics(sim::Simulator& sim, const SimCluster& cluster, history::Recorder& recorder) {
  const int64_t at = sim.now();
  for (size_t i = 0; i < cluster.size(); ++i) {
    const auto member = static_cast<uint32_t>(i + 1);
    const node::Server* s = cluster.up(i) ? cluster.server(i) : nullptr;
    recorder.metric(at, member, "up", s != nullptr ? 1 : 0);
    if (s == nullptr) continue;
    const raft::Raft& r = s->raft();
    recorder.metric(at, member, "role", role_code(r.role()));
    recorder.metric(at, member, "leader", static_cast<int64_t>(r.lead()));
    recorder.metric(at, member, "term", static_cast<int64_t>(r.term()));
    recorder.metric(at, member, "commit_index", static_cast<int64_t>(r.log().committed()));
    recorder.metric(at, member, "applied_index", static_cast<int64_t>(s->state_machine().applied_index()));
    if (node::KvStateMachine* kv = s->kv()) {
      recorder.metric(at, member, "revision", kv->store().rev());
      recorder.metric(at, member, "compact_revision", kv->store().compact_rev());
    }
  }
  const std::optional<size_t> leader = cluster.leader();
  recorder.metric(at, 0, "leader", leader ? static_cast<int64_t>(*leader + 1) : 0);
}


// A harness process on a host of its own that samples every member's metrics (none when
// `every` is 0).
sim::ProcessId start_sampler(sim::Simulator& sim, SimCluster& cluster, history::Recorder& recorder, sim::DurationNs every) {
  if (every == 0) return sim::kNoProcess;
  DST_ASSERT_GE(every, kKvRunMetricsEveryMin);
  const sim::ProcessId sampler = sim.start_process(sim.add_host("metrics"), "metrics");
  sim.spawn(sampler, "sampler", [&sim, &cluster, &recorder, every] {
    while (true) {
      sample_metrics(sim, cluster, recorder);
      if (sim.sleep(every) != sim::WaitResult::kOk) return;
    }
  });
  return sampler;
}

// After the heal: Raft recovers, a client is served within what is left of the bound, the
// watchers catch up, and the members agree on their state.
void check_recovery(sim::Simulator& sim, SimCluster& cluster, history::Recorder& recorder, const KvRunOptions& options,
                    uint16_t api_port, sim::TimeNs watchers_until, KvRunResult& r) {
  r.liveness = cluster.await_recovery(options.recovery_bound);
  if (r.liveness.ok) {
    // Raft is back; now a client must be served, within what is left of the bound (at least a
    // few request timeouts).
    const sim::DurationNs left = std::max(options.recovery_bound - r.liveness.recovery, sim::seconds(10));
    const ServiceReport service = probe_service(sim, cluster, recorder, api_port, left);
    r.liveness.ok = service.ok;
    r.liveness.service = service.took;
    if (!service.ok) r.liveness.detail = service.detail;
  }
  r.liveness_ok = r.liveness.ok;
  sim.run_until(std::max(sim.now(), watchers_until));
  if (r.liveness_ok) {
    const AgreementReport agreement = cluster.await_agreement(sim::seconds(10));
    r.members_agree = agreement.ok;
    r.agreement_detail = agreement.detail;
  } else {
    r.agreement_detail = "not checked: the cluster did not recover";
  }
}

}  // namespace

namespace {

// The workload's clients and watchers as the nemesis acts on them (faults::WorkloadTarget).
class WorkloadClients : public faults::WorkloadTarget {
 public:
  explicit WorkloadClients(client::Workload& workload) : workload_(workload) {}
  size_t clients() const override { return workload_.clients(); }
  void stall_client(size_t n, sim::TimeNs until) override { workload_.stall_client(n, until); }
  size_t watchers() const override { return workload_.watchers(); }
  void stall_watcher(size_t n, sim::TimeNs until) override { workload_.stall_watcher(n, until); }
  void rewind_watcher(size_t n, int64_t revisions) override { workload_.rewind_watcher(n, revisions); }

 private:
  client::Workload& workload_;
};

// Records the members' automatic compactions (etcd's --auto-compaction-*) as operations, each of a
// client of its own (as the scenario's own requests), so the checkers know of every compaction: a
// member that dies before the answer leaves its compaction unknown.
class AutoCompactionLog {
 public:
  AutoCompactionLog(sim::Simulator& sim, history::Recorder& recorder) : sim_(sim), recorder_(recorder) {}
  void operator()(size_t member, const node::AutoCompactionEvent& e) {
    if (!e.returned) {
      DST_ASSERT_LT(next_client_, kAutoCompactorClientsMax);
      history::Operation op;
      op.client = kAutoCompactorClientIdBase + next_client_++;
      op.member = static_cast<uint32_t>(member + 1);
      op.invoke_ns = sim_.now();
      op.request.mutable_compaction()->set_revision(e.revision);
      pending_[member] = Pending{recorder_.invoke(op), op.request};
      return;
    }
    auto it = pending_.find(member);
    DST_ASSERT_MSG(it != pending_.end(), "an automatic compaction answered that was never sent");
    recorder_.complete(it->second.id, client::classify(it->second.request, e.response), e.response, sim_.now());
    pending_.erase(it);
  }

 private:
  struct Pending {
    uint64_t id = 0;
    etcdserverpb::ApiRequest request;
  };
  sim::Simulator& sim_;
  history::Recorder& recorder_;
  std::map<size_t, Pending> pending_;  // by member: the one it sent and has no answer to yet
  uint32_t next_client_ = 0;
};

}  // namespace

KvRunResult run_kv_world(sim::Simulator& sim, const KvRunOptions& options, history::Recorder& recorder) {
  ClusterOptions co;
  co.nodes = options.nodes;
  co.server.state_machine = node::StateMachineKind::kKv;
  co.server.snapshot_every = 500;  // snapshots and their installs happen in every run
  co.server.wal.segment_bytes = 64 * 1024;
  if (options.configure_cluster) options.configure_cluster(co);
  auto compactions = std::make_shared<AutoCompactionLog>(sim, recorder);
  co.on_auto_compaction = [compactions](size_t member, const node::AutoCompactionEvent& e) { (*compactions)(member, e); };
  SimCluster cluster(sim, co);
  cluster.start_all();
  // Clients start once the cluster has elected its first leader (as etcd's robustness tests wait
  // for a healthy cluster): before that every write would only time out.
  for (int i = 0; i < 1000 && !cluster.leader(); ++i) sim.run_for(sim::milliseconds(10));
  std::vector<sim::Address> members;
  for (size_t i = 0; i < cluster.size(); ++i) members.push_back(sim::Address{cluster.host(i), co.server.api.port});
  client::Workload workload(sim, members, options.workload, recorder);
  const sim::TimeNs phase_start = sim.now();
  const sim::TimeNs clients_until = phase_start + options.duration;
  // Watchers outlive the clients by the whole recovery bound and the settle time, so they see
  // every write that was still in flight (unknown outcomes applied after the heal) and the
  // checkers know every revision.
  const sim::TimeNs watchers_until = clients_until + options.recovery_bound + options.settle;
  workload.start(clients_until, watchers_until);
  WorkloadClients clients(workload);
  ClusterNemesis nemesis(cluster, recorder);
  nemesis.nemesis.set_workload(&clients);
  if (options.replay) {
    nemesis.driver.start_replay(*options.replay, clients_until);
  } else if (options.faults) {
    faults::RandomFaultOptions n = options.nemesis;
    n.duration = options.duration;
    nemesis.driver.start_random(n);
  }
  if (options.on_start) options.on_start(cluster, nemesis.nemesis, recorder, workload, clients_until);
  // The sampler starts last, on a host of its own: every host and process of the world above
  // keeps the id it has without it, and it draws no random numbers, so its own events are the
  // only difference it makes.
  const sim::ProcessId sampler = start_sampler(sim, cluster, recorder, options.metrics_every);
  sim.run_until(clients_until);
  if (options.on_heal) options.on_heal();
  nemesis.nemesis.finish();
  cluster.heal_all();
  KvRunResult r;
  r.phase_start = phase_start;
  check_recovery(sim, cluster, recorder, options, co.server.api.port, watchers_until, r);
  r.invariants_ok = cluster.invariants().ok();
  r.violations = cluster.invariants().violations();
  r.workload = workload.stats();
  r.fault_log = nemesis.nemesis.log().lines();
  r.fault_error = nemesis.driver.error();
  r.exits = cluster.exits();
  if (sampler != sim::kNoProcess) {
    // The state the run ends in, then no more samples: the recorder may not outlive this call.
    sample_metrics(sim, cluster, recorder);
    if (sim.alive(sampler)) sim.kill(sampler);
  }
  return r;
}

}  // namespace dst::world
