// Configuration of one Raft node, and the switchable safety bugs the harness must be able to catch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dst::raft {

// Each bug removes exactly one safety rule. All are off by default; scenarios and tests turn them
// on to prove that the invariants, the checkers and the fault model are strong enough to notice.
enum class Bug : uint32_t {
  // Answer votes before the vote is durable (must_sync stays false when only term/vote changed).
  // Rule: §5.1/Figure 2 "persistent state ... updated on stable storage before responding".
  kVoteBeforePersist = 1u << 0,
  // Acknowledge appended entries before they are durable (must_sync false for new entries).
  // Rule: same as above, for log entries.
  kAckBeforePersist = 1u << 1,
  // Commit by counting replicas of an entry from an earlier term. Rule: §5.4.2 / Figure 8.
  kCommitOldTermEntries = 1u << 2,
  // Grant votes without comparing logs. Rule: §5.4.1 election restriction.
  kVoteIgnoresLog = 1u << 3,
  // Heartbeats carry the leader's full commit index instead of min(commit, follower's match), and
  // followers trust it. Rule: a follower may only commit entries it knows match the leader's.
  kHeartbeatCommitUnchecked = 1u << 4,
  // Serve ReadIndex from the leader's commit index without confirming leadership. Rule: §8.
  kReadIndexWithoutQuorum = 1u << 5,
};

// "vote-before-persist" etc.; every Bug has one name.
std::string_view bug_name(Bug bug);
// Parses one name; the error lists the valid names.
Result<Bug> parse_bug(std::string_view name);
std::vector<Bug> all_bugs();

struct Config {
  uint64_t id = 0;
  // Ticks without hearing from a leader before a follower campaigns; the actual timeout is drawn
  // uniformly from [election_tick, 2 * election_tick) at every reset (§5.2).
  int election_tick = 10;
  int heartbeat_tick = 1;
  // §9.6 (thesis): a node first checks it could win before disrupting the cluster with a new term.
  bool pre_vote = true;
  // A leader steps down when it has not heard from a quorum for an election timeout, and followers
  // that hear from a leader ignore vote requests for that long ("leader stickiness").
  bool check_quorum = true;
  // Appends in flight to one follower in Replicate state.
  size_t max_inflight_msgs = 256;
  // Entry data bytes in one append message (at least one entry is always sent).
  uint64_t max_size_per_msg = 1024 * 1024;
  // Entry data bytes handed to the application in one Ready.
  uint64_t max_committed_size_per_ready = 4 * 1024 * 1024;
  // Proposed but uncommitted entry data bytes the leader accepts before refusing proposals.
  uint64_t max_uncommitted_entries_size = 64 * 1024 * 1024;
  // Followers forward proposals to the leader (MSG_PROP) instead of refusing them.
  bool forward_proposals = true;
  uint32_t bugs = 0;

  bool has_bug(Bug b) const { return (bugs & static_cast<uint32_t>(b)) != 0; }
  Status validate() const;
};

// The only source of randomness inside Raft, passed in so the core stays pure and the simulation
// decides every draw (an Rng sub-stream in the node; a fixed sequence in the interaction tests).
class RandomSource {
 public:
  virtual ~RandomSource() = default;
  // Uniform in [0, bound), bound > 0.
  virtual uint64_t uniform(uint64_t bound) = 0;
};

}  // namespace dst::raft
