// Porcupine's key-value model: string values per key, get / put / append, a missing key reads as
// "". Keys are independent, so the history is partitioned per key.
//
// States are integer-coded: every distinct value string is interned once (a get's expected value
// and a put's value at setup, an append's result when first reached), so a get is an integer
// compare, and an append from a value it was already applied to is one lookup in a flat table.
// Searched per key (set_partitioned(true)), a state is just that key's value id; searched whole,
// it is the id of an interned tuple of value ids, one per key.
//
// The tables are flat (open addressing over arrays, strings in one byte arena), from the memory
// resource the model is given (the check's arena, arena_resource.h): a check of a short history
// allocates one block for everything, not one per table, key, value or state. A copy of a model
// takes its memory from the default resource, so it may outlive the original's arena.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory_resource>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "checker/linearizability/search.h"

namespace dst::checker {

struct KvOp {
  enum class Kind : uint8_t { kGet, kPut, kAppend };
  Kind kind = Kind::kGet;
  uint32_t key = 0;    // KvModel::intern_key
  uint32_t value = 0;  // KvModel::intern_value: kGet: the value seen; kPut/kAppend: the argument
  uint32_t index = 0;  // unique per operation; set by KvModel::make
};

namespace kv_detail {

static_assert(std::endian::native == std::endian::little, "the string hash reads bytes as little-endian words");

inline uint64_t load64(const char* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}
inline uint32_t load32(const char* p) {
  uint32_t x;
  std::memcpy(&x, p, 4);
  return x;
}
// The n <= 7 bytes at p as a little-endian number (two overlapping loads from 4 bytes on).
inline uint64_t load_small(const char* p, size_t n) {
  if (n >= 4) return load32(p) | (static_cast<uint64_t>(load32(p + n - 4)) << (8 * (n - 4)));
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  if (n == 0) return 0;
  return u[0] | (static_cast<uint64_t>(u[n / 2]) << (8 * (n / 2))) | (static_cast<uint64_t>(u[n - 1]) << (8 * (n - 1)));
}

// The home slot of `key` in an open-addressing table of `size` slots (a power of two): the top
// bits of key times 2^64 / phi (Fibonacci hashing: one multiplication, and every bit of the key
// reaches the top bits).
inline size_t home_slot(uint64_t key, size_t size) {
  return static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> (64 - std::countr_zero(size)));
}

// A growable byte array from a memory resource, whose capacity is not initialised until written
// (a vector<char> zeroes what it grows into, and a string copies through an out-of-line call).
class ByteBuffer {
 public:
  explicit ByteBuffer(std::pmr::memory_resource* memory) : memory_(memory) {}
  // A copy takes the default resource, as pmr containers do: it may outlive the original's.
  ByteBuffer(const ByteBuffer& other);
  ByteBuffer& operator=(const ByteBuffer&) = delete;
  ~ByteBuffer();

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  void reserve(size_t n) {
    if (n > capacity_) reallocate(n);
  }
  // Where the next n bytes go; commit(n) once they are written.
  char* room(size_t n) {
    if (capacity_ - size_ < n) reallocate(std::max(2 * capacity_, size_ + n));
    return data_ + size_;
  }
  void commit(size_t n) { size_ += n; }
  void append(std::string_view s);  // room, copy, commit

 private:
  void reallocate(size_t capacity);
  std::pmr::memory_resource* memory_;
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// A fixed-size array of a trivially copyable T from a memory resource, zeroed with one memset when
// sized: the open-addressing tables, whose empty slot is all zero bits (a vector would fill
// them element by element).
template <typename T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit ZeroedArray(std::pmr::memory_resource* memory) : memory_(memory) {}
  // A copy takes the default resource, as pmr containers do: it may outlive the original's.
  ZeroedArray(const ZeroedArray& other) : memory_(std::pmr::get_default_resource()) {
    if (other.size_ == 0) return;
    data_ = static_cast<T*>(memory_->allocate(other.size_ * sizeof(T), alignof(T)));
    std::memcpy(data_, other.data_, other.size_ * sizeof(T));
    size_ = other.size_;
  }
  ZeroedArray& operator=(const ZeroedArray&) = delete;
  ~ZeroedArray() { release(); }

