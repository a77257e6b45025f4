// A simulated cluster of Raft nodes for tests, worlds and benchmarks: one host per node, the
// processes, crash/restart, the cluster-wide Invariants checker, and the heal phase with its
// liveness and agreement checks. Faults come from faults::Nemesis acting on it (it is the
// nemesis's ClusterTarget); cluster_nemesis.h puts the random nemesis on it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "faults/cluster_target.h"
#include "node/raft/invariants.h"
#include "node/fault_points/fault_points.h"
#include "node/server/server.h"
#include "world/raft_load.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::world {

struct ClusterOptions {
  size_t nodes = 3;
  node::ServerOptions server;  // template for every node (id, peers and voters are filled in)
  RaftLoadOptions load;        // Raft-level load in every member's process (none by default)
  sim::LinkConfig link;  // every link between nodes
  // Every node's disk's fsync latency when no fault slows it (a scenario's cluster{disk=}); unset:
  // sim::DiskConfig's. Heals and normal_fsync() go back to it.
  std::optional<sim::DurationDist> fsync_latency;
  // Told, in the member's process, of every compaction a member's automatic compactor sends and of
  // its answer (node/server/auto_compactor.h); `member` is 0-based. Empty: nobody listens.
  std::function<void(size_t member, const node::AutoCompactionEvent&)> on_auto_compaction;
};

struct AgreementReport {
  bool ok = false;
  uint64_t index = 0;  // the applied index every member was at
  std::string detail;  // why not ok
};

struct LivenessReport {
  bool ok = false;
  sim::DurationNs recovery = 0;  // from the heal to every node caught up
  // From the recovery to service again (service_probe.h; 0 where the world does not probe).
  sim::DurationNs service = 0;
  std::string detail;            // why not ok
  // Members that exited after the heal (a fault from before it still acting, e.g. a spent fsync
  // error found by a resumed process) and were started again, at most 3 times each: "n2 n2 n3".
  std::string restarted_after_heal;
};

class SimCluster : public faults::ClusterTarget {
 public:
  SimCluster(sim::Simulator& sim, ClusterOptions options);
  ~SimCluster() override;

  // Every node ever created, members or not (indices and IDs never change: node i is n<i+1>).
  size_t size() const override { return nodes_.size(); }
  sim::Simulator& simulator() { return sim_; }
  // A new node on a host of its own (for etcd's member add): not started and not a member yet.
  // Start it once MemberAdd has been sent; it joins empty and catches up from the leader's
  // snapshot. Returns its index. At most limits::kRaftMembersMax nodes in all.
  Result<size_t> add_node();
  // The node applied its own removal from the cluster: it has stopped and is never restarted.
  bool removed(size_t i) const override { return nodes_[i]->was_removed; }
  // Started at least once (a node added for a MemberAdd that failed never is).
  bool started(size_t i) const override { return nodes_[i]->was_started; }
  // Whether the liveness and agreement checks wait for node i: it was started at least once,
  // was not removed, and (when there is a leader) the leader's membership names it.
  bool counts_as_member(size_t i) const override;
  void start(size_t i) override;
  void start_all();
  void crash(size_t i, sim::KillOptions options = {}) override;
  bool up(size_t i) const override;
  // Freezes / thaws a running node's process (a GC or VM stall); no-ops when down or already so.
  void pause(size_t i) override;
  void resume(size_t i) override;
  bool paused(size_t i) const override { return nodes_[i]->paused; }
  const sim::LinkConfig& link() const override { return options_.link; }
  // The fsync latency a node's disk has when no fault slows it (ClusterOptions::fsync_latency).
  sim::DurationDist normal_fsync_latency() const override;
  // The live server, or null when down (or not yet started).
  const node::Server* server(size_t i) const { return nodes_[i]->live; }
  sim::HostId host(size_t i) const override { return nodes_[i]->host; }
  node::FaultPoints& faults(size_t i) override { return nodes_[i]->faults; }
  bool lost(size_t i) const override { return nodes_[i]->lost; }
  std::optional<WalDamageRange> wal_damage_range(size_t i) const override;
  void damaging(size_t i, const std::string& file, uint64_t offset, uint64_t length) override;
  bool must_refuse_start(size_t i) const override { return !nodes_[i]->must_refuse.empty(); }
  // Summed over every incarnation of node i, the live one included.
  node::ServerCounters counters(size_t i) const;
  raft::Invariants& invariants() { return invariants_; }
  // The live leader with the highest term, if any.
  std::optional<size_t> leader() const override;

