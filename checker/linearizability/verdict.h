// What the linearizability search concludes: the verdict, the work it took per partition, and for
// a violation a small counterexample (the longest linearizable prefix found, and the operations
// that had to come next, none of which can).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace dst::checker {

// Return time of an operation with unknown outcome: it may take effect at any time after its
// call, or never.
inline constexpr int64_t kNeverReturns = std::numeric_limits<int64_t>::max();

enum class Verdict : uint8_t {
  kLinearizable,
  kViolation,
  kUnknown,  // the budget (steps or memory) ran out first: no verdict, never a guess
};
const char* verdict_name(Verdict v);

struct PartitionStats {
  std::string name;  // "key \"3\"", "register", "all keys"
  size_t ops = 0;
  uint64_t steps = 0;                  // model steps spent on this partition
  Verdict verdict = Verdict::kUnknown;  // kUnknown: not finished when the search stopped
};

struct CounterexampleOp {
  uint64_t id = 0;           // the caller's operation id (Operation::id)
  std::string what;          // the model's description, e.g. read -> 3
  int64_t call = 0;
  int64_t ret = kNeverReturns;
  std::string note;          // why it cannot come next, e.g. "not legal from this state"
};

struct Counterexample {
  std::string partition;
  size_t prefix_length = 0;                   // operations in the longest linearizable prefix found
  std::vector<CounterexampleOp> prefix_tail;  // its last few, in linearization order
  std::string state_after_prefix;
  // Operations that could come next after that prefix (the first-returning one must); each
  // either is not legal from that state, or leads only to dead ends.
  std::vector<CounterexampleOp> unplaced;
};

// A violation reduced by minimize.h to the operations that cannot be ordered: a weakening of the
// history (some operations dropped, some turned into unknown outcome, a time cut) that is still not
// linearizable, and that is only ever NOT linearizable if the original is not (see minimize.h).
struct MinimalCounterexample {
  std::string partition;
  // The definite operations that remain, by call time: the operations that cannot be ordered.
  std::vector<CounterexampleOp> core;
  // The operations with unknown outcome that stay in the weakened history (in the history with
  // unknown outcome, or definite there and weakened here): each may have taken effect at any time
  // after its call, or never, and still no order of the core exists. By call time; note says which.
  std::vector<CounterexampleOp> may_have_happened;
  size_t weakened = 0;         // how many of may_have_happened were definite in the history
  // Writes left out because nothing in the weakened history reads their value (minimize.h,
  // weakening (4)), by id.
  std::vector<uint64_t> unobserved;
  int64_t cut_time = 0;        // operations called after it are left out (the core's last return)
  size_t partition_ops = 0;    // operations of the failing partition in the history
  bool one_minimal = false;    // every single further weakening was checked: each is linearizable
  std::string cut_short;       // when not one_minimal: why
  uint64_t steps = 0;          // model steps the minimisation spent (all its checks)
  size_t checks = 0;           // linearizability checks it ran
};

struct CheckResult {
  Verdict verdict = Verdict::kUnknown;
  uint64_t steps = 0;  // all partitions
  std::vector<PartitionStats> partitions;
  std::optional<Counterexample> counterexample;  // set iff kViolation
  std::string unknown_reason;                    // set iff kUnknown
  // Set by callers that minimise (imported_check.h) after a violation, when the minimiser could
  // confirm the failing partition alone within its budget.
  std::optional<MinimalCounterexample> minimal;
};

}  // namespace dst::checker
