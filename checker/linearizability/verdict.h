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

struct CheckResult {
  Verdict verdict = Verdict::kUnknown;
  uint64_t steps = 0;  // all partitions
  std::vector<PartitionStats> partitions;
  std::optional<Counterexample> counterexample;  // set iff kViolation
  std::string unknown_reason;                    // set iff kUnknown
};

}  // namespace dst::checker
