#include "world/sim_cluster.h"

#include <algorithm>
#include <cstdio>

#include "base/assert.h"
#include "node/server/membership.h"
#include "sim/disk.h"
#include "world/wal_damage.h"

namespace dst::world {

SimCluster::SimCluster(sim::Simulator& sim, ClusterOptions options) : sim_(sim), options_(std::move(options)) {
  DST_ASSERT_GE(options_.nodes, 1u);
  DST_ASSERT_LE(options_.nodes, limits::kRaftMembersMax);
  std::vector<uint64_t> voters;
  for (size_t i = 0; i < options_.nodes; ++i) {
    nodes_.push_back(std::make_unique<Node>(*this, i + 1));
    voters.push_back(nodes_.back()->id);
  }
  options_.server.initial_voters = voters;
  for (const auto& n : nodes_) options_.server.peers[n->id] = n->host;
  directory_ = options_.server.peers;
  sim_.net().set_default_link(options_.link);
  nemesis_host_ = sim_.add_host("nemesis");
  observer_host_ = sim_.add_host("observer");
  observer_ = sim_.start_process(observer_host_, "observer");
}

SimCluster::~SimCluster() {
  // Processes die with the Simulator; make sure no Server points back into this object first:
  // every Server tells its Node (its observer) it stopped while the Node still exists.
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (up(i)) sim_.kill(nodes_[i]->process);
  for (const auto& n : nodes_) DST_ASSERT_MSG(n->live == nullptr, "a member outlived its cluster's world");
}

Result<size_t> SimCluster::add_node() {
  if (nodes_.size() >= limits::kRaftMembersMax)
    return Status(StatusCode::kResourceExhausted, "member_add: the cluster already has " + std::to_string(nodes_.size()) +
                                                      " nodes, the most a simulation holds");
  nodes_.push_back(std::make_unique<Node>(*this, nodes_.size() + 1));
  directory_[nodes_.back()->id] = nodes_.back()->host;
  return nodes_.size() - 1;
}

SimCluster::Node::Node(SimCluster& c, uint64_t node_id) : cluster(c), id(node_id) {
  host = c.sim_.add_host("n" + std::to_string(id));
  c.sim_.host(host).disk().set_fsync_latency(c.normal_fsync_latency());
  faults.set_executor([this](node::FaultPoint p, const node::FaultAction& a) { fire(p, a); });
}

void SimCluster::Node::started(node::Server& server) {
  live = &server;
  if (!must_refuse.empty()) {
    // The start read the damaged records as good, or cut the log before them as if torn.
    cluster.invariants_.storage_violation("n" + std::to_string(id) + " started on storage it had to refuse: " +
                                          must_refuse + " (synced records with a valid record after them: damage, "
                                          "not a torn tail; cutting the log there drops what it promised durable)");
    must_refuse.clear();
  }
  start_raft_load(cluster.sim_, server, cluster.options_.load);
}

void SimCluster::Node::stopped(const node::Server& server) {
  ended_counters += server.counters();
  if (live == &server) live = nullptr;
}

void SimCluster::Node::auto_compaction(const node::AutoCompactionEvent& e) {
  if (cluster.options_.on_auto_compaction) cluster.options_.on_auto_compaction(static_cast<size_t>(id - 1), e);
}

void SimCluster::Node::exiting(const std::string& why) {
  cluster.record_exit(id, why);
  // A start that failed for another reason (an injected fsync error) has not read the damage yet.
  if (must_refuse.empty() || !why.starts_with("start failed: corruption")) return;
  lost = true;
  if (cluster.lost_members_.size() < limits::kMemberExitsKept) {
    char t[32];
    std::snprintf(t, sizeof t, "t=%.3fs ", static_cast<double>(cluster.sim_.now()) / 1e9);
    cluster.lost_members_.push_back(t + ("n" + std::to_string(id) + " refused ") + must_refuse);
  }
  must_refuse.clear();
}

void SimCluster::Node::fire(node::FaultPoint p, const node::FaultAction& action) {
  // Passed by the member's own code, in its own fiber: that is the process the action ends.
  DST_ASSERT_MSG(cluster.sim_.in_fiber() && cluster.sim_.current_process() == process,
                 "fault point " + std::string(node::fault_point_name(p)) + " of n" + std::to_string(id) +
                     " passed outside its process");
  const std::string what = "fault point " + std::string(node::fault_point_name(p));
  switch (action.kind) {
    case node::FaultAction::Kind::kDelay: (void)cluster.sim_.sleep(action.delay); return;
    case node::FaultAction::Kind::kCrash: cluster.record_exit(id, what); break;
    case node::FaultAction::Kind::kPowerLoss: cluster.record_exit(id, what + " (power loss)"); break;
  }
  const bool power_loss = action.kind == node::FaultAction::Kind::kPowerLoss;
  cluster.sim_.kill(process, sim::KillOptions{.lose_unsynced = power_loss, .torn = false});
  DST_UNREACHABLE("a process killed at a fault point kept running");
}

void SimCluster::record_exit(uint64_t id, const std::string& why) {
  if (exits_.size() >= limits::kMemberExitsKept) return;
  char t[32];
  std::snprintf(t, sizeof t, "t=%.3fs ", static_cast<double>(sim_.now()) / 1e9);
  exits_.push_back(t + ("n" + std::to_string(id) + " exits: ") + why);
}

std::optional<faults::ClusterTarget::WalDamageRange> SimCluster::wal_damage_range(size_t i) const {
  if (up(i) || !nodes_[i]->was_started || nodes_[i]->lost) return std::nullopt;
  auto target = wal_damage_target(sim_.host(nodes_[i]->host).disk(), options_.server.data_dir);
  if (!target) return std::nullopt;
  return WalDamageRange{.file = target->file, .limit = target->limit};
}

void SimCluster::damaging(size_t i, const std::string& file, uint64_t offset, uint64_t length) {
  Node& n = *nodes_[i];
  // Only a down member's next start reads what is damaged now; a running one may cut a new
  // segment and release this one first.
  if (!n.must_refuse.empty() || up(i) || !n.was_started || n.lost) return;
  auto target = wal_damage_target(sim_.host(n.host).disk(), options_.server.data_dir);
  if (!target || !inside(*target, file, offset, length)) return;
  n.must_refuse = file + " bytes " + std::to_string(offset) + ".." + std::to_string(offset + length) +
                  " damaged (" + std::to_string(target->records) + " records before byte " +
                  std::to_string(target->limit) + ")";
}

node::ServerCounters SimCluster::counters(size_t i) const {
  const Node& n = *nodes_[i];
  node::ServerCounters sum = n.ended_counters;
  if (n.live != nullptr) sum += n.live->counters();
  return sum;
}

sim::DurationDist SimCluster::normal_fsync_latency() const {
  return options_.fsync_latency ? *options_.fsync_latency : sim::DiskConfig().fsync_latency;
}

bool SimCluster::counts_as_member(size_t i) const {
  const Node& n = *nodes_[i];
  if (!n.was_started || n.was_removed || n.lost) return false;
  const std::optional<size_t> l = leader();
  if (!l) return true;
  return node::names_member(server(*l)->raft().conf_state(), n.id);
}

void SimCluster::start(size_t i) {
  Node& n = *nodes_[i];
  DST_ASSERT_MSG(!up(i), "node already running");
  DST_ASSERT_MSG(!n.was_removed, "a removed member is not started again");
  DST_ASSERT_MSG(!n.lost, "a member lost to damaged storage is not started again");
  n.process = sim_.start_process(n.host, "n" + std::to_string(n.id));
  n.paused = false;
  n.was_started = true;
  node::ServerOptions opts = options_.server;
  opts.id = n.id;
  const node::ServerHooks hooks{.invariants = &invariants_, .faults = &n.faults, .directory = &directory_, .observer = &n};
  sim::Env* env = &sim_.env(n.process);
  sim_.spawn(n.process, "main", [env, opts, hooks] { node::Server::run(*env, opts, hooks); });
}

std::vector<size_t> SimCluster::disaster() {
  std::vector<size_t> members;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Node& n = *nodes_[i];
    if (!n.was_started || n.was_removed || n.lost) continue;
    members.push_back(i);
    if (up(i)) crash(i, sim::KillOptions{.lose_unsynced = true});
    sim_.host(n.host).disk().replace();
    n.faults.disarm_all();  // armed fault points meant the old disk's data
    n.must_refuse.clear();
    n.lost = true;
  }
  return members;
}

