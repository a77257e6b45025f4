// Named places in the node's code where a scenario or test can crash the node or delay it, the way
// etcd's robustness tests use gofail. The table lives outside the node process (it survives the
// crashes it causes); the node calls pass() as it passes each point, and an action that fires is
// carried out by the executor the world gave the table: the node never crashes or stalls itself
// for a fault.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "base/status.h"
#include "sim/time.h"

namespace dst::node {

enum class FaultPoint : uint8_t {
  kBeforeWalSave,
  kAfterWalSave,
  kBeforeSend,
  kBeforeApply,
  kAfterApply,
  kBeforeSnapshotSave,
  kAfterSnapshotSave,
  // Inside the apply of a Compaction request (mvcc::KvStore::compact, and the finishing of an
  // interrupted compaction when the store opens): after scheduledCompactRev is written and the
  // index compacted; before and after each batch of backend deletions (the last batch is followed
  // by finishedCompactRev). The writes are in the open backend batch, so what a crash there leaves
  // durable is whatever an earlier commit (the batch limit, a defragment) made so.
  kAfterCompactionScheduled,
  kBeforeCompactionBatch,
  kAfterCompactionBatch,
  // Inside backend::Backend::defragment (the client's Defragment call, on that member only):
  // after the open batch was committed and before VACUUM; between VACUUM (the rebuilt database is
  // in the WAL) and the checkpoint that copies it into the database file and truncates the WAL;
  // after that checkpoint.
  kBeforeDefrag,
  kDuringDefrag,
  kAfterDefrag,
  // In the Raft loop, right after a Ready's messages went out when they announced a vote (a
  // granted vote, or a candidate's requests for votes): what they promise must already be durable,
  // and a power loss here is the first moment it could be lost. Passed only around elections.
  kAfterVote,
  kCount,
};
std::string_view fault_point_name(FaultPoint p);
// "before-wal-save" etc.; the error lists the valid names.
Result<FaultPoint> parse_fault_point(std::string_view name);

struct FaultAction {
  enum class Kind : uint8_t { kCrash, kPowerLoss, kDelay };
  Kind kind = Kind::kCrash;
  sim::DurationNs delay = 0;  // kDelay only
  // Fires on the `skip`+1-th pass, then `times` passes in total (0: every pass from then on).
  uint64_t skip = 0;
  uint64_t times = 1;
};

class FaultPoints {
 public:
  // Carries out a fired action in the fiber that passed the point: a crash or a power loss ends
  // that process and does not return; a delay blocks it for a while.
  using Executor = std::function<void(FaultPoint, const FaultAction&)>;
  void set_executor(Executor executor) { executor_ = std::move(executor); }

  // Asserts that the executor is set: an armed point must have someone to carry it out.
  void arm(FaultPoint p, FaultAction action);
  void disarm(FaultPoint p);
  void disarm_all();
  // Called by the node at the point: counts the pass and hands a fired action to the executor.
  void pass(FaultPoint p);
  uint64_t passes(FaultPoint p) const { return slots_[index(p)].passes; }
  uint64_t fired(FaultPoint p) const { return slots_[index(p)].fired; }

 private:
  struct Slot {
    std::optional<FaultAction> action;
    uint64_t passes = 0;         // times the node passed this point (armed or not)
    uint64_t passes_armed = 0;   // passes since arming
    uint64_t fired = 0;
  };
  static size_t index(FaultPoint p) { return static_cast<size_t>(p); }
  // Counts the pass and returns the action that fires now, if any.
  std::optional<FaultAction> hit(FaultPoint p);
  std::array<Slot, static_cast<size_t>(FaultPoint::kCount)> slots_;
  Executor executor_;
};

}  // namespace dst::node