  // Now `n` zeroed elements; the old ones are gone.
  void reset_zeroed(size_t n) {
    release();
    data_ = static_cast<T*>(memory_->allocate(n * sizeof(T), alignof(T)));
    std::memset(data_, 0, n * sizeof(T));
    size_ = n;
  }
  void swap(ZeroedArray& other) {
    std::swap(memory_, other.memory_);
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }
  std::pmr::memory_resource* resource() const { return memory_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  void release() {
    if (data_ != nullptr) memory_->deallocate(data_, size_ * sizeof(T), alignof(T));
    data_ = nullptr;
    size_ = 0;
  }
  std::pmr::memory_resource* memory_;
  T* data_ = nullptr;
  size_t size_ = 0;
};

// Interned strings: ids in order of first appearance, bytes in one arena.
class StringPool {
 public:
  explicit StringPool(std::pmr::memory_resource* memory) : bytes_(memory), strings_(memory), slots_(memory) {}
  uint32_t intern(std::string_view s);
  // Stores `s` under a new id that intern() never returns: for strings that are never looked up
  // by their bytes (an append's argument, only ever an argument of intern_concat(); a short key,
  // which KvModel finds by its packed bytes), which saves the table look-up.
  uint32_t store(std::string_view s);
  // The id of view(a) + view(b).
  uint32_t intern_concat(uint32_t a, uint32_t b);
  std::string_view view(uint32_t id) const {
    return std::string_view(bytes_.data() + strings_[id].start, strings_[id].length);
  }
  uint32_t size() const { return static_cast<uint32_t>(strings_.size()); }
  // Room for `strings` strings of `bytes` bytes in all without growing.
  void reserve(size_t strings, size_t bytes);
  static size_t reserved_bytes(size_t strings, size_t bytes);  // what reserve() allocates
  size_t bytes() const { return bytes_.capacity() + strings_.capacity() * sizeof(String) + slots_.size() * 4; }

 private:
  // Strings are hashed as base-256 numbers, first byte lowest, modulo the prime M = 2^61 - 1:
  // h(s) = sum s[i] * 256^i mod M. Then h(a + b) = h(a) + 256^|a| h(b), and since 2^61 = 1 mod M,
  // multiplying by 256^|a| is a rotation of 61 bits: interning an append's result costs no pass
  // over the value and no multiplication, and a string of up to 7 bytes hashes to its own bytes.
  // (Only speed depends on the hash: a hit compares the bytes.)
  using Hash = uint64_t;
  struct String {
    Hash hash;
    size_t start;     // in bytes_
    uint32_t length;  // the pool holds at most limits::kCheckerModelBytesMax bytes in all
    // In the look-up table (intern, intern_concat); not a string from store(), which intern()
    // must never return (rehash() leaves these out).
    bool looked_up;
  };
  static Hash hash_of(std::string_view s);
  // The slot where the string with hash `h` equal to head + tail is, or the empty slot where it
  // would go (the table is looked up before anything is copied into the arena).
  size_t find(Hash h, std::string_view head, std::string_view tail) const;
  // Adds the string of hash `h` whose bytes are the arena's from `start` on, at empty slot `slot`.
  uint32_t add(size_t slot, Hash h, size_t start);
  void grow();
  void rehash(size_t slots);  // a power of two, more than twice the strings

  ByteBuffer bytes_;
  std::pmr::vector<String> strings_;
  ZeroedArray<uint32_t> slots_;  // 0: empty; else 1 + id
};

// uint64 -> uint32, open addressing; the key ~0 is reserved (keys are stored plus one, so that a
// zeroed table is an empty one).
class FlatMap {
 public:
  explicit FlatMap(std::pmr::memory_resource* memory) : slots_(memory) {}
  static constexpr uint32_t kAbsent = UINT32_MAX;
  uint32_t find(uint64_t key) const {  // inline: the search asks at every append step
    if (slots_.empty()) return kAbsent;
    const size_t slot = slot_of(key);
    return holds(slot) ? slots_[slot].value : kAbsent;
  }
  void insert(uint64_t key, uint32_t value);  // key absent
  // Find, then insert without probing again: the slot where `key` is, or the empty one where it
  // would go (valid until the next insert), whether it holds it, and insert_at.
  size_t probe(uint64_t key) {
    if (slots_.empty()) grow();
    return slot_of(key);
  }
  bool holds(size_t slot) const { return slots_[slot].key_plus_1 != 0; }
  uint32_t value_at(size_t slot) const { return slots_[slot].value; }
  void insert_at(size_t slot, uint64_t key, uint32_t value);  // slot from probe(key), key absent
  size_t bytes() const { return slots_.size() * sizeof(Slot); }
  void reserve(size_t n);  // room for n entries without growing
  static size_t reserved_bytes(size_t n);  // what reserve() allocates