void SimCluster::restore(const std::vector<size_t>& members, std::shared_ptr<const std::string> image,
                         uint64_t cluster_id) {
  DST_ASSERT_MSG(!members.empty(), "a restored cluster needs members");
  options_.server.initial_voters.clear();
  for (size_t i : members) {
    DST_ASSERT_MSG(nodes_[i]->lost && !up(i), "restore onto a machine the disaster did not take");
    options_.server.initial_voters.push_back(nodes_[i]->id);
  }
  options_.server.restored_image = std::move(image);
  options_.server.cluster_id = cluster_id;
  invariants_.new_cluster();
  for (size_t i : members) {
    nodes_[i]->lost = false;
    start(i);
  }
}

void SimCluster::start_all() {
  for (size_t i = 0; i < nodes_.size(); ++i) start(i);
}

bool SimCluster::up(size_t i) const {
  return nodes_[i]->process != sim::kNoProcess && sim_.alive(nodes_[i]->process);
}

void SimCluster::crash(size_t i, sim::KillOptions options) {
  if (!up(i)) return;
  // A power loss before the start read its WAL may replay pending writes (its tail repair's)
  // over the damaged bytes: what the next start must refuse is no longer known.
  if (options.lose_unsynced) nodes_[i]->must_refuse.clear();
  sim_.kill(nodes_[i]->process, options);
  nodes_[i]->paused = false;
}

