#include "node/raft/invariants.h"

#include <algorithm>

#include "base/hash.h"
#include "node/raft/describe.h"

namespace dst::raft {

namespace {
constexpr size_t kViolationsKept = 100;
// Log Matching records per (index, term); beyond this many the oldest are forgotten, which only
// weakens the check for very old entries (they are covered by the committed record anyway).
constexpr size_t kEntriesRemembered = 2'000'000;
// Terms remembered for Election and Vote Safety; older terms are forgotten past this many (a run
// with a million elections is a livelock the liveness check reports anyway).
constexpr size_t kTermsRemembered = 1'000'000;
}  // namespace

Invariants::EntryId Invariants::id_of(const raftpb::Entry& e) {
  return EntryId{e.term(), hash_combine(hash_bytes(e.data(), 0x5eed), static_cast<uint64_t>(e.type()))};
}

void Invariants::violate(std::string what) {
  ++violation_count_;
  if (violations_.size() < kViolationsKept) violations_.push_back(std::move(what));
}

void Invariants::record_committed(const Raft& r, uint64_t index) {
  const RaftLog& log = r.log();
  if (index < log.first_index()) return;  // compacted: was checked before it was compacted
  EntryId id = id_of(log.entry(index));
  if (index <= committed_.size()) {
    if (!(committed_[index - 1] == id)) {
      violate("State Machine Safety: node " + std::to_string(r.id()) + " has " +
              describe_entry(log.entry(index)) + " committed at index " + std::to_string(index) +
              " but the entry committed there earlier has term " + std::to_string(committed_[index - 1].term));
    }
    return;
  }
  // Commit indexes grow one node at a time, so the record grows contiguously; a node that commits
  // past it fills the gap from its own log (those entries are committed too).
  while (committed_.size() + 1 < index) {
    uint64_t i = committed_.size() + 1;
    if (i < log.first_index()) {
      committed_.push_back(EntryId{});  // unknown (compacted before anyone showed it to us)
      continue;
    }
    committed_.push_back(id_of(log.entry(i)));
  }
  committed_.push_back(id);
}

void Invariants::check_leader_completeness(const Raft& r) {
  const RaftLog& log = r.log();
  for (uint64_t i = log.first_index(); i <= committed_.size(); ++i) {
    const EntryId& c = committed_[i - 1];
    if (c.term == 0) continue;
    if (i > log.last_index()) {
      violate("Leader Completeness: node " + std::to_string(r.id()) + " became leader of term " +
              std::to_string(r.term()) + " with log ending at " + std::to_string(log.last_index()) +
              " but index " + std::to_string(i) + " (term " + std::to_string(c.term) + ") is committed");
      return;
    }
    if (!(id_of(log.entry(i)) == c)) {
      violate("Leader Completeness: node " + std::to_string(r.id()) + " became leader of term " +
              std::to_string(r.term()) + " holding " + describe_entry(log.entry(i)) +
              " where the committed entry has term " + std::to_string(c.term));
      return;
    }
  }
}

void Invariants::observe(const Raft& r) {
  NodeView& view = nodes_[r.id()];
  if (r.role() == Role::kLeader) {
    if (leaders_.size() >= kTermsRemembered) leaders_.erase(leaders_.begin());
    auto [it, inserted] = leaders_.emplace(r.term(), r.id());
    if (!inserted && it->second != r.id() && second_leaders_reported_.emplace(r.term(), r.id()).second) {
      violate("Election Safety: nodes " + std::to_string(it->second) + " and " + std::to_string(r.id()) +
              " were both leader in term " + std::to_string(r.term()));
    }
    if (view.role != Role::kLeader || view.term != r.term()) check_leader_completeness(r);
  }
  uint64_t commit = r.log().committed();
  if (r.role() == Role::kLeader && view.role == Role::kLeader && view.term == r.term() &&
      commit > view.checked_commit && r.log().term(commit) != r.term()) {
    violate("Commit Rule: leader " + std::to_string(r.id()) + " of term " + std::to_string(r.term()) +
            " committed up to index " + std::to_string(commit) + ", an entry of term " +
            std::to_string(r.log().term(commit).value_or(0)) +
            ", by counting its replicas (Raft §5.4.2 / Figure 8: only an entry of the leader's own term "
            "commits that way)");
  }
  view.role = r.role();
  view.term = r.term();

  view.max_commit = std::max(view.max_commit, commit);
  if (view.checked_commit > commit) view.checked_commit = commit;
  for (uint64_t i = view.checked_commit + 1; i <= commit; ++i) record_committed(r, i);
  view.checked_commit = commit;

  if (r.committed_overwrites() > view.overwrites_reported) {
    view.overwrites_reported = r.committed_overwrites();
    violate("State Machine Safety: node " + std::to_string(r.id()) + " overwrote " +
            std::to_string(r.committed_overwrites()) +
            " committed entries in its log (or committed past its end)");
  }
}

void Invariants::observe_ready(const Raft& r, const Ready& rd) {
  uint64_t id = r.id();
  if (rd.hard_state && rd.hard_state->vote() != 0) record_vote(id, rd.hard_state->term(), rd.hard_state->vote());
  observe_sent(id, rd.messages);
  const uint64_t max_commit = nodes_[id].max_commit;
  for (const raftpb::Entry& e : rd.entries) {
    if (e.index() <= committed_.size() && e.index() <= max_commit) {
      const EntryId& c = committed_[e.index() - 1];
      if (c.term != 0 && !(c == id_of(e))) {
        violate("State Machine Safety: node " + std::to_string(id) + " appended " + describe_entry(e) +
                " over index " + std::to_string(e.index()) + ", which it had committed (committed term " +
                std::to_string(c.term) + ")");
      }
    }
    uint64_t prev_term = r.log().term(e.index() - 1).value_or(0);
    std::pair<uint64_t, uint64_t> value{prev_term, id_of(e).hash};
    auto key = std::make_pair(e.index(), e.term());
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      if (entries_.size() >= kEntriesRemembered) entries_.erase(entries_.begin());
      entries_.emplace(key, value);
    } else if (it->second != value) {
      violate("Log Matching: node " + std::to_string(id) + " has " + describe_entry(e) + " after term " +
              std::to_string(prev_term) + ", but another node has index " + std::to_string(e.index()) +
              " term " + std::to_string(e.term()) + " with different data or predecessor");
    }
  }
  for (const ReadState& rs : rd.read_states) {
    auto it = reads_.find(rs.context);
    if (it == reads_.end()) continue;
    if (rs.index < it->second) {
      violate("Read Safety: node " + std::to_string(id) + " answered read " + rs.context + " with index " +
              std::to_string(rs.index) + " but index " + std::to_string(it->second) +
              " was already committed when the read was requested");
    }
    reads_.erase(it);
  }
  for (const raftpb::Entry& e : rd.committed_entries) {
    EntryId eid = id_of(e);
    if (e.index() <= applied_.size()) {
      if (!(applied_[e.index() - 1] == eid) && applied_[e.index() - 1].term != 0) {
        violate("State Machine Safety: node " + std::to_string(id) + " applied " + describe_entry(e) +
                " but another node applied term " + std::to_string(applied_[e.index() - 1].term) +
                " at index " + std::to_string(e.index()));
      }
      continue;
    }
    applied_.resize(e.index() - 1);  // gaps (snapshots) stay unknown
    applied_.push_back(eid);
  }
}

