// Jepsen / Knossos's cas-register: one register, initially nil, with read, write and
// compare-and-set. A read is legal iff it saw the current value; cas(old, new) is legal iff the
// register holds old (a cas on nil never succeeds). Failed operations (:fail) are definite no-ops
// and are left out of the history before the search; a cas that returned "false" is recorded by
// Jepsen as :fail, so it is one of those.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "checker/linearizability/search.h"

namespace dst::checker {

struct RegisterOp {
  enum class Kind : uint8_t { kRead, kWrite, kCas };
  Kind kind = Kind::kRead;
  bool nil = false;  // kRead: it saw nil
  int64_t value = 0;  // kRead: the value seen; kWrite: the value written; kCas: the expected value
  int64_t to = 0;     // kCas: the new value

  static RegisterOp read(std::optional<int64_t> seen) { return {Kind::kRead, !seen.has_value(), seen.value_or(0), 0}; }
  static RegisterOp write(int64_t v) { return {Kind::kWrite, false, v, 0}; }
  static RegisterOp cas(int64_t from, int64_t to) { return {Kind::kCas, false, from, to}; }
};

struct RegisterState {
  bool nil = true;
  int64_t value = 0;
  bool operator==(const RegisterState&) const = default;
};

class RegisterModel {
 public:
  using State = RegisterState;
  using Op = RegisterOp;

  State initial_state() const { return State{}; }
  std::optional<State> step(const State& s, const Op& op) const;
  uint64_t hash_state(const State& s) const { return s.nil ? 0x6e696cull : mix64(static_cast<uint64_t>(s.value)); }
  bool is_read_only(const Op& op) const { return op.kind == Op::Kind::kRead; }
  bool same_effect(const Op& a, const Op& b) const {
    return a.kind == b.kind && a.nil == b.nil && a.value == b.value && a.to == b.to;
  }
  // The value an operation leaves, whatever the state was (a write's, a cas's new one), and the
  // value it needs the state to have (a read's, a cas's expected one; a nil read needs no written
  // value): what the minimiser's weakening (4) asks.
  std::optional<int64_t> effect_value(const Op& op) const {
    if (op.kind == Op::Kind::kWrite) return op.value;
    if (op.kind == Op::Kind::kCas) return op.to;
    return std::nullopt;
  }
  std::optional<int64_t> observed_value(const Op& op) const {
    if (op.kind == Op::Kind::kCas || (op.kind == Op::Kind::kRead && !op.nil)) return op.value;
    return std::nullopt;
  }
  // One register: one partition.
  uint32_t partition_count() const { return 1; }
  uint32_t partition_of(const Op&) const { return 0; }
  std::string partition_name(uint32_t) const { return "register"; }
  std::string describe_op(const Op& op) const;
  std::string describe_state(const State& s) const;
  bool resources_exhausted() const { return false; }
};

static_assert(Model<RegisterModel>);

}  // namespace dst::checker
