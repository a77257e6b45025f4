// What a node applies committed entries to: the KV store (kv_state_machine.h) in an etcd-style
// node, or the HashChain below for Raft-level simulation, which folds every applied entry into a
// running hash so that members that applied the same log agree on (applied index, hash).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "proto/raft.pb.h"

namespace dst::node {

class StateMachine {
 public:
  virtual ~StateMachine() = default;
  // Every committed entry in log order (conf changes too: they only advance the applied index).
  // Entries at or below applied_index() are replays after a restart and are skipped. An error is
  // a failed disk: the node must crash.
  virtual Status apply(const raftpb::Entry& entry) = 0;
  virtual uint64_t applied_index() const = 0;
  // An image of the applied state, for a Raft snapshot.
  virtual Result<std::string> snapshot() = 0;
  // Replaces the state with an image taken at `index` (a snapshot from the leader).
  virtual Status restore(const std::string& image, uint64_t index) = 0;
  // At start, with the newest snapshot: restore it unless the durable state is already newer.
  virtual Status recover(const std::string& image, uint64_t index) {
    return index > applied_index() ? restore(image, index) : Status::ok();
  }
  // A digest of the state, equal on members that applied the same entries.
  virtual Result<uint64_t> state_hash() = 0;
};

class HashChain : public StateMachine {
 public:
  Status apply(const raftpb::Entry& entry) override;
  uint64_t applied_index() const override { return applied_index_; }
  Result<std::string> snapshot() override;
  Status restore(const std::string& image, uint64_t index) override;
  // The hash chain keeps nothing on disk: at start it always restores the snapshot.
  Status recover(const std::string& image, uint64_t index) override { return restore(image, index); }
  Result<uint64_t> state_hash() override { return hash_; }

  uint64_t entries() const { return entries_; }

 private:
  uint64_t applied_index_ = 0;
  uint64_t entries_ = 0;  // non-empty entries applied
  uint64_t hash_ = 0;
};

}  // namespace dst::node