void SimCluster::pause(size_t i) {
  if (!up(i) || nodes_[i]->paused) return;
  sim_.pause(nodes_[i]->process);
  nodes_[i]->paused = true;
}

void SimCluster::resume(size_t i) {
  if (!up(i) || !nodes_[i]->paused) return;
  sim_.resume(nodes_[i]->process);
  nodes_[i]->paused = false;
}

std::optional<size_t> SimCluster::leader() const {
  std::optional<size_t> best;
  uint64_t best_term = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const node::Server* s = server(i);
    if (!s || !up(i) || s->raft().role() != raft::Role::kLeader) continue;
    if (!best || s->raft().term() > best_term) {
      best = i;
      best_term = s->raft().term();
    }
  }
  return best;
}

AgreementReport SimCluster::await_agreement(sim::DurationNs bound) {
  AgreementReport report;
  const sim::TimeNs deadline = sim_.now() + bound;
  while (sim_.now() < deadline) {
    std::vector<size_t> members;  // the current members (removed or never-joined nodes do not count)
    for (size_t i = 0; i < size(); ++i)
      if (counts_as_member(i)) members.push_back(i);
    std::optional<uint64_t> index;
    bool same = !members.empty();
    for (size_t k = 0; k < members.size() && same; ++k) {
      const node::Server* s = server(members[k]);
      if (s == nullptr || (index && *index != s->state_machine().applied_index())) same = false;
      else index = s->state_machine().applied_index();
    }
    if (same) {
      // Hash every member in one observer fiber; valid only if no member applied meanwhile.
      bool done = false, stable = true;
      std::vector<uint64_t> hashes;
      Status failed;
      sim_.spawn(observer_, "agreement", [&] {
        for (size_t i : members) {
          const node::Server* s = server(i);
          if (s == nullptr) { stable = false; break; }
          auto h = s->state_machine().state_hash();
          if (!h.is_ok()) { failed = h.status(); break; }
          hashes.push_back(*h);
        }
        for (size_t k = 0; k < members.size() && stable; ++k) {
          const node::Server* s = server(members[k]);
          if (s == nullptr || s->state_machine().applied_index() != *index) stable = false;
        }
        done = true;
      });
      for (int spin = 0; spin < 10'000 && !done; ++spin) sim_.run_for(sim::milliseconds(1));
      DST_ASSERT_MSG(done, "hashing the members' state did not finish in 10 s of virtual time");
      if (!failed.is_ok()) {
        report.detail = "state hash failed: " + failed.to_string();
        return report;
      }
      if (stable) {
        report.index = *index;
        for (size_t k = 1; k < hashes.size(); ++k) {
          if (hashes[k] != hashes[0]) {
            report.detail = "n" + std::to_string(nodes_[members[k]]->id) + " diverged from n" +
                            std::to_string(nodes_[members[0]]->id) + " at applied index " + std::to_string(*index);
            return report;
          }
        }
        report.ok = true;
        return report;
      }
    }
    sim_.run_for(sim::milliseconds(5));
  }
  report.detail = "members never reached the same applied index";
  return report;
}

void SimCluster::heal_all() {
  sim_.net().heal();
  sim_.net().set_default_link(options_.link);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    sim::Disk& disk = sim_.host(nodes_[i]->host).disk();
    disk.set_fsync_latency(normal_fsync_latency());
    disk.fail_fsyncs(0);
    disk.set_full(false);
    nodes_[i]->faults.disarm_all();
    if (up(i) && nodes_[i]->paused) {
      sim_.resume(nodes_[i]->process);
      nodes_[i]->paused = false;
    }
    // Nodes never started (a member_add that failed), removed members and lost ones stay down.
    if (!up(i) && nodes_[i]->was_started && !nodes_[i]->was_removed && !nodes_[i]->lost) start(i);
  }
}

