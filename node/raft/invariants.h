// Raft safety invariants over a whole cluster, checked as the cluster runs (in the manner of
// LogCabin's RaftConsensusInvariants). The simulation calls observe() after every step of every
// node and observe_ready() after every Ready a node handled; the golden interaction tests do the
// same after every command. Violations are collected, not asserted, so that a run with a safety
// bug switched on reports what broke instead of stopping at the first symptom.
//
// Checked (Raft paper Figure 3):
//   Election Safety      at most one leader per term, ever.
//   Vote Safety          a node never votes for two candidates in one term (even across crashes),
//                        and a vote it announced (a granted MsgVoteResp, or its own MsgVote as a
//                        candidate) survives its crashes: it never comes back at a lower term, or
//                        at that term without that vote (Figure 2: persisted before responding).
//                        A forgotten vote is what lets it vote twice; that second vote needs a
//                        candidate of the same term to ask again, which is rare, so the forgetting
//                        itself is reported.
//   Log Matching         entries with the same index and term have the same data and predecessor.
//   Leader Completeness  a node that becomes leader holds every entry committed so far.
//   State Machine Safety nodes apply the same entry at each index; a node never replaces an entry
//                        at an index it once knew committed, also after crashes that lose
//                        unsynced writes. (Any node may append a conflicting *uncommitted* entry
//                        at a committed index, e.g. a stale leader in a minority: that is legal.)
//   Commit Rule          a leader's commit index only ever lands on an entry of its own term
//                        (§5.4.2): replicas of an older term's entry never commit it by counting.
//                        A protocol rule rather than a Figure 3 property: it is what keeps State
//                        Machine Safety in Figure 8's schedule, whose crash timing is too narrow for
//                        random faults to hit often, so the rule is checked as it is applied.
//   Read Safety          a ReadIndex answer is at least the highest index that was committed
//                        anywhere when the read was requested (§8: otherwise the read is stale).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "node/raft/raft.h"
#include "node/raft/ready.h"

namespace dst::raft {

class Invariants {
 public:
  // After any input to `r` (step, tick, propose, advance, restart).
  void observe(const Raft& r);
  // After `r` handled `rd` (persisted, sent, applied) and before or after advance().
  void observe_ready(const Raft& r, const Ready& rd);
  // Node `id` sent these messages (observe_ready includes this). A host that sends and then dies
  // before its Ready is done calls this first, so the votes it announced are known.
  void observe_sent(uint64_t id, const std::vector<raftpb::Message>& messages);
  // A ReadIndex request with this (unique) context was made; its answer must not be older.
  void read_requested(const std::string& context);
  // The node crashed and `r` is its state recovered from storage; its volatile view (commit index,
  // role) starts over.
  void observe_restart(const Raft& r);

  // Every member's storage was lost and a new cluster was started from a snapshot (etcd's
  // disaster recovery): the old cluster's terms, votes, logs and commits do not bind the new one,
  // whose log starts again at index 1. Violations found so far are kept. Call while no member runs.
  void new_cluster();

  // A node recovered from storage it had to refuse (its WAL damaged where a start must detect
  // it): what it recovered may lack what it promised durable. Reported by the world.
  void storage_violation(const std::string& what) { violate("Durability: " + what); }

  const std::vector<std::string>& violations() const { return violations_; }
  bool ok() const { return violations_.empty(); }
  // The highest index known committed anywhere in the cluster.
  uint64_t max_committed() const { return committed_.size(); }
  // Bounded: the first kViolationsKept violations are kept with full text, the rest only counted.
  uint64_t violation_count() const { return violation_count_; }

 private:
  struct EntryId {
    uint64_t term = 0;
    uint64_t hash = 0;
    bool operator==(const EntryId&) const = default;
  };
  struct NodeView {
    Role role = Role::kFollower;
    uint64_t term = 0;
    uint64_t checked_commit = 0;  // entries up to here were compared with the committed record
    uint64_t max_commit = 0;      // the highest commit index it ever had, across restarts
    uint64_t overwrites_reported = 0;
  };

  void violate(std::string what);
  void record_committed(const Raft& r, uint64_t index);
  // Vote Safety: `node` voted for `candidate` in `term`; a different candidate in the same term is
  // a violation.
  void record_vote(uint64_t node, uint64_t term, uint64_t candidate);
  void check_leader_completeness(const Raft& r);
  static EntryId id_of(const raftpb::Entry& e);

  std::vector<EntryId> committed_;       // committed_[i - 1]: the entry committed at index i
  std::vector<EntryId> applied_;         // applied_[i - 1]: what was applied at index i
  std::map<uint64_t, uint64_t> leaders_;  // term -> leader
  std::set<std::pair<uint64_t, uint64_t>> second_leaders_reported_;  // (term, node), reported once
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> votes_;  // (node, term) -> vote
  std::set<std::pair<uint64_t, uint64_t>> double_votes_reported_;  // (node, term), reported once
  // node -> (term, candidate) of the newest vote it sent out (granted, or its own as candidate).
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> announced_votes_;
  // (index, term) -> (term of the previous entry, data hash): Log Matching by induction.
  std::map<std::pair<uint64_t, uint64_t>, std::pair<uint64_t, uint64_t>> entries_;
  std::map<uint64_t, NodeView> nodes_;
  std::map<std::string, uint64_t> reads_;  // context -> highest committed index at request time
  std::vector<std::string> violations_;
  uint64_t violation_count_ = 0;
};

}  // namespace dst::raft
