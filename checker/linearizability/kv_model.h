// Porcupine's key-value model: string values per key, get / put / append, a missing key reads as
// "". Keys are independent, so the history is partitioned per key.
//
// States are integer-coded: every distinct value string is interned once (a get's expected value
// and a put's value at setup, an append's result when first reached), and a state is the id of an
// interned tuple of value ids (one per key; in a per-key search only that key's entry varies).
// A get is then an integer compare, and a put/append from a state it was already applied to is
// one memo lookup.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "checker/linearizability/search.h"

namespace dst::checker {

struct KvOp {
  enum class Kind : uint8_t { kGet, kPut, kAppend };
  Kind kind = Kind::kGet;
  uint32_t key = 0;    // KvModel::intern_key
  uint32_t value = 0;  // KvModel::intern_value: kGet: the value seen; kPut/kAppend: the argument
  uint32_t index = 0;  // unique per operation (memo key); set by KvModel::add
};

class KvModel {
 public:
  using State = uint32_t;  // interned tuple of value ids, one per key
  using Op = KvOp;

  KvModel();

  uint32_t intern_key(std::string_view key);
  uint32_t intern_value(std::string_view value);
  // Builds an operation (assigns its memo index).
  Op make(Op::Kind kind, std::string_view key, std::string_view value);
  // Call after all keys are interned, before the search.
  void seal();

  State initial_state() const;
  std::optional<State> step(State s, const Op& op);
  uint64_t hash_state(State s) const { return mix64(s); }
  bool is_read_only(const Op& op) const {
    return op.kind == Op::Kind::kGet || (op.kind == Op::Kind::kAppend && values_[op.value].empty());
  }
  // A get whose value does not extend the key's current value can only become legal through a put
  // (of a prefix of that value) among the operations that may still come before it.
  bool may_become_legal(State s, const Op* target, std::span<const Op* const> window) const;
  std::vector<Partition> partition(std::span<const Operation<Op>> ops) const;
  std::string describe_op(const Op& op) const;
  std::string describe_state(State s) const;
  bool resources_exhausted() const { return bytes_ > bytes_max_; }
  size_t bytes() const { return bytes_; }
  void set_bytes_max(size_t b) { bytes_max_ = b; }

 private:
  const uint32_t* tuple(State s) const { return &tuples_[static_cast<size_t>(s) * keys_.size()]; }
  State intern_tuple(const std::vector<uint32_t>& t);

  std::deque<std::string> keys_;
  std::unordered_map<std::string_view, uint32_t> key_ids_;
  std::deque<std::string> values_;
  std::unordered_map<std::string_view, uint32_t> value_ids_;
  std::vector<uint32_t> tuples_;                                // keys_.size() per state
  std::unordered_map<uint64_t, std::vector<State>> tuple_ids_;  // tuple hash -> states
  std::unordered_map<uint64_t, State> transitions_;             // (state << 32 | op index) -> state
  std::vector<uint32_t> scratch_;
  uint32_t next_index_ = 0;
  bool sealed_ = false;
  size_t bytes_ = 0;
  size_t bytes_max_;
};

static_assert(Model<KvModel>);

}  // namespace dst::checker