// A member can take itself down after the heal because of a fault from before it: a pause that
// held a restart while an injected fsync error was spent, then the resume. An operator (systemd)
// restarts it; the harness does so a few times. One that keeps exiting stays down and fails.
void SimCluster::restart_exited_after_heal(std::vector<int>& restarts, LivenessReport& report) {
  constexpr int kRestartsAfterHealMax = 3;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (up(i) || !nodes_[i]->was_started || nodes_[i]->was_removed || nodes_[i]->lost ||
        restarts[i] >= kRestartsAfterHealMax)
      continue;
    ++restarts[i];
    start(i);
    report.restarted_after_heal += (report.restarted_after_heal.empty() ? "n" : " n") + std::to_string(nodes_[i]->id);
  }
}

LivenessReport SimCluster::await_recovery(sim::DurationNs bound) {
  const sim::TimeNs start = sim_.now();
  const sim::TimeNs deadline = start + bound;
  std::optional<uint64_t> target;  // the leader's commit index once it committed in its term
  LivenessReport report;
  std::vector<int> restarts(nodes_.size(), 0);
  while (sim_.now() < deadline) {
    sim_.run_until(std::min(deadline, sim_.now() + sim::milliseconds(50)));
    restart_exited_after_heal(restarts, report);
    auto l = leader();
    if (!l) continue;
    const raft::Raft& lr = server(*l)->raft();
    if (!target) {
      if (lr.log().term(lr.log().committed()) != lr.term()) continue;
      target = lr.log().committed();
    }
    bool caught_up = true;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (!counts_as_member(i)) continue;
      const node::Server* s = server(i);
      if (!s || s->raft().log().applied() < *target || s->raft().lead() != nodes_[*l]->id) caught_up = false;
    }
    if (caught_up) {
      report.ok = true;
      report.recovery = sim_.now() - start;
      return report;
    }
  }
  report.detail = "no recovery within " + sim::format_duration(bound) + ": ";
  auto l = leader();
  report.detail += l ? "leader n" + std::to_string(nodes_[*l]->id) : std::string("no leader");
  if (target) report.detail += ", target index " + std::to_string(*target);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const node::Server* s = server(i);
    report.detail += "; n" + std::to_string(nodes_[i]->id) + ": " + (s ? s->raft().status() : "down");
    if (!counts_as_member(i)) report.detail += " (not a member)";
  }
  return report;
}

}  // namespace dst::world
