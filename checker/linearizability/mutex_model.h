// Jepsen / Knossos's mutex: one lock, free at first, with :acquire (legal only when free) and
// :release (legal only when held), as jepsen-io/etcd's lock workload checks it. A failed acquire
// or release (:fail) did not happen and is left out before the search, like every :fail.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "checker/linearizability/search.h"

namespace dst::checker {

struct MutexOp {
  bool acquire = true;  // false: release
  bool operator==(const MutexOp&) const = default;
};

struct MutexState {
  bool held = false;
  bool operator==(const MutexState&) const = default;
};

class MutexModel {
 public:
  using State = MutexState;
  using Op = MutexOp;

  State initial_state() const { return State{}; }
  std::optional<State> step(const State& s, const Op& op) const {
    if (s.held == op.acquire) return std::nullopt;  // acquiring a held lock, releasing a free one
    return State{op.acquire};
  }
  uint64_t hash_state(const State& s) const { return s.held ? 0x68656c64ull : 0x66726565ull; }
  bool is_read_only(const Op&) const { return false; }
  bool same_effect(const Op& a, const Op& b) const { return a == b; }
  uint32_t partition_count() const { return 1; }
  uint32_t partition_of(const Op&) const { return 0; }
  std::string partition_name(uint32_t) const { return "mutex"; }
  std::string describe_op(const Op& op) const { return op.acquire ? "acquire" : "release"; }
  std::string describe_state(const State& s) const { return s.held ? "held" : "free"; }
  bool resources_exhausted() const { return false; }
};

static_assert(Model<MutexModel>);

}  // namespace dst::checker