  // --- disaster recovery (etcd's "restore a cluster from a snapshot") -----------------------
  // Every member's process dies and its machine's disk is lost (an empty one takes its place);
  // they stay down, counted as lost, until restore(). Returns the members it took (0-based):
  // every node started, not removed and not already lost.
  std::vector<size_t> disaster();
  // A new cluster on the machines of `members` (0-based; after disaster()), each started from
  // `image` at index 1 (node::ServerOptions::restored_image) with the new membership and cluster
  // id, as etcd's procedure restores every member from one snapshot file and starts them. Raft's
  // invariants start over: the new cluster's log owes nothing to the old one's.
  void restore(const std::vector<size_t>& members, std::shared_ptr<const std::string> image, uint64_t cluster_id);
  uint64_t cluster_id() const { return options_.server.cluster_id; }
  // The run's bugs, as every member has them.
  const Bugs& bugs() const { return options_.server.bugs; }

  // The host the world's fault driver runs on (faults::FaultDriver), made with the cluster so
  // that every host keeps its id whether or not faults run.
  sim::HostId fault_host() const { return nemesis_host_; }
  // Removes every fault: heals links, resets loss, disk latencies and fsync failures, resumes
  // paused processes and restarts crashed nodes.
  void heal_all();
  // After heal_all(): runs the simulation until a leader exists and every node has applied
  // everything the leader committed, or `bound` passes.
  LivenessReport await_recovery(sim::DurationNs bound);
  // Member agreement: runs until every member is up and has applied the same index, then compares
  // their state hashes (computed in a fiber: a KV member's backend may be in the middle of a
  // commit), retrying if an apply slipped in meanwhile; false after `bound` or on a mismatch.
  AgreementReport await_agreement(sim::DurationNs bound);
  // Nodes that refused to start on damage they had to detect ("t=4.100s n2 refused ..."), bounded.
  const std::vector<std::string>& lost_members() const { return lost_members_; }
  // Nodes that took themselves down, with the reason ("t=3.2s n2 exits: WAL save failed: ...").
  const std::vector<std::string>& exits() const { return exits_; }

 private:
  // Restarts members that exited since the heal (each at most 3 times); await_recovery's helper.
  void restart_exited_after_heal(std::vector<int>& restarts, LivenessReport& report);
  // What the world keeps of one node across its incarnations; it is the member's
  // ServerObserver (the member tells it, it never writes here) and carries out what the node's
  // fault points fire.
  struct Node : node::ServerObserver {
    Node(SimCluster& cluster, uint64_t id);
    void started(node::Server& server) override;
    void stopped(const node::Server& server) override;
    void exiting(const std::string& why) override;
    void removed() override { was_removed = true; }
    void auto_compaction(const node::AutoCompactionEvent& e) override;
    // FaultPoints' executor, in the member's fiber at the point.
    void fire(node::FaultPoint p, const node::FaultAction& action);

    SimCluster& cluster;
    uint64_t id = 0;
    sim::HostId host = 0;
    sim::ProcessId process = sim::kNoProcess;
    node::Server* live = nullptr;
    node::FaultPoints faults;
    node::ServerCounters ended_counters;  // of the incarnations that ended
    bool paused = false;
    bool was_started = false;  // at least once
    bool was_removed = false;  // the member applied its own removal
    // Its storage holds damage its next start must refuse ("n2's WAL ... bytes 80..84"), or empty.
    std::string must_refuse;
    bool lost = false;  // it refused to start on that damage: kept down for good
  };
  // "t=3.2s n2 exits: WAL save failed: ...", bounded.
  void record_exit(uint64_t id, const std::string& why);

  sim::Simulator& sim_;
  ClusterOptions options_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::map<uint64_t, sim::HostId> directory_;  // every node's host, by ID (node::ServerHooks::directory)
  raft::Invariants invariants_;
  sim::HostId nemesis_host_ = 0;
  sim::HostId observer_host_ = 0;  // where await_agreement reads the members' state
  sim::ProcessId observer_ = sim::kNoProcess;
  std::vector<std::string> exits_;
  std::vector<std::string> lost_members_;
};

}  // namespace dst::world
