// Raft as a pure state machine (after the Raft paper, Ongaro & Ousterhout 2014, and etcd's raft).
//
// Inputs: step(message), tick(), propose(), read_index(), transfer_leader(), propose_conf_change().
// Output: ready() hands out a Ready (see ready.h for the order in which it must be handled), then
// advance(ready) says it was handled. Nothing in here reads a clock, touches a disk or the network,
// or draws randomness except through the RandomSource it is given; the same inputs always give the
// same outputs, which is what makes the golden interaction tests and the simulation reproducible.
//
// One deliberate difference from etcd: the leader counts itself as a replica of an entry only after
// advance() reports the entry durable, so no entry is ever committed on fewer durable copies than a
// quorum, even for a moment.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "node/raft/config.h"
#include "node/raft/progress.h"
#include "node/raft/raft_log.h"
#include "node/raft/ready.h"
#include "proto/raft.pb.h"

namespace dst::raft {

// What a node starts from: its durable state as read back from disk.
struct InitialState {
  raftpb::HardState hard_state;
  // The newest snapshot (metadata.conf_state is the membership at that point); a brand-new cluster
  // starts from a bootstrap snapshot naming the initial voters.
  raftpb::Snapshot snapshot;
  // Durable entries after the snapshot.
  std::vector<raftpb::Entry> entries;
  // Index the state machine already reflects (at least the snapshot's index).
  uint64_t applied = 0;
};

class Raft {
 public:
  Raft(Config config, RandomSource& random, InitialState initial);

  // --- inputs ---------------------------------------------------------------------------------
  void tick();
  // A message from a peer (or a forwarded proposal / read). Messages for older terms are answered
  // or dropped as the paper says; the Status is an error only for a proposal that was dropped.
  Status step(const raftpb::Message& m);
  // Starts an election now (as if the election timeout fired), with pre-vote if configured.
  Status campaign();
  Status propose(std::string data);
  Status propose_conf_change(const raftpb::ConfChange& cc);
  // Requests a linearizable read point; the answer comes as a ReadState with this context.
  Status read_index(std::string context);
  Status transfer_leader(uint64_t to);
  // Called by the application when it applies an ENTRY_CONF_CHANGE entry; returns the new membership.
  raftpb::ConfState apply_conf_change(const raftpb::ConfChange& cc);
  // The application saved `snapshot` (built by make_snapshot); drop the log up to it.
  void compact(raftpb::Snapshot snapshot);
  // A snapshot of the applied state, to be filled with the application's data and saved.
  raftpb::Snapshot make_snapshot(std::string data) const;
  // The transport could not deliver to `id` / a snapshot send finished.
  void report_unreachable(uint64_t id);
  void report_snapshot(uint64_t id, bool ok);

  // --- outputs --------------------------------------------------------------------------------
  bool has_ready() const;
  Ready ready();
  void advance(const Ready& ready);

  // --- inspection (status output, invariants checker) -----------------------------------------
  uint64_t id() const { return config_.id; }
  uint64_t term() const { return term_; }
  uint64_t vote() const { return vote_; }
  uint64_t lead() const { return lead_; }
  Role role() const { return role_; }
  const RaftLog& log() const { return log_; }
  const Config& config() const { return config_; }
  raftpb::ConfState conf_state() const;
  bool is_voter(uint64_t id) const { return voters_.count(id) != 0; }
  const std::map<uint64_t, Progress>& progress() const { return progress_; }
  uint64_t lead_transferee() const { return lead_transferee_; }
  // Committed entries overwritten or commit indexes pointing past the log: only possible with a
  // safety bug switched on (otherwise they are assertions).
  uint64_t committed_overwrites() const { return log_.committed_overwrites(); }
  std::string status() const;

 private:
  enum class CampaignKind { kPreElection, kElection, kTransfer };
  struct ReadRequest {
    std::string context;
    uint64_t index = 0;
    uint64_t from = 0;  // who asked; our own id for local requests
    std::set<uint64_t> acks;
  };

  void become_follower(uint64_t term, uint64_t lead);
  void become_pre_candidate();
  void become_candidate();
  void become_leader();
  void reset(uint64_t term);
  void reset_randomized_election_timeout();
  bool promotable() const { return voters_.count(config_.id) != 0; }
  bool has_unapplied_conf_change() const;
  void campaign(CampaignKind kind);
  // Records a vote and returns (granted, rejected) counts among voters.
  std::pair<size_t, size_t> poll(uint64_t from, bool granted);
  size_t quorum() const { return voters_.size() / 2 + 1; }

  void send(raftpb::Message m);
  bool send_append(uint64_t to, bool send_if_empty = true);
  void bcast_append();
  void bcast_heartbeat(const std::string& context);
  void send_heartbeat(uint64_t to, const std::string& context);
  void send_timeout_now(uint64_t to);
  bool maybe_commit();
  bool committed_entry_in_current_term() const;
  bool append_entries(std::vector<raftpb::Entry> entries);
  void abort_leader_transfer() { lead_transferee_ = 0; }
  Status drop_proposal(std::string why) const;

  void step_leader(const raftpb::Message& m, Status& result);
  void step_candidate(const raftpb::Message& m, Status& result);
  void step_follower(const raftpb::Message& m, Status& result);
  void handle_vote_request(const raftpb::Message& m);
  void handle_append(const raftpb::Message& m);
  void handle_heartbeat(const raftpb::Message& m);
  void handle_snapshot(const raftpb::Message& m);
  void handle_append_response(const raftpb::Message& m, Progress& pr);
  void handle_heartbeat_response(const raftpb::Message& m, Progress& pr);
  bool restore(const raftpb::Snapshot& snapshot);
  void apply_membership(const raftpb::ConfState& cs);
  void add_progress(uint64_t id, bool learner);

  // ReadIndex (§8): requests wait for a heartbeat round confirming leadership.
  Status leader_read_index(const raftpb::Message& m);
  void read_index_ack(uint64_t from, const std::string& context);
  void answer_read(uint64_t from, uint64_t index, const std::string& context);
  void release_pending_reads();

  Config config_;
  RandomSource& random_;
  RaftLog log_;

  uint64_t term_ = 0;
  uint64_t vote_ = 0;
  uint64_t lead_ = 0;
  Role role_ = Role::kFollower;
  int election_elapsed_ = 0;
  int heartbeat_elapsed_ = 0;
  int randomized_election_timeout_ = 0;
  uint64_t lead_transferee_ = 0;
  int transfer_elapsed_ = 0;  // ticks since the current leader transfer started
  uint64_t pending_conf_index_ = 0;
  uint64_t uncommitted_bytes_ = 0;

  std::set<uint64_t> voters_;
  std::set<uint64_t> learners_;
  std::map<uint64_t, Progress> progress_;  // ordered: broadcasts go out in id order
  std::map<uint64_t, bool> votes_;
  std::map<uint64_t, int> snapshot_wait_ticks_;

  std::deque<ReadRequest> read_requests_;
  std::vector<raftpb::Message> reads_before_first_commit_;

  // The newest snapshot we have (sent to followers whose next entry was compacted away).
  raftpb::Snapshot snapshot_;
  // A snapshot received from the leader that the application has not persisted and applied yet.
  std::optional<raftpb::Snapshot> unstable_snapshot_;

  std::vector<raftpb::Message> msgs_;
  std::vector<ReadState> read_states_;
  raftpb::HardState prev_hard_state_;
  SoftState prev_soft_state_;
  bool awaiting_advance_ = false;
};

}  // namespace dst::raft
