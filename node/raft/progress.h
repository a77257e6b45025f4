// The leader's view of one follower's log (etcd's Progress), and the bounded window of append
// messages in flight to it.
//
// Probe: we do not know where the follower's log matches ours; send one append at a time and wait
//        for the answer (paused until then or until the next heartbeat).
// Replicate: the follower is caught up to `match`; stream appends optimistically, at most
//        max_inflight of them unacknowledged.
// Snapshot: the follower needs entries we compacted; a snapshot is on its way, nothing else is sent
//        until it is acknowledged or reported failed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dst::raft {

// A ring of the last index carried by each unacknowledged append, oldest first.
class Inflights {
 public:
  explicit Inflights(size_t capacity);

  bool full() const { return count_ == buffer_.size(); }
  size_t count() const { return count_; }
  void add(uint64_t last_index);
  // An acknowledgement up to `index` frees every message whose last index is <= index.
  void free_le(uint64_t index);
  void reset() { start_ = count_ = 0; }
  // Forgets the oldest message in flight (presumed lost), opening one slot.
  void free_first_one();

 private:
  std::vector<uint64_t> buffer_;
  size_t start_ = 0;
  size_t count_ = 0;
};

enum class ProgressState { kProbe, kReplicate, kSnapshot };
const char* progress_state_name(ProgressState s);

struct Progress {
  explicit Progress(size_t max_inflight) : inflights(max_inflight) {}

  uint64_t match = 0;
  uint64_t next = 1;
  ProgressState state = ProgressState::kProbe;
  // Probe state: an append was sent and its answer has not come yet.
  bool probe_sent = false;
  // Snapshot state: the index of the snapshot in flight.
  uint64_t pending_snapshot = 0;
  // Heard from since the last check-quorum round.
  bool recent_active = false;
  bool is_learner = false;
  Inflights inflights;

  void become_probe();
  void become_replicate();
  void become_snapshot(uint64_t snapshot_index);
  // An acknowledgement of `n`: returns whether it told us something new.
  bool maybe_update(uint64_t n);
  // A rejection of an append at `rejected`; `match_hint` is the index the leader now guesses the
  // logs agree at. Returns false when the rejection is stale (an answer to an older message).
  bool maybe_decr_to(uint64_t rejected, uint64_t match_hint);
  // Nothing more may be sent right now.
  bool is_paused() const;

  std::string describe() const;
};

}  // namespace dst::raft
