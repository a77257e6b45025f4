#include "node/raft/interaction_env.h"

#include <algorithm>
#include <charconv>

#include "base/assert.h"
#include "node/raft/describe.h"
#include "node/raft/interaction_env_args.h"

namespace dst::raft {

using interaction::bad;
using interaction::parse_bool;
using interaction::parse_u64;

namespace {

// Rounds of process-ready + deliver one `stabilize` may take; a cluster that still talks after
// this many rounds is livelocked (e.g. two nodes forever re-electing), which the test must show.
constexpr int kStabilizeRoundsMax = 1000;

std::string indent(const std::string& text) {
  std::string out = "  ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

}  // namespace

void InteractionEnv::Storage::apply(const Ready& rd) {
  if (rd.snapshot) {
    snapshot = *rd.snapshot;
    entries.clear();
  }
  if (rd.hard_state) hard_state = *rd.hard_state;
  for (const raftpb::Entry& e : rd.entries) {
    uint64_t first = snapshot.metadata().index() + 1;
    DST_ASSERT_GE(e.index(), first);
    DST_ASSERT_LE(e.index(), first + entries.size());
    entries.resize(e.index() - first);  // a new entry replaces whatever was at its index
    entries.push_back(e);
  }
}

std::vector<uint64_t> InteractionEnv::all_ids() const {
  std::vector<uint64_t> ids;
  for (const auto& [id, n] : nodes_) ids.push_back(id);
  return ids;
}

Result<uint64_t> InteractionEnv::node_arg(const datadriven::Command& cmd, const std::string& word) const {
  auto id = parse_u64(cmd, word);
  if (!id.is_ok()) return id.status();
  if (nodes_.count(*id) == 0) return bad(cmd, "no node " + word);
  return *id;
}

Result<std::vector<uint64_t>> InteractionEnv::node_list(const datadriven::Command& cmd,
                                                        const std::vector<std::string>& words) const {
  std::vector<uint64_t> ids;
  for (const std::string& w : words) {
    auto id = node_arg(cmd, w);
    if (!id.is_ok()) return id.status();
    ids.push_back(*id);
  }
  return ids;
}

bool InteractionEnv::reachable(uint64_t from, uint64_t to) const {
  if (partition_.empty()) return true;
  auto a = partition_.find(from);
  auto b = partition_.find(to);
  // Nodes not named in the partition are in a group of their own.
  if (a == partition_.end() || b == partition_.end()) return false;
  return a->second == b->second;
}

void InteractionEnv::note_changes(std::string& out) {
  for (auto& [id, n] : nodes_) {
    invariants_.observe(*n.raft);
    SoftState now{n.raft->lead(), n.raft->role()};
    if (now.role != n.last_reported.role || n.raft->term() != n.last_term_reported) {
      out += "~ " + std::to_string(id) + " is " + role_name(now.role) + " at term " +
             std::to_string(n.raft->term()) + "\n";
    }
    n.last_reported = now;
    n.last_term_reported = n.raft->term();
  }
  const auto& v = invariants_.violations();
  for (; violations_reported_ < v.size(); ++violations_reported_) out += "VIOLATION " + v[violations_reported_] + "\n";
}

namespace {

// add-nodes' options: the members (voters=, learners=), the snapshot index they start from, the
// Raft settings and bugs every new node gets.
Status parse_node_options(const datadriven::Command& cmd, Config& base, uint64_t& index, raftpb::ConfState& cs) {
  for (const datadriven::Arg& a : cmd.args) {
    if (a.values.empty()) continue;
    const std::string& v = a.values[0];
    auto u64 = [&](auto& field) -> Status {
      auto r = parse_u64(cmd, v);
      if (!r.is_ok()) return r.status();
      field = static_cast<std::remove_reference_t<decltype(field)>>(*r);
      return Status::ok();
    };
    auto boolean = [&](bool& field) -> Status {
      auto r = parse_bool(cmd, v);
      if (!r.is_ok()) return r.status();
      field = *r;
      return Status::ok();
    };
    Status s;
    if (a.key == "voters" || a.key == "learners") {
      for (const std::string& w : a.values) {
        auto id = parse_u64(cmd, w);
        if (!id.is_ok()) return id.status();
        (a.key == "voters" ? cs.add_voters(*id) : cs.add_learners(*id));
      }
    } else if (a.key == "index") {
      s = u64(index);
    } else if (a.key == "prevote") {
      s = boolean(base.pre_vote);
    } else if (a.key == "checkquorum") {
      s = boolean(base.check_quorum);
    } else if (a.key == "election") {
      s = u64(base.election_tick);
    } else if (a.key == "heartbeat") {
      s = u64(base.heartbeat_tick);
    } else if (a.key == "inflight") {
      s = u64(base.max_inflight_msgs);
    } else if (a.key == "max-msg-size") {
      s = u64(base.max_size_per_msg);
    } else if (a.key == "max-uncommitted-size") {
      s = u64(base.max_uncommitted_entries_size);
    } else if (a.key == "bug") {
      for (const std::string& name : a.values) {
        auto b = parse_bug(name);
        if (!b.is_ok()) return bad(cmd, b.status().message());
        if (bug_layer(*b) != BugLayer::kRaft) return bad(cmd, "'" + name + "' is not a Raft bug");
        base.bugs.with(*b);
      }
    } else {
      return bad(cmd, "unknown option '" + a.key + "'");
    }
    if (!s.is_ok()) return s;
  }
  return Status::ok();
}

}  // namespace

Status InteractionEnv::add_nodes(const datadriven::Command& cmd, std::string& out) {
  auto pos = cmd.positional();
  if (pos.size() != 1) return bad(cmd, "usage: add-nodes N [voters=(..)] [learners=(..)] [index=I] ...");
  auto count = parse_u64(cmd, pos[0]);
  if (!count.is_ok()) return count.status();
  if (*count == 0 || *count > 9) return bad(cmd, "N must be in [1, 9]");

  Config base;
  uint64_t index = 0;
  raftpb::ConfState cs;
  if (Status st = parse_node_options(cmd, base, index, cs); !st.is_ok()) return st;

  uint64_t first = nodes_.empty() ? 1 : nodes_.rbegin()->first + 1;
  for (uint64_t id = first; id < first + *count; ++id) {
    Node n;
    n.config = base;
    n.config.id = id;
    Status valid = n.config.validate();
    if (!valid.is_ok()) return bad(cmd, valid.message());
    raftpb::Snapshot snap;
    *snap.mutable_metadata()->mutable_conf_state() = cs;
    snap.mutable_metadata()->set_index(index);
    snap.mutable_metadata()->set_term(index > 0 ? 1 : 0);
    n.durable.snapshot = snap;
    n.durable.hard_state.set_term(index > 0 ? 1 : 0);
    n.durable.hard_state.set_commit(index);
    n.cached = n.durable;
    InitialState init{n.durable.hard_state, snap, {}, index};
    n.raft = std::make_unique<Raft>(n.config, *n.random, std::move(init));
    n.last_reported = SoftState{n.raft->lead(), n.raft->role()};
    n.last_term_reported = n.raft->term();
    out += n.raft->status() + "\n";
    nodes_.emplace(id, std::move(n));
  }
  return Status::ok();
}

Status InteractionEnv::process_ready(uint64_t id, std::string& out) {
  Node& n = node(id);
  if (!n.raft->has_ready()) return Status::ok();
  Ready rd = n.raft->ready();
  out += "> " + std::to_string(id) + " handling Ready\n" + indent(describe_ready(rd)) + "\n";
  // 1. persist, 2. send, 3. apply, in the order ready.h prescribes.
  n.cached.apply(rd);
  if (rd.must_sync) n.durable = n.cached;
  for (const raftpb::Message& m : rd.messages) queue_.push_back(InFlight{m, !reachable(m.from(), m.to())});
  for (const raftpb::Entry& e : rd.committed_entries) {
    if (e.type() != raftpb::ENTRY_CONF_CHANGE) continue;
    raftpb::ConfChange cc;
    DST_ASSERT(cc.ParseFromString(e.data()));
    raftpb::ConfState cs = n.raft->apply_conf_change(cc);
    out += "  " + std::to_string(id) + " applied " + describe_entry(e) + ": " + describe_conf_state(cs) + "\n";
  }
  invariants_.observe_ready(*n.raft, rd);
  n.raft->advance(rd);
  note_changes(out);
  return Status::ok();
}

bool InteractionEnv::deliver(uint64_t id, const std::vector<uint64_t>& drop, const std::vector<uint64_t>& dup,
                             std::string& out) {
  std::vector<InFlight> mine;
  std::vector<InFlight> rest;
  for (InFlight& f : queue_) (f.message.to() == id ? mine : rest).push_back(std::move(f));
  queue_.swap(rest);
  if (mine.empty()) return false;
  out += "> " + std::to_string(id) + " receiving messages\n";
  for (const InFlight& f : mine) {
    const raftpb::Message& m = f.message;
    // A message is lost if the link was cut when it was sent or is cut now.
    bool dropped = std::find(drop.begin(), drop.end(), id) != drop.end() || f.cut_when_sent ||
                   !reachable(m.from(), m.to()) || nodes_.count(id) == 0;
    if (dropped) {
      out += "  dropped: " + describe_message(m) + "\n";
      continue;
    }
    int copies = std::find(dup.begin(), dup.end(), id) != dup.end() ? 2 : 1;
    for (int k = 0; k < copies; ++k) {
      out += std::string(k == 0 ? "  " : "  duplicate: ") + describe_message(m) + "\n";
      Status s = node(id).raft->step(m);
      if (!s.is_ok()) out += "  " + s.to_string() + "\n";
    }
  }
  note_changes(out);
  return true;
}

Status InteractionEnv::stabilize(const std::vector<uint64_t>& ids, std::string& out) {
  for (int round = 0; round < kStabilizeRoundsMax; ++round) {
    bool busy = false;
    for (uint64_t id : ids) {
      if (!node(id).raft->has_ready()) continue;
      busy = true;
      Status s = process_ready(id, out);
      if (!s.is_ok()) return s;
    }
    for (uint64_t id : ids) busy = deliver(id, {}, {}, out) || busy;
    if (!busy) return Status::ok();
  }
  out += "stabilize: still busy after " + std::to_string(kStabilizeRoundsMax) + " rounds\n";
  return Status::ok();
}

void InteractionEnv::restart(uint64_t id, bool lose_unsynced, std::string& out) {
  Node& n = node(id);
  if (lose_unsynced) {
    n.cached = n.durable;
  } else {
    n.durable = n.cached;
  }
  InitialState init{n.durable.hard_state, n.durable.snapshot, n.durable.entries,
                    n.durable.snapshot.metadata().index()};
  n.raft = std::make_unique<Raft>(n.config, *n.random, std::move(init));
  invariants_.observe_restart(*n.raft);
  out += n.raft->status() + "\n";
  note_changes(out);
}

std::string InteractionEnv::raft_log(uint64_t id) const {
  const RaftLog& log = nodes_.at(id).raft->log();
  std::string out;
  if (log.snapshot_metadata().index() > 0) out += "snapshot " + describe_snapshot(log.snapshot_metadata()) + "\n";
  for (uint64_t i = log.first_index(); i <= log.last_index(); ++i) out += describe_entry(log.entry(i)) + "\n";
  out += "stabled=" + std::to_string(log.stabled()) + " committed=" + std::to_string(log.committed()) +
         " applied=" + std::to_string(log.applied());
  return out;
}

}  // namespace dst::raft