 private:
  struct Slot {
    uint64_t key_plus_1;  // 0: empty
    uint32_t value;
  };
  // Where `key` is, or the empty slot where it would go; the table is not empty.
  size_t slot_of(uint64_t key) const {
    const size_t mask = slots_.size() - 1;
    size_t i = home_slot(key, slots_.size());
    while (slots_[i].key_plus_1 != 0 && slots_[i].key_plus_1 != key + 1) i = (i + 1) & mask;
    return i;
  }
  void grow();
  void rehash(size_t slots);  // a power of two, more than twice the entries
  ZeroedArray<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace kv_detail

class KvModel {
 public:
  using State = uint32_t;  // per key: a value id; whole: an interned tuple of value ids
  using Op = KvOp;

  // `memory` must outlive the model (not its copies). The value "" is interned first: kEmpty.
  explicit KvModel(std::pmr::memory_resource* memory = std::pmr::get_default_resource());
  // Optional, before interning: room for `ops` operations whose keys and values have `text_bytes`
  // bytes in all, so that setup and the first appends do not regrow the tables.
  void reserve(size_t ops, size_t text_bytes);
  // What reserve(ops, text_bytes) allocates, for sizing an arena.
  static size_t reserved_bytes(size_t ops, size_t text_bytes);

  // Inline, with make(): converting a history interns every operation's key and value, and on
  // short histories that is a good part of the check.
  uint32_t intern_key(std::string_view key) {
    if (key.size() <= 7) {
      if (const uint32_t id = short_keys_.find(packed_key(key)); id != kv_detail::FlatMap::kAbsent) return id;
    }
    return intern_new_key(key);
  }
  uint32_t intern_value(std::string_view value) {
    DST_ASSERT_MSG(!sealed_, "values of operations are fixed once the model is sealed");
    return values_.intern(value);
  }
  // Builds an operation (assigns its index).
  Op make(Op::Kind kind, std::string_view key, std::string_view value) {
    const uint32_t k = intern_key(key);
    // An append's argument is only ever appended (append(), step_whole()), never compared whole:
    // it needs bytes and a hash, not a canonical id. The empty one must be kEmpty (is_read_only).
    if (kind == Op::Kind::kAppend && !value.empty()) {
      DST_ASSERT_MSG(!sealed_, "values of operations are fixed once the model is sealed");
      return Op{kind, k, values_.store(value), next_index_++};
    }
    return Op{kind, k, intern_value(value), next_index_++};
  }
  // Call after all keys are interned, before the search.
  void seal();
  // The search calls this once, before initial_state(); per key unless told otherwise.
  void set_partitioned(bool per_key);

