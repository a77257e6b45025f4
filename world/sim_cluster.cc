#include "world/sim_cluster.h"


#include <algorithm>
#include <cstdio>

#include "base/assert.h"
#include "node/server/membership.h"
#include "sim/disk.h"

namespace dst::world {

SimCluster::SimCluster(sim::Simulator& sim, ClusterOptions options) : sim_(sim), options_(std::move(options)) {
  DST_ASSERT_GE(options_.nodes, 1u);
  DST_ASSERT_LE(options_.nodes, limits::kRaftMembersMax);
  std::vector<uint64_t> voters;
  for (size_t i = 0; i < options_.nodes; ++i) {
    auto n = std::make_unique<Node>();
    n->id = i + 1;
    n->host = sim_.add_host("n" + std::to_string(n->id));
    sim_.host(n->host).disk().set_fsync_latency(normal_fsync_latency());
    voters.push_back(n->id);
    nodes_.push_back(std::move(n));
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
  // Processes die with the Simulator; make sure no Server points back into this object first.
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (up(i)) sim_.kill(nodes_[i]->process);
  if (nemesis_ != sim::kNoProcess && sim_.alive(nemesis_)) sim_.kill(nemesis_);
}

Result<size_t> SimCluster::add_node() {
  if (nodes_.size() >= limits::kRaftMembersMax)
    return Status(StatusCode::kResourceExhausted, "member_add: the cluster already has " + std::to_string(nodes_.size()) +
                                                      " nodes, the most a simulation holds");
  auto n = std::make_unique<Node>();
  n->id = nodes_.size() + 1;
  n->host = sim_.add_host("n" + std::to_string(n->id));
  sim_.host(n->host).disk().set_fsync_latency(normal_fsync_latency());
  directory_[n->id] = n->host;
  nodes_.push_back(std::move(n));
  return nodes_.size() - 1;
}

sim::DurationDist SimCluster::normal_fsync_latency() const {
  return options_.fsync_latency ? *options_.fsync_latency : sim::DiskConfig().fsync_latency;
}

bool SimCluster::counts_as_member(size_t i) const {
  const Node& n = *nodes_[i];
  if (!n.started || n.removed) return false;
  const std::optional<size_t> l = leader();
  if (!l) return true;
  return node::names_member(server(*l)->raft().conf_state(), n.id);
}

void SimCluster::start(size_t i) {
  Node& n = *nodes_[i];
  DST_ASSERT_MSG(!up(i), "node already running");
  DST_ASSERT_MSG(!n.removed, "a removed member is not started again");
  n.process = sim_.start_process(n.host, "n" + std::to_string(n.id));
  n.paused = false;
  n.started = true;
  node::ServerOptions opts = options_.server;
  opts.id = n.id;
  node::ServerHooks hooks{&invariants_, &n.faults, &n.live, &n.counters, &exits_};
  hooks.directory = &directory_;
  hooks.removed = &n.removed;
  sim::Simulator* sim = &sim_;
  const RaftLoadOptions load = options_.load;
  hooks.started = [sim, load](node::Server& server) { start_raft_load(*sim, server, load); };
  sim_.spawn(n.process, "main", [sim, opts, hooks] { node::Server::run(*sim, opts, hooks); });
}

void SimCluster::start_all() {
  for (size_t i = 0; i < nodes_.size(); ++i) start(i);
}

bool SimCluster::up(size_t i) const {
  return nodes_[i]->process != sim::kNoProcess && sim_.alive(nodes_[i]->process);
}

void SimCluster::crash(size_t i, sim::KillOptions options) {
  if (!up(i)) return;
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

void SimCluster::log_fault(const std::string& what) {
  // Bounded by the nemesis duration / interval; a guard against a runaway loop all the same.
  char t[32];
  std::snprintf(t, sizeof t, "t=%.3fs ", static_cast<double>(sim_.now()) / 1e9);
  if (fault_log_.size() < 100'000) fault_log_.push_back(t + what);
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
    // Nodes never started (a member_add that failed) and removed members stay down.
    if (!up(i) && nodes_[i]->started && !nodes_[i]->removed) start(i);
  }
  log_fault("heal all");
}

void SimCluster::start_nemesis(NemesisOptions options) {
  nemesis_ = sim_.start_process(nemesis_host_, "nemesis");
  sim_.spawn(nemesis_, "nemesis", [this, options] { nemesis_loop(options); });
}

void SimCluster::nemesis_loop(NemesisOptions options) {
  sim::Rng& rng = sim_.rng("raft-nemesis");
  const sim::TimeNs end = sim_.now() + options.duration;
  enum Action { kSplit, kIsolateLeader, kOneWay, kHeal, kCrash, kCrashLeader, kRestart, kSlowFsync, kFsyncError,
                kLoss, kPause, kResume, kFaultPoint, kActionCount };
  uint64_t weights[kActionCount] = {};
  weights[kSplit] = options.partitions ? 3 : 0;
  weights[kIsolateLeader] = options.partitions ? 3 : 0;
  weights[kOneWay] = options.asymmetric ? 2 : 0;
  weights[kHeal] = 5;
  weights[kCrash] = options.crashes ? 3 : 0;
  // Jepsen's "kill the primary": leader churn with partly replicated tails is where the commit
  // rules (Figure 8) and the election restriction are tested.
  weights[kCrashLeader] = options.crashes ? 2 : 0;
  weights[kRestart] = options.crashes ? 5 : 0;
  weights[kSlowFsync] = options.slow_fsync ? 2 : 0;
  weights[kFsyncError] = options.fsync_errors ? 1 : 0;
  weights[kLoss] = options.message_loss ? 2 : 0;
  weights[kPause] = options.pauses ? 1 : 0;
  weights[kResume] = options.pauses ? 2 : 0;
  // Crashes at exact places in the node's code (etcd's gofail failpoints): right after a vote or
  // an append went out and before the next fsync is where durability rules matter.
  weights[kFaultPoint] = options.fault_points ? 3 : 0;
  const size_t n = nodes_.size();
  auto name = [this](size_t i) { return "n" + std::to_string(nodes_[i]->id); };

  while (sim_.now() < end) {
    auto wait = static_cast<sim::DurationNs>(rng.exponential(static_cast<double>(options.mean_interval)));
    if (sim_.sleep(std::max<sim::DurationNs>(wait, sim::milliseconds(1))) != sim::WaitResult::kOk) return;
    if (sim_.now() >= end) break;
    switch (static_cast<Action>(rng.weighted_index(weights))) {
      case kSplit: {
        // A random two-way split (each side non-empty), e.g. {n1,n3} | {n2}.
        std::vector<sim::HostId> a, b;
        std::string names_a, names_b;
        uint64_t mask = 1 + rng.uniform_u64((uint64_t{1} << n) - 2);
        for (size_t i = 0; i < n; ++i) {
          bool side_a = (mask >> i) & 1;
          (side_a ? a : b).push_back(nodes_[i]->host);
          std::string& names = side_a ? names_a : names_b;
          names += (names.empty() ? "" : ",") + name(i);
        }
        sim_.net().partition({a, b});
        log_fault("partition {" + names_a + "} | {" + names_b + "}");
        break;
      }
      case kIsolateLeader: {
        auto l = leader();
        if (!l) break;
        std::vector<sim::HostId> rest;
        for (size_t i = 0; i < n; ++i)
          if (i != *l) rest.push_back(nodes_[i]->host);
        sim_.net().partition({{nodes_[*l]->host}, rest});
        log_fault("isolate leader " + name(*l));
        break;
      }
      case kOneWay: {
        size_t from = rng.uniform_u64(n), to = rng.uniform_u64(n);
        if (from == to) break;
        sim_.net().set_reachable(nodes_[from]->host, nodes_[to]->host, false);
        log_fault("cut " + name(from) + "->" + name(to));
        break;
      }
      case kHeal:
        sim_.net().heal();
        log_fault("heal network");
        break;
      case kCrash: {
        size_t i = rng.uniform_u64(n);
        if (!up(i)) break;
        uint64_t kind = rng.uniform_u64(3);  // process crash, power loss, power loss with torn writes
        crash(i, sim::KillOptions{.lose_unsynced = kind >= 1, .torn = kind == 2});
        log_fault(std::string("crash ") + name(i) + (kind == 0 ? "" : kind == 1 ? " power-loss" : " power-loss torn"));
        break;
      }
      case kCrashLeader: {
        auto l = leader();
        if (!l) break;
        bool power = rng.bernoulli(0.5);
        crash(*l, sim::KillOptions{.lose_unsynced = power, .torn = false});
        log_fault("crash leader " + name(*l) + (power ? " power-loss" : ""));
        break;
      }
      case kRestart: {
        for (size_t k = 0; k < n; ++k) {
          size_t i = (rng.uniform_u64(n) + k) % n;
          if (up(i)) continue;
          start(i);
          log_fault("restart " + name(i));
          break;
        }
        break;
      }
      case kSlowFsync: {
        size_t i = rng.uniform_u64(n);
        bool slow = rng.bernoulli(0.6);
        sim::Disk& disk = sim_.host(nodes_[i]->host).disk();
        if (slow) {
          disk.set_fsync_latency(sim::DurationDist::uniform(sim::milliseconds(50), sim::milliseconds(500)));
        } else {
          disk.set_fsync_latency(normal_fsync_latency());
        }
        log_fault(std::string(slow ? "slow fsync " : "normal fsync ") + name(i));
        break;
      }
      case kFsyncError: {
        size_t i = rng.uniform_u64(n);
        sim_.host(nodes_[i]->host).disk().fail_fsyncs(1);
        log_fault("fail next fsync " + name(i));
        break;
      }
      case kLoss: {
        sim::LinkConfig link = options_.link;
        if (rng.bernoulli(0.5)) {
          link.loss = rng.uniform_real(0.05, 0.3);
          link.duplicate = rng.uniform_real(0.0, 0.1);
          link.reorder = rng.uniform_real(0.0, 0.2);
        }
        sim_.net().set_default_link(link);
        log_fault("link loss " + std::to_string(static_cast<int>(link.loss * 100)) + "%");
        break;
      }
      case kPause: {
        size_t i = rng.uniform_u64(n);
        if (!up(i) || nodes_[i]->paused) break;
        sim_.pause(nodes_[i]->process);
        nodes_[i]->paused = true;
        log_fault("pause " + name(i));
        break;
      }
      case kResume: {
        for (size_t i = 0; i < n; ++i) {
          if (!up(i) || !nodes_[i]->paused) continue;
          sim_.resume(nodes_[i]->process);
          nodes_[i]->paused = false;
          log_fault("resume " + name(i));
          break;
        }
        break;
      }
      case kFaultPoint: {
        size_t i = rng.uniform_u64(n);
        auto point = static_cast<node::FaultPoint>(rng.uniform_u64(static_cast<uint64_t>(node::FaultPoint::kCount)));
        bool power = rng.bernoulli(0.7);
        // A point passed on every Ready fires a few passes in; one passed only around elections
        // fires at its first pass, or it would rarely fire at all.
        uint64_t skip = point == node::FaultPoint::kAfterVote ? 0 : rng.uniform_u64(30);
        using Kind = node::FaultAction::Kind;
        nodes_[i]->faults.arm(point, node::FaultAction{.kind = power ? Kind::kPowerLoss : Kind::kCrash, .skip = skip, .times = 1});
        log_fault("arm " + name(i) + " " + std::string(node::fault_point_name(point)) + (power ? " power-loss" : " crash") +
                  " after " + std::to_string(skip) + " passes");
        break;
      }
      case kActionCount: DST_UNREACHABLE("nemesis action");
    }
  }
}

LivenessReport SimCluster::await_recovery(sim::DurationNs bound) {
  const sim::TimeNs start = sim_.now();
  const sim::TimeNs deadline = start + bound;
  std::optional<uint64_t> target;  // the leader's commit index once it committed in its term
  LivenessReport report;
  while (sim_.now() < deadline) {
    sim_.run_until(std::min(deadline, sim_.now() + sim::milliseconds(50)));
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
