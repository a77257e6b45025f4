#include "node/raft/describe.h"

#include "base/assert.h"

namespace dst::raft {

const char* role_name(Role r) {
  switch (r) {
    case Role::kFollower: return "StateFollower";
    case Role::kPreCandidate: return "StatePreCandidate";
    case Role::kCandidate: return "StateCandidate";
    case Role::kLeader: return "StateLeader";
  }
  DST_UNREACHABLE("role");
}

const char* message_type_name(raftpb::MessageType t) {
  switch (t) {
    case raftpb::MSG_APP: return "MsgApp";
    case raftpb::MSG_APP_RESP: return "MsgAppResp";
    case raftpb::MSG_VOTE: return "MsgVote";
    case raftpb::MSG_VOTE_RESP: return "MsgVoteResp";
    case raftpb::MSG_PRE_VOTE: return "MsgPreVote";
    case raftpb::MSG_PRE_VOTE_RESP: return "MsgPreVoteResp";
    case raftpb::MSG_HEARTBEAT: return "MsgHeartbeat";
    case raftpb::MSG_HEARTBEAT_RESP: return "MsgHeartbeatResp";
    case raftpb::MSG_SNAP: return "MsgSnap";
    case raftpb::MSG_READ_INDEX: return "MsgReadIndex";
    case raftpb::MSG_READ_INDEX_RESP: return "MsgReadIndexResp";
    case raftpb::MSG_TIMEOUT_NOW: return "MsgTimeoutNow";
    case raftpb::MSG_PROP: return "MsgProp";
    default: return "MsgUnknown";
  }
}

namespace {

std::string quoted(const std::string& data) {
  std::string out = "\"";
  for (unsigned char c : data) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out + "\"";
}

std::string ids(const google::protobuf::RepeatedField<uint64_t>& v) {
  std::string out = "[";
  for (int i = 0; i < v.size(); ++i) out += (i ? " " : "") + std::to_string(v[i]);
  return out + "]";
}

}  // namespace

std::string describe_conf_state(const raftpb::ConfState& cs) {
  std::string s = "Voters:" + ids(cs.voters());
  if (cs.learners_size() > 0) s += " Learners:" + ids(cs.learners());
  return s;
}

std::string describe_entry(const raftpb::Entry& e) {
  std::string s = std::to_string(e.term()) + "/" + std::to_string(e.index()) + " ";
  if (e.type() == raftpb::ENTRY_CONF_CHANGE) {
    raftpb::ConfChange cc;
    if (!cc.ParseFromString(e.data())) return s + "EntryConfChange <unparsable>";
    const char* what = cc.type() == raftpb::CONF_CHANGE_ADD_NODE      ? "add"
                       : cc.type() == raftpb::CONF_CHANGE_REMOVE_NODE ? "remove"
                       : cc.type() == raftpb::CONF_CHANGE_UPDATE_NODE ? "update"
                                                                      : "add-learner";
    return s + "EntryConfChange " + what + " " + std::to_string(cc.node_id());
  }
  return s + "EntryNormal " + quoted(e.data());
}

std::string describe_snapshot(const raftpb::SnapshotMetadata& meta) {
  return "Index:" + std::to_string(meta.index()) + " Term:" + std::to_string(meta.term()) + " " +
         describe_conf_state(meta.conf_state());
}

std::string describe_message(const raftpb::Message& m) {
  std::string s = std::to_string(m.from()) + "->" + std::to_string(m.to()) + " " + message_type_name(m.type());
  auto log = [&] { return " Log:" + std::to_string(m.log_term()) + "/" + std::to_string(m.index()); };
  auto term = [&] { return " Term:" + std::to_string(m.term()); };
  auto context = [&] { return m.context().empty() ? std::string() : " Context:" + quoted(m.context()); };
  auto entries = [&] {
    if (m.entries_size() == 0) return std::string();
    std::string e = " Entries:[";
    for (int i = 0; i < m.entries_size(); ++i) e += (i ? ", " : "") + describe_entry(m.entries(i));
    return e + "]";
  };
  switch (m.type()) {
    case raftpb::MSG_APP:
      return s + term() + log() + " Commit:" + std::to_string(m.commit()) + entries();
    case raftpb::MSG_APP_RESP:
      s += term() + " Index:" + std::to_string(m.index());
      if (m.reject())
        s += " Rejected (Hint: " + std::to_string(m.reject_hint()) + "/" + std::to_string(m.log_term()) + ")";
      return s;
    case raftpb::MSG_VOTE:
    case raftpb::MSG_PRE_VOTE: return s + term() + log() + context();
    case raftpb::MSG_VOTE_RESP:
    case raftpb::MSG_PRE_VOTE_RESP: return s + term() + (m.reject() ? " Rejected" : "");
    case raftpb::MSG_HEARTBEAT: return s + term() + " Commit:" + std::to_string(m.commit()) + context();
    case raftpb::MSG_HEARTBEAT_RESP: return s + term() + context();
    case raftpb::MSG_SNAP: return s + term() + " Snapshot: " + describe_snapshot(m.snapshot().metadata());
    case raftpb::MSG_READ_INDEX: return s + term() + context();
    case raftpb::MSG_READ_INDEX_RESP: return s + term() + " Index:" + std::to_string(m.index()) + context();
    case raftpb::MSG_TIMEOUT_NOW: return s + term();
    case raftpb::MSG_PROP: return s + entries();
    default: return s + " <unknown type " + std::to_string(m.type()) + ">";
  }
}

std::string describe_hard_state(const raftpb::HardState& hs) {
  return "Term:" + std::to_string(hs.term()) + " Vote:" + std::to_string(hs.vote()) +
         " Commit:" + std::to_string(hs.commit());
}

std::string describe_ready(const Ready& rd) {
  std::string s = std::string("Ready MustSync=") + (rd.must_sync ? "true" : "false") + ":";
  if (rd.soft_state)
    s += "\nLead:" + std::to_string(rd.soft_state->lead) + " State:" + role_name(rd.soft_state->role);
  if (rd.hard_state) s += "\nHardState " + describe_hard_state(*rd.hard_state);
  if (!rd.entries.empty()) {
    s += "\nEntries:";
    for (const auto& e : rd.entries) s += "\n" + describe_entry(e);
  }
  if (rd.snapshot) s += "\nSnapshot " + describe_snapshot(rd.snapshot->metadata());
  if (!rd.committed_entries.empty()) {
    s += "\nCommittedEntries:";
    for (const auto& e : rd.committed_entries) s += "\n" + describe_entry(e);
  }
  if (!rd.messages.empty()) {
    s += "\nMessages:";
    for (const auto& m : rd.messages) s += "\n" + describe_message(m);
  }
  if (!rd.read_states.empty()) {
    s += "\nReadStates:";
    for (const auto& r : rd.read_states)
      s += "\nIndex:" + std::to_string(r.index) + " Context:" + quoted(r.context);
  }
  return s;
}

}  // namespace dst::raft
