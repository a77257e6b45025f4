#include "node/raft/progress.h"

#include <algorithm>

#include "base/assert.h"

namespace dst::raft {

Inflights::Inflights(size_t capacity) : buffer_(capacity) { DST_ASSERT_GT(capacity, 0u); }

void Inflights::add(uint64_t last_index) {
  DST_ASSERT_MSG(!full(), "inflight window overflow");
  buffer_[(start_ + count_) % buffer_.size()] = last_index;
  ++count_;
}

void Inflights::free_le(uint64_t index) {
  while (count_ > 0 && buffer_[start_] <= index) {
    start_ = (start_ + 1) % buffer_.size();
    --count_;
  }
  if (count_ == 0) start_ = 0;
}

void Inflights::free_first_one() {
  if (count_ == 0) return;
  free_le(buffer_[start_]);
}

const char* progress_state_name(ProgressState s) {
  switch (s) {
    case ProgressState::kProbe: return "StateProbe";
    case ProgressState::kReplicate: return "StateReplicate";
    case ProgressState::kSnapshot: return "StateSnapshot";
  }
  DST_UNREACHABLE("progress state");
}

void Progress::become_probe() {
  // Coming back from a snapshot, the follower has at least the snapshot.
  if (state == ProgressState::kSnapshot) {
    next = std::max(match + 1, pending_snapshot + 1);
  } else {
    next = match + 1;
  }
  state = ProgressState::kProbe;
  probe_sent = false;
  pending_snapshot = 0;
  inflights.reset();
}

void Progress::become_replicate() {
  state = ProgressState::kReplicate;
  next = match + 1;
  probe_sent = false;
  pending_snapshot = 0;
  inflights.reset();
}

void Progress::become_snapshot(uint64_t snapshot_index) {
  state = ProgressState::kSnapshot;
  probe_sent = false;
  pending_snapshot = snapshot_index;
  inflights.reset();
}

bool Progress::maybe_update(uint64_t n) {
  bool updated = false;
  if (match < n) {
    match = n;
    updated = true;
    probe_sent = false;
  }
  next = std::max(next, n + 1);
  return updated;
}

bool Progress::maybe_decr_to(uint64_t rejected, uint64_t match_hint) {
  if (state == ProgressState::kReplicate) {
    // Stale if it rejects something already matched; otherwise restart from just after match.
    if (rejected <= match) return false;
    next = match + 1;
    return true;
  }
  // Probe: only the answer to the probe we sent (at next - 1) counts. A rejection at or below
  // `match` cannot move `next` (it never drops below match + 1): answering it with another append
  // would repeat the same exchange at network speed. A follower that lost what it had acknowledged
  // says that (a safety bug is on), or a duplicated old answer; the next heartbeat answer probes
  // again.
  if (next == 0 || next - 1 != rejected || rejected <= match) return false;
  next = std::max(std::min(rejected, match_hint + 1), match + 1);
  probe_sent = false;
  return true;
}

bool Progress::is_paused() const {
  switch (state) {
    case ProgressState::kProbe: return probe_sent;
    case ProgressState::kReplicate: return inflights.full();
    case ProgressState::kSnapshot: return true;
  }
  DST_UNREACHABLE("progress state");
}

std::string Progress::describe() const {
  std::string s = std::string(progress_state_name(state)) + " match=" + std::to_string(match) +
                  " next=" + std::to_string(next);
  if (is_learner) s += " learner";
  if (state == ProgressState::kProbe && probe_sent) s += " paused";
  if (state == ProgressState::kSnapshot) s += " pending_snap=" + std::to_string(pending_snapshot);
  if (inflights.count() > 0) s += " inflight=" + std::to_string(inflights.count());
  if (inflights.full()) s += "[full]";
  return s;
}

}  // namespace dst::raft
