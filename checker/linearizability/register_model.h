// Jepsen / Knossos's cas-register: one register, initially nil, with read, write and
// compare-and-set. A read is legal iff it saw the current value; cas(old, new) is legal iff the
// register holds old (a cas on nil never succeeds). Failed operations (:fail) are definite no-ops
// and are left out of the history before the search; a cas that returned "false" is recorded by
// Jepsen as :fail, so it is one of those.
//
// Two generalisations Jepsen's own tests use:
// - Keyed registers (jepsen.independent: values [k v]): one independent register per key, each a
//   partition of its own.
// - The versioned register of jepsen-io/etcd's register workload (its VersionedRegister model):
//   the state is (version, value), version 0 and nil at first; every write or successful cas
//   makes the version one more, and an operation that names a version (a read's version seen, a
//   write's or cas's resulting version) is legal only at that version. A read's nil value or nil
//   version matches anything, as in that model (an etcd read of a missing key gives both nil).
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
  static constexpr int64_t kAnyVersion = -1;
  Kind kind = Kind::kRead;
  bool nil = false;  // kRead: it saw nil (versioned: it names no value, which matches any)
  uint32_t key = 0;  // the register (partition); 0 when there is one
  int64_t value = 0;  // kRead: the value seen; kWrite: the value written; kCas: the expected value
  int64_t to = 0;     // kCas: the new value
  // Versioned registers only: the version a read saw or a write/cas made; kAnyVersion: not named.
  int64_t version = kAnyVersion;

  static RegisterOp read(std::optional<int64_t> seen) { return {Kind::kRead, !seen.has_value(), 0, seen.value_or(0), 0}; }
  static RegisterOp write(int64_t v) { return {Kind::kWrite, false, 0, v, 0}; }
  static RegisterOp cas(int64_t from, int64_t to) { return {Kind::kCas, false, 0, from, to}; }
  RegisterOp on_key(uint32_t k) const {
    RegisterOp o = *this;
    o.key = k;
    return o;
  }
  RegisterOp at_version(int64_t v) const {
    RegisterOp o = *this;
    o.version = v;
    return o;
  }
  bool operator==(const RegisterOp&) const = default;
};

// 16 bytes, as the plain register's was: the search's memo keeps one per visited configuration.
struct RegisterState {
  int64_t value = 0;
  // Versioned registers only (0 otherwise): at most one per write, so it fits (an operation may
  // name any version: one past this range never matches).
  int32_t version = 0;
  bool nil = true;
  static RegisterState holding(int64_t v, int32_t version = 0) { return {v, version, false}; }
  bool operator==(const RegisterState&) const = default;
};

class RegisterModel {
 public:
  using State = RegisterState;
  using Op = RegisterOp;

  // One plain register, named "register".
  RegisterModel() = default;
  // One register per key (ops' key indexes key_names; partition names are "key " + the name),
  // versioned or not.
  RegisterModel(std::vector<std::string> key_names, bool versioned);

  State initial_state() const { return State{}; }
  std::optional<State> step(const State& s, const Op& op) const;
  uint64_t hash_state(const State& s) const {
    const uint64_t h = s.nil ? 0x6e696cull : mix64(static_cast<uint64_t>(s.value));
    return versioned_ ? mix64(h ^ static_cast<uint64_t>(s.version)) : h;
  }
  bool is_read_only(const Op& op) const { return op.kind == Op::Kind::kRead; }
  bool same_effect(const Op& a, const Op& b) const { return a == b; }
  // The value an operation leaves, whatever the state was (a write's, a cas's new one), and the
  // value it needs the state to have (a read's, a cas's expected one; a nil read needs no written
  // value): what the minimiser's weakening (4) asks. Not told for versioned registers: there a
  // write nobody reads still moves the version every later operation names, so dropping it is
  // no weakening.
  std::optional<int64_t> effect_value(const Op& op) const {
    if (versioned_) return std::nullopt;
    if (op.kind == Op::Kind::kWrite) return op.value;
    if (op.kind == Op::Kind::kCas) return op.to;
    return std::nullopt;
  }
  std::optional<int64_t> observed_value(const Op& op) const {
    if (versioned_) return std::nullopt;
    if (op.kind == Op::Kind::kCas || (op.kind == Op::Kind::kRead && !op.nil)) return op.value;
    return std::nullopt;
  }
  uint32_t partition_count() const { return key_names_.empty() ? 1 : static_cast<uint32_t>(key_names_.size()); }
  uint32_t partition_of(const Op& op) const { return op.key; }
  std::string partition_name(uint32_t p) const { return key_names_.empty() ? "register" : "key " + key_names_[p]; }
  std::string describe_op(const Op& op) const;
  std::string describe_state(const State& s) const;
  bool resources_exhausted() const { return false; }

 private:
  std::optional<State> step_versioned(const State& s, const Op& op) const;

  std::vector<std::string> key_names_;
  bool versioned_ = false;
};

static_assert(Model<RegisterModel>);

}  // namespace dst::checker