  State initial_state() const;
  std::optional<State> step(State s, const Op& op) {
    if (per_key_) {
      switch (op.kind) {
        case Op::Kind::kGet: return s == op.value ? std::optional<State>(s) : std::nullopt;
        case Op::Kind::kPut: return op.value;
        case Op::Kind::kAppend: return op.value == kEmpty ? s : append(s, op.value);
      }
    }
    return step_whole(s, op);
  }
  uint64_t hash_state(State s) const { return mix64(s); }
  bool is_read_only(const Op& op) const {
    return op.kind == Op::Kind::kGet || (op.kind == Op::Kind::kAppend && op.value == kEmpty);
  }
  // Values are interned (one id per text) except non-empty appends' (stored per operation):
  // those are never told equal, which is only less pruning.
  bool same_effect(const Op& a, const Op& b) const {
    if (a.kind != b.kind || a.key != b.key) return false;
    return a.kind == Op::Kind::kAppend ? a.value == kEmpty && b.value == kEmpty : a.value == b.value;
  }
  // A get whose value does not extend the key's current value can only become legal through a put
  // (of a prefix of that value) among the operations that may still come before it. (The
  // common answers inline: the search asks at every node.)
  template <typename Window>  // window() -> std::span<const Op* const>
  bool may_become_legal(State s, const Op* target, Window&& window) {
    if (target->kind != Op::Kind::kGet) return true;
    const uint32_t now_id = value_of(s, target->key);
    if (now_id == target->value || now_id == kEmpty) return true;
    return value_may_become(now_id, target, window);
  }
  uint32_t partition_count() const { return keys_.size(); }
  uint32_t partition_of(const Op& op) const { return op.key; }
  std::string partition_name(uint32_t key) const;
  std::string describe_op(const Op& op) const;
  std::string describe_state(State s) const;
  bool resources_exhausted() const { return bytes() > bytes_max_; }
  size_t bytes() const { return keys_.bytes() + values_.bytes() + tuples_.capacity() * 4 + transitions_.bytes() + prefix_of_.bytes() + tuple_ids_.bytes(); }
  void set_bytes_max(size_t b) { bytes_max_ = b; }

 private:
  static constexpr uint32_t kEmpty = 0;  // the value id of ""

  uint32_t value_of(State s, uint32_t key) const { return per_key_ ? s : tuple(s)[key]; }
  // A key of at most 7 bytes packed with its length into one integer (never ~0).
  static uint64_t packed_key(std::string_view key) {
    return (static_cast<uint64_t>(key.size()) << 56) | kv_detail::load_small(key.data(), key.size());
  }
  uint32_t intern_new_key(std::string_view key);
  // The value id of value `v` with `arg` appended (remembered per pair).
  State append(uint32_t v, uint32_t arg) {
    const size_t slot = transitions_.probe((static_cast<uint64_t>(v) << 32) | arg);
    return transitions_.holds(slot) ? transitions_.value_at(slot) : append_first_time(v, arg, slot);
  }
  State append_first_time(uint32_t v, uint32_t arg, size_t slot);
  // may_become_legal when the key's value `now_id` is neither empty nor the get's.
  template <typename Window>
  bool value_may_become(uint32_t now_id, const Op* target, Window& window) {
    return extends_value(now_id, target->value) || put_may_lead_to(target, window());
  }
  // Whether the value `get_value` starts with the value `now_id` (remembered per pair: the same
  // few pairs are asked about at every node while the value stays).
  bool extends_value(uint32_t now_id, uint32_t get_value);
  // Whether a put in `window` of a prefix of the get's value could make it legal.
  bool put_may_lead_to(const Op* target, std::span<const Op* const> window) const;
  std::optional<State> step_whole(State s, const Op& op);
  const uint32_t* tuple(State s) const { return &tuples_[static_cast<size_t>(s) * keys_.size()]; }
  State intern_tuple(std::span<const uint32_t> t);

  kv_detail::StringPool keys_;
  // Keys of at most 7 bytes (most histories' keys), packed with their length into one integer:
  // one table probe and no byte compare per operation.
  kv_detail::FlatMap short_keys_;
  kv_detail::StringPool values_;
  kv_detail::FlatMap transitions_;  // per key: (value << 32 | append arg) -> value; whole: (state << 32 | op index) -> state
  std::pmr::vector<uint32_t> tuples_;  // whole: keys_.size() value ids per state
  kv_detail::FlatMap prefix_of_;    // (value << 32 | get's value) -> 1 if the get's value extends it, else 0
  kv_detail::FlatMap tuple_ids_;    // whole: tuple hash -> a state with it (equal hashes chained, see intern_tuple)
  std::pmr::vector<uint32_t> scratch_;
  uint32_t next_index_ = 0;
  bool sealed_ = false;
  bool per_key_ = true;
  bool mode_set_ = false;
  size_t bytes_max_;
};

static_assert(Model<KvModel>);

}  // namespace dst::checker
