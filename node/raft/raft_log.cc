#include "node/raft/raft_log.h"

#include <algorithm>

#include "base/assert.h"
#include "base/probes.h"

namespace dst::raft {

RaftLog::RaftLog(raftpb::SnapshotMetadata snapshot, std::vector<raftpb::Entry> entries,
                 uint64_t committed, uint64_t applied, bool tolerate_broken_safety)
    : snapshot_(std::move(snapshot)), entries_(std::move(entries)), tolerate_(tolerate_broken_safety) {
  for (size_t k = 0; k < entries_.size(); ++k) {
    DST_ASSERT_EQ(entries_[k].index(), snapshot_.index() + 1 + k);
    uint64_t prev_term = k == 0 ? snapshot_.term() : entries_[k - 1].term();
    if (entries_[k].term() < prev_term) {
      // Terms in a log never decrease; a log that does was written by a broken (bugged) Raft.
      DST_ASSERT_MSG(tolerate_, "log terms decrease at index " + std::to_string(entries_[k].index()));
      ++committed_overwrites_;
    }
  }
  stabled_ = last_index();
  committed_ = std::max(committed, snapshot_.index());
  if (committed_ > last_index()) {
    // The durable commit index names entries that were not durable: only with a safety bug.
    DST_ASSERT_MSG(tolerate_, "durable commit index beyond the durable log");
    ++committed_overwrites_;
    committed_ = last_index();
  }
  applied_ = std::min(std::max(applied, snapshot_.index()), committed_);
  DST_ASSERT_LE(committed_, last_index());
  DST_ASSERT_LE(applied_, committed_);
}

std::optional<uint64_t> RaftLog::term(uint64_t i) const {
  if (i == snapshot_.index()) return snapshot_.term();
  if (i < snapshot_.index() || i > last_index()) return std::nullopt;
  return entries_[i - first_index()].term();
}

const raftpb::Entry& RaftLog::entry(uint64_t i) const {
  DST_ASSERT_GE(i, first_index());
  DST_ASSERT_LE(i, last_index());
  return entries_[i - first_index()];
}

std::vector<raftpb::Entry> RaftLog::slice(uint64_t lo, uint64_t hi, uint64_t max_bytes) const {
  DST_ASSERT_GE(lo, first_index());
  DST_ASSERT_LE(lo, hi);
  DST_ASSERT_LE(hi, last_index() + 1);
  std::vector<raftpb::Entry> out;
  uint64_t bytes = 0;
  for (uint64_t i = lo; i < hi; ++i) {
    const raftpb::Entry& e = entries_[i - first_index()];
    bytes += e.data().size();
    if (!out.empty() && bytes > max_bytes) break;
    out.push_back(e);
  }
  return out;
}

uint64_t RaftLog::find_conflict(const google::protobuf::RepeatedPtrField<raftpb::Entry>& entries) const {
  for (const raftpb::Entry& e : entries) {
    if (!match_term(e.index(), e.term())) return e.index();
  }
  return 0;
}

std::optional<uint64_t> RaftLog::maybe_append(
    uint64_t index, uint64_t log_term, uint64_t commit,
    const google::protobuf::RepeatedPtrField<raftpb::Entry>& entries) {
  if (!match_term(index, log_term)) return std::nullopt;
  uint64_t last_new = index + entries.size();
  for (int k = 0; k < entries.size(); ++k) DST_ASSERT_EQ(entries[k].index(), index + 1 + k);
  uint64_t conflict = find_conflict(entries);
  if (conflict != 0) {
    if (conflict <= last_index()) DST_PROBE(kRaftConflictTruncated);  // not just new entries
    if (conflict <= committed_) {
      // A committed entry is never overwritten: that would be the end of safety, not a conflict.
      DST_ASSERT_MSG(tolerate_, "append conflicts with a committed entry");
      DST_ASSERT_GT(conflict, snapshot_.index());
      ++committed_overwrites_;
      committed_ = conflict - 1;
      applied_ = std::min(applied_, committed_);
    }
    truncate_and_append(entries, static_cast<int>(conflict - (index + 1)));
  }
  commit_to(std::min(commit, last_new));
  return last_new;
}

void RaftLog::truncate_and_append(const google::protobuf::RepeatedPtrField<raftpb::Entry>& entries,
                                  int from) {
  uint64_t first_new = entries[from].index();
  DST_ASSERT_GE(first_new, first_index());
  DST_ASSERT_LE(first_new, last_index() + 1);
  entries_.resize(first_new - first_index());
  stabled_ = std::min(stabled_, first_new - 1);
  for (int k = from; k < entries.size(); ++k) entries_.push_back(entries[k]);
}

uint64_t RaftLog::append(std::vector<raftpb::Entry> entries) {
  for (raftpb::Entry& e : entries) {
    DST_ASSERT_EQ(e.index(), last_index() + 1);
    DST_ASSERT_GE(e.term(), last_term());
    entries_.push_back(std::move(e));
  }
  return last_index();
}

uint64_t RaftLog::find_conflict_by_term(uint64_t index, uint64_t term) const {
  index = std::min(index, last_index());
  // Bounded by the log length: each step moves one entry towards the snapshot.
  while (index > snapshot_.index()) {
    if (*this->term(index) <= term) return index;
    --index;
  }
  return index;
}

void RaftLog::commit_to(uint64_t index) {
  if (index <= committed_) return;  // commit never moves back
  if (index > last_index()) {
    DST_ASSERT_MSG(tolerate_, "commit index beyond the end of the log");
    ++committed_overwrites_;
    index = last_index();
    if (index <= committed_) return;
  }
  committed_ = index;
}

void RaftLog::applied_to(uint64_t index) {
  if (index == 0) return;
  DST_ASSERT_LE(index, committed_);
  DST_ASSERT_GE(index, applied_);
  applied_ = index;
}

void RaftLog::stable_to(uint64_t index, uint64_t term) {
  if (index <= snapshot_.index() || index > last_index()) return;
  if (!match_term(index, term)) return;  // the tail was replaced after it was handed out
  stabled_ = std::max(stabled_, index);
}

std::vector<raftpb::Entry> RaftLog::unstable_entries() const {
  if (stabled_ >= last_index()) return {};
  uint64_t lo = std::max(stabled_ + 1, first_index());
  return std::vector<raftpb::Entry>(entries_.begin() + (lo - first_index()), entries_.end());
}

std::vector<raftpb::Entry> RaftLog::next_committed(uint64_t max_bytes) const {
  if (committed_ <= applied_) return {};
  uint64_t lo = std::max(applied_ + 1, first_index());
  return slice(lo, committed_ + 1, max_bytes);
}

void RaftLog::restore(const raftpb::SnapshotMetadata& snapshot) {
  DST_ASSERT_GT(snapshot.index(), committed_);
  snapshot_ = snapshot;
  entries_.clear();
  committed_ = snapshot.index();
  // The snapshot itself still has to be persisted and applied; Raft tracks that separately.
  stabled_ = snapshot.index();
  applied_ = snapshot.index();
}

void RaftLog::compact(uint64_t index) {
  if (index <= snapshot_.index()) return;
  DST_ASSERT_LE(index, applied_);
  DST_ASSERT_LE(index, stabled_);
  uint64_t t = *term(index);
  entries_.erase(entries_.begin(), entries_.begin() + (index - snapshot_.index()));
  snapshot_.set_index(index);
  snapshot_.set_term(t);
}


}  // namespace dst::raft
