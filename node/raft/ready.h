// What a Raft node hands to its environment, and the contract for handling it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proto/raft.pb.h"

namespace dst::raft {

enum class Role { kFollower, kPreCandidate, kCandidate, kLeader };
const char* role_name(Role r);

// Volatile state, reported when it changes (for logs and the invariants checker); never persisted.
struct SoftState {
  uint64_t lead = 0;
  Role role = Role::kFollower;
  bool operator==(const SoftState&) const = default;
};

// Whether `m` tells others of a vote its sender cast (its own MsgVote as a candidate, or a
// granted MsgVoteResp): once it is out, that vote must survive a crash (Vote Safety).
inline bool announces_vote(const raftpb::Message& m) {
  return m.type() == raftpb::MSG_VOTE || (m.type() == raftpb::MSG_VOTE_RESP && !m.reject());
}

// A linearizable read may be served once the state machine has applied `index` (§8, ReadIndex).
struct ReadState {
  uint64_t index = 0;
  std::string context;
};

// One batch of work. The environment handles it in this order, then calls Raft::advance(ready):
//   1. persist `hard_state` (if set), `snapshot` (if set) and `entries`; if `must_sync`, make them
//      durable (fsync) before going on. Entries replace any stored entries with the same or higher
//      index.
//   2. send `messages`. Only now: a vote or an append acknowledgement promises that the state it
//      describes survives a crash.
//   3. apply `snapshot` (if set), then `committed_entries` in order, to the state machine;
//      `read_states` may be answered once their index has been applied.
struct Ready {
  std::optional<SoftState> soft_state;
  std::optional<raftpb::HardState> hard_state;
  std::vector<raftpb::Entry> entries;
  std::optional<raftpb::Snapshot> snapshot;
  std::vector<raftpb::Entry> committed_entries;
  std::vector<raftpb::Message> messages;
  std::vector<ReadState> read_states;
  bool must_sync = false;

  bool empty() const {
    return !soft_state && !hard_state && entries.empty() && !snapshot && committed_entries.empty() &&
           messages.empty() && read_states.empty();
  }
};

}  // namespace dst::raft