void Invariants::read_requested(const std::string& context) {
  // Bounded: answered reads are erased; unanswered ones (dropped requests) age out.
  if (reads_.size() >= kEntriesRemembered) reads_.erase(reads_.begin());
  reads_[context] = committed_.size();
}

void Invariants::record_vote(uint64_t node, uint64_t term, uint64_t candidate) {
  if (votes_.size() >= kTermsRemembered) votes_.erase(votes_.begin());
  auto [it, inserted] = votes_.emplace(std::make_pair(node, term), candidate);
  // Reported once per node and term: the hard state and the vote message show the same conflict.
  if (!inserted && it->second != candidate && double_votes_reported_.insert({node, term}).second) {
    violate("Vote Safety: node " + std::to_string(node) + " voted for " + std::to_string(it->second) + " and for " +
            std::to_string(candidate) + " in term " + std::to_string(term));
  }
}

void Invariants::observe_sent(uint64_t id, const std::vector<raftpb::Message>& messages) {
  for (const raftpb::Message& m : messages) {
    if (!announces_vote(m)) continue;
    const uint64_t candidate = m.type() == raftpb::MSG_VOTE_RESP ? m.to() : id;
    // Every vote at the moment it is sent: a node's hard state shows only its newest vote, so a
    // second vote in the same term could replace the first before a Ready showed it.
    record_vote(id, m.term(), candidate);
    auto [it, inserted] = announced_votes_.try_emplace(id, m.term(), candidate);
    if (!inserted && m.term() >= it->second.first) it->second = {m.term(), candidate};
  }
}

void Invariants::new_cluster() {
  committed_.clear();
  applied_.clear();
  leaders_.clear();
  second_leaders_reported_.clear();
  votes_.clear();
  double_votes_reported_.clear();
  announced_votes_.clear();
  entries_.clear();
  nodes_.clear();
  reads_.clear();
}

void Invariants::observe_restart(const Raft& r) {
  NodeView& view = nodes_[r.id()];
  view.role = Role::kFollower;
  view.checked_commit = 0;
  auto it = announced_votes_.find(r.id());
  if (it == announced_votes_.end()) return;
  const auto [term, candidate] = it->second;
  if (r.term() > term || (r.term() == term && r.vote() == candidate)) return;
  violate("Vote Safety: node " + std::to_string(r.id()) + " voted for " + std::to_string(candidate) + " in term " +
          std::to_string(term) + " but came back from a crash at term " + std::to_string(r.term()) + " with vote " +
          std::to_string(r.vote()) + ": the vote was not durable, so it may vote again in term " +
          std::to_string(term));
}

}  // namespace dst::raft
