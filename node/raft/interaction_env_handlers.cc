// The interaction environment's commands, one handler each (the model is etcd-io/raft's
// rafttest/interaction_env_handler_*.go): handle() looks the command up and runs its handler. A
// handler returns an error for a bad script line; what Raft itself refuses (a proposal to a
// follower without a leader...) is printed into the output instead, as the golden files expect.
#include <algorithm>

#include "node/raft/describe.h"
#include "node/raft/interaction_env.h"
#include "node/raft/interaction_env_args.h"

namespace dst::raft {

using interaction::bad;
using interaction::parse_bool;
using interaction::parse_u64;

namespace {

void report(const Status& s, std::string& out) {
  if (!s.is_ok()) out += s.to_string() + "\n";
}

Status need(const datadriven::Command& cmd, size_t n, const char* usage) {
  if (cmd.positional().size() < n) return bad(cmd, std::string("usage: ") + usage);
  return Status::ok();
}

}  // namespace

Result<uint64_t> InteractionEnv::first_node(const datadriven::Command& cmd) const {
  const std::vector<std::string> pos = cmd.positional();
  if (pos.empty()) return bad(cmd, "expected a node id");
  return node_arg(cmd, pos[0]);
}

// The nodes a command names, or every node when it names none.
Result<std::vector<uint64_t>> InteractionEnv::nodes_or_all(const datadriven::Command& cmd) const {
  Result<std::vector<uint64_t>> ids = node_list(cmd, cmd.positional());
  if (ids.is_ok() && ids->empty()) return all_ids();
  return ids;
}

Status InteractionEnv::cmd_add_nodes(const datadriven::Command& cmd, std::string& out) { return add_nodes(cmd, out); }

Status InteractionEnv::cmd_campaign(const datadriven::Command& cmd, std::string& out) {
  Result<uint64_t> id = first_node(cmd);
  if (!id.is_ok()) return id.status();
  report(node(*id).raft->campaign(), out);
  return Status::ok();
}

Status InteractionEnv::cmd_propose(const datadriven::Command& cmd, std::string& out) {
  if (Status st = need(cmd, 2, "propose ID DATA"); !st.is_ok()) return st;
  Result<uint64_t> id = first_node(cmd);
  if (!id.is_ok()) return id.status();
  report(node(*id).raft->propose(cmd.positional()[1]), out);
  return Status::ok();
}

Status InteractionEnv::cmd_propose_conf_change(const datadriven::Command& cmd, std::string& out) {
  if (Status st = need(cmd, 3, "propose-conf-change ID add|remove|add-learner NODE"); !st.is_ok()) return st;
  const std::vector<std::string> pos = cmd.positional();
  Result<uint64_t> id = first_node(cmd);
  if (!id.is_ok()) return id.status();
  Result<uint64_t> target = parse_u64(cmd, pos[2]);
  if (!target.is_ok()) return target.status();
  raftpb::ConfChange cc;
  cc.set_node_id(*target);
  if (pos[1] == "add") cc.set_type(raftpb::CONF_CHANGE_ADD_NODE);
  else if (pos[1] == "remove") cc.set_type(raftpb::CONF_CHANGE_REMOVE_NODE);
  else if (pos[1] == "add-learner") cc.set_type(raftpb::CONF_CHANGE_ADD_LEARNER_NODE);
  else return bad(cmd, "expected add, remove or add-learner, got '" + pos[1] + "'");
  report(node(*id).raft->propose_conf_change(cc), out);
  return Status::ok();
}

Status InteractionEnv::cmd_read_index(const datadriven::Command& cmd, std::string& out) {
  if (Status st = need(cmd, 2, "read-index ID CONTEXT"); !st.is_ok()) return st;
  Result<uint64_t> id = first_node(cmd);
  if (!id.is_ok()) return id.status();
  invariants_.read_requested(cmd.positional()[1]);
  report(node(*id).raft->read_index(cmd.positional()[1]), out);
  return Status::ok();
}

Status InteractionEnv::cmd_transfer_leader(const datadriven::Command& cmd, std::string& out) {
  if (Status st = need(cmd, 2, "transfer-leader FROM TO"); !st.is_ok()) return st;
  Result<uint64_t> id = first_node(cmd);
  if (!id.is_ok()) return id.status();
  Result<uint64_t> to = parse_u64(cmd, cmd.positional()[1]);
  if (!to.is_ok()) return to.status();
  report(node(*id).raft->transfer_leader(*to), out);
  return Status::ok();
}

// tick-heartbeat ID [K] / tick-election ID [K]: K heartbeat (election) timeouts' worth of ticks.
Status InteractionEnv::cmd_tick(const datadriven::Command& cmd, std::string&) {
  Result<uint64_t> id = first_node(cmd);
  if (!id.is_ok()) return id.status();
  Node& n = node(*id);
  uint64_t times = cmd.name == "tick-heartbeat" ? static_cast<uint64_t>(n.config.heartbeat_tick)
                                                : static_cast<uint64_t>(n.config.election_tick);
  if (cmd.positional().size() > 1) {
    Result<uint64_t> k = parse_u64(cmd, cmd.positional()[1]);
    if (!k.is_ok()) return k.status();
    times *= *k;
  }
  for (uint64_t k = 0; k < times; ++k) n.raft->tick();
  return Status::ok();
}

Status InteractionEnv::cmd_process_ready(const datadriven::Command& cmd, std::string& out) {
  Result<std::vector<uint64_t>> ids = nodes_or_all(cmd);
  if (!ids.is_ok()) return ids.status();
  for (uint64_t id : *ids)
    if (Status st = process_ready(id, out); !st.is_ok()) return st;
  return Status::ok();
}

Status InteractionEnv::cmd_deliver_msgs(const datadriven::Command& cmd, std::string& out) {
  Result<std::vector<uint64_t>> ids = nodes_or_all(cmd);
  if (!ids.is_ok()) return ids.status();
  std::vector<uint64_t> drop, dup;
  for (const auto& [key, into] : {std::pair<const char*, std::vector<uint64_t>*>{"drop", &drop}, {"dup", &dup}}) {
    if (auto words = cmd.find(key)) {
      Result<std::vector<uint64_t>> listed = node_list(cmd, *words);
      if (!listed.is_ok()) return listed.status();
      *into = *listed;
    }
  }
  for (uint64_t id : *ids) deliver(id, drop, dup, out);
  return Status::ok();
}

Status InteractionEnv::cmd_stabilize(const datadriven::Command& cmd, std::string& out) {
  Result<std::vector<uint64_t>> ids = nodes_or_all(cmd);
  if (!ids.is_ok()) return ids.status();
  return stabilize(*ids, out);
}

// partition (1) (2,3): the positional words are groups of ids.
Status InteractionEnv::cmd_partition(const datadriven::Command& cmd, std::string&) {
  partition_.clear();
  int group = 0;
  for (const datadriven::Arg& a : cmd.args) {
    std::string g = a.key;
    if (g.size() < 2 || g.front() != '(' || g.back() != ')') return bad(cmd, "expected groups like (1) (2,3), got '" + g + "'");
    g = g.substr(1, g.size() - 2);
    size_t start = 0;
    while (start <= g.size()) {
      const size_t comma = std::min(g.find(',', start), g.size());
      Result<uint64_t> id = node_arg(cmd, g.substr(start, comma - start));
      if (!id.is_ok()) return id.status();
      partition_[*id] = group;
      start = comma + 1;
    }
    ++group;
  }
  return Status::ok();
}

Status InteractionEnv::cmd_heal(const datadriven::Command&, std::string&) {
  partition_.clear();
  return Status::ok();
}

Status InteractionEnv::cmd_restart(const datadriven::Command& cmd, std::string& out) {
  Result<uint64_t> id = first_node(cmd);
  if (!id.is_ok()) return id.status();
  bool lose = true;
  if (auto v = cmd.find("lose-unsynced")) {
    Result<bool> b = parse_bool(cmd, (*v)[0]);
    if (!b.is_ok()) return b.status();
    lose = *b;
  }
  restart(*id, lose, out);
  return Status::ok();
}

Status InteractionEnv::cmd_compact(const datadriven::Command& cmd, std::string& out) {
  Result<uint64_t> id = first_node(cmd);
  if (!id.is_ok()) return id.status();
  Node& n = node(*id);
  raftpb::Snapshot snap = n.raft->make_snapshot("state@" + std::to_string(n.raft->log().applied()));
  // The application saves the snapshot durably, then the log (and the WAL) may drop the
  // entries it covers.
  for (Storage* st : {&n.cached, &n.durable}) {
    std::vector<raftpb::Entry> tail;
    for (const raftpb::Entry& e : st->entries)
      if (e.index() > snap.metadata().index()) tail.push_back(e);
    st->snapshot = snap;
    st->entries = std::move(tail);
  }
  n.raft->compact(snap);
  out += "snapshot " + describe_snapshot(snap.metadata()) + "\n";
  return Status::ok();
}

// report-unreachable ID PEER / set-random ID VALUE: a node and a number.
Status InteractionEnv::cmd_node_number(const datadriven::Command& cmd, std::string&) {
  const bool unreachable = cmd.name == "report-unreachable";
  if (Status st = need(cmd, 2, unreachable ? "report-unreachable ID PEER" : "set-random ID VALUE"); !st.is_ok()) return st;
  Result<uint64_t> id = first_node(cmd);
  if (!id.is_ok()) return id.status();
  Result<uint64_t> v = parse_u64(cmd, cmd.positional()[1]);
  if (!v.is_ok()) return v.status();
  if (unreachable) node(*id).raft->report_unreachable(*v);
  else node(*id).random->value = *v;
  return Status::ok();
}

Status InteractionEnv::cmd_status(const datadriven::Command& cmd, std::string& out) {
  Result<uint64_t> id = first_node(cmd);
  if (!id.is_ok()) return id.status();
  out += (cmd.name == "status" ? node(*id).raft->status() : raft_log(*id)) + "\n";
  return Status::ok();
}

Status InteractionEnv::cmd_raft_state(const datadriven::Command&, std::string& out) {
  for (const auto& [id, n] : nodes_) {
    out += std::to_string(id) + ": " + role_name(n.raft->role()) + " term=" + std::to_string(n.raft->term()) +
           " lead=" + std::to_string(n.raft->lead()) + " commit=" + std::to_string(n.raft->log().committed()) + "\n";
  }
  return Status::ok();
}

Result<std::string> InteractionEnv::handle(const datadriven::Command& cmd) {
  using Handler = Status (InteractionEnv::*)(const datadriven::Command&, std::string&);
  static constexpr std::pair<std::string_view, Handler> kHandlers[] = {
      {"add-nodes", &InteractionEnv::cmd_add_nodes},
      {"campaign", &InteractionEnv::cmd_campaign},
      {"propose", &InteractionEnv::cmd_propose},
      {"propose-conf-change", &InteractionEnv::cmd_propose_conf_change},
      {"read-index", &InteractionEnv::cmd_read_index},
      {"transfer-leader", &InteractionEnv::cmd_transfer_leader},
      {"tick-heartbeat", &InteractionEnv::cmd_tick},
      {"tick-election", &InteractionEnv::cmd_tick},
      {"process-ready", &InteractionEnv::cmd_process_ready},
      {"deliver-msgs", &InteractionEnv::cmd_deliver_msgs},
      {"stabilize", &InteractionEnv::cmd_stabilize},
      {"partition", &InteractionEnv::cmd_partition},
      {"heal", &InteractionEnv::cmd_heal},
      {"restart", &InteractionEnv::cmd_restart},
      {"compact", &InteractionEnv::cmd_compact},
      {"report-unreachable", &InteractionEnv::cmd_node_number},
      {"set-random", &InteractionEnv::cmd_node_number},
      {"status", &InteractionEnv::cmd_status},
      {"raft-log", &InteractionEnv::cmd_status},
      {"raft-state", &InteractionEnv::cmd_raft_state},
  };
  const auto it = std::find_if(std::begin(kHandlers), std::end(kHandlers),
                               [&](const auto& h) { return h.first == cmd.name; });
  if (it == std::end(kHandlers)) return bad(cmd, "unknown command");
  std::string out;
  if (Status st = (this->*(it->second))(cmd, out); !st.is_ok()) return st;
  note_changes(out);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out.empty() ? std::string("ok") : out;
}

}  // namespace dst::raft
