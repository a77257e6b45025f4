// What a node applies committed entries to. The KV store (node/mvcc) implements it in the next
// layer; for Raft-level simulation the HashChain below is enough: it folds every applied entry into
// a running hash, so two members that applied the same log agree on (applied count, hash) and any
// divergence shows up as a hash mismatch at the same index.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "proto/raft.pb.h"

namespace dst::node {

class StateMachine {
 public:
  virtual ~StateMachine() = default;
  // A committed ENTRY_NORMAL entry, in log order, exactly once per incarnation (a restarted node
  // restores the newest snapshot and applies the entries after it again).
  virtual void apply(const raftpb::Entry& entry) = 0;
  // An image of everything applied so far.
  virtual std::string snapshot() const = 0;
  // Replaces the state with a snapshot image; kCorruption if it cannot be parsed.
  virtual Status restore(const std::string& image) = 0;
};

class HashChain : public StateMachine {
 public:
  void apply(const raftpb::Entry& entry) override;
  std::string snapshot() const override;
  Status restore(const std::string& image) override;

  uint64_t applied_index() const { return applied_index_; }
  uint64_t entries() const { return entries_; }
  uint64_t hash() const { return hash_; }

 private:
  uint64_t applied_index_ = 0;
  uint64_t entries_ = 0;  // non-empty entries applied
  uint64_t hash_ = 0;
};

}  // namespace dst::node
