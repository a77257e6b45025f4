// Configuration of one Raft node, with the run's switched-on bugs (base/bugs.h: the Raft layer's
// each remove one safety rule, so the harness shows it can catch them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/bugs.h"
#include "base/status.h"

namespace dst::raft {

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
  // The run's bugs, passed down unchanged (base/bugs.h); only the Raft layer's matter here.
  Bugs bugs;

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
