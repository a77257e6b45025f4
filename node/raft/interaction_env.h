// The world of the golden interaction tests: a handful of Raft nodes, their storage (what is in the
// page cache and what is durable), a message queue between them and a partition map. Every command
// of a script (see testdata/*.txt and datadriven.h) runs here and prints what happened: the Readys
// each node handled, the messages delivered or dropped, role changes, and any invariant violation.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "node/raft/datadriven.h"
#include "node/raft/invariants.h"
#include "node/raft/raft.h"

namespace dst::raft {

class InteractionEnv {
 public:
  // Runs one command; the error (unknown command, bad argument) names the script line.
  Result<std::string> handle(const datadriven::Command& cmd);
  const Invariants& invariants() const { return invariants_; }

 private:
  // A settable constant: the randomized election timeout is election_tick + value.
  struct FixedRandom : RandomSource {
    uint64_t value = 0;
    uint64_t uniform(uint64_t bound) override { return value % bound; }
  };
  // What a node has written: applied Ready by Ready, like a WAL.
  struct Storage {
    raftpb::HardState hard_state;
    raftpb::Snapshot snapshot;
    std::vector<raftpb::Entry> entries;
    void apply(const Ready& rd);
  };
  struct Node {
    Config config;
    std::unique_ptr<FixedRandom> random = std::make_unique<FixedRandom>();
    std::unique_ptr<Raft> raft;
    Storage cached;   // written (page cache)
    Storage durable;  // fsynced
    SoftState last_reported;
    uint64_t last_term_reported = 0;
  };

  // One handler per command (interaction_env_handlers.cc); each appends what happened to `out`.
  Status cmd_add_nodes(const datadriven::Command& cmd, std::string& out);
  Status cmd_campaign(const datadriven::Command& cmd, std::string& out);
  Status cmd_propose(const datadriven::Command& cmd, std::string& out);
  Status cmd_propose_conf_change(const datadriven::Command& cmd, std::string& out);
  Status cmd_read_index(const datadriven::Command& cmd, std::string& out);
  Status cmd_transfer_leader(const datadriven::Command& cmd, std::string& out);
  Status cmd_tick(const datadriven::Command& cmd, std::string& out);
  Status cmd_process_ready(const datadriven::Command& cmd, std::string& out);
  Status cmd_deliver_msgs(const datadriven::Command& cmd, std::string& out);
  Status cmd_stabilize(const datadriven::Command& cmd, std::string& out);
  Status cmd_partition(const datadriven::Command& cmd, std::string& out);
  Status cmd_heal(const datadriven::Command& cmd, std::string& out);
  Status cmd_restart(const datadriven::Command& cmd, std::string& out);
  Status cmd_compact(const datadriven::Command& cmd, std::string& out);
  Status cmd_node_number(const datadriven::Command& cmd, std::string& out);
  Status cmd_status(const datadriven::Command& cmd, std::string& out);
  Status cmd_raft_state(const datadriven::Command& cmd, std::string& out);
  Result<uint64_t> first_node(const datadriven::Command& cmd) const;
  Result<std::vector<uint64_t>> nodes_or_all(const datadriven::Command& cmd) const;

  Status add_nodes(const datadriven::Command& cmd, std::string& out);
  Status process_ready(uint64_t id, std::string& out);
  // Delivers the queued messages for `id`; those for nodes in `drop` are lost, those for nodes in
  // `dup` arrive twice (the network may duplicate).
  bool deliver(uint64_t id, const std::vector<uint64_t>& drop, const std::vector<uint64_t>& dup,
               std::string& out);
  Status stabilize(const std::vector<uint64_t>& ids, std::string& out);
  void restart(uint64_t id, bool lose_unsynced, std::string& out);
  void note_changes(std::string& out);
  std::string raft_log(uint64_t id) const;
  bool reachable(uint64_t from, uint64_t to) const;

  Result<uint64_t> node_arg(const datadriven::Command& cmd, const std::string& word) const;
  Result<std::vector<uint64_t>> node_list(const datadriven::Command& cmd,
                                          const std::vector<std::string>& words) const;
  std::vector<uint64_t> all_ids() const;
  Node& node(uint64_t id) { return nodes_.at(id); }

  std::map<uint64_t, Node> nodes_;
  struct InFlight {
    raftpb::Message message;
    bool cut_when_sent = false;  // the partition at send time already separated the two ends
  };
  std::vector<InFlight> queue_;  // sent, not yet delivered, in send order
  std::map<uint64_t, int> partition_;   // node -> group; empty when healed
  Invariants invariants_;
  size_t violations_reported_ = 0;
};

}  // namespace dst::raft
