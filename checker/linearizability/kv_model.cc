// See kv_model.h.
#include "checker/linearizability/kv_model.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "base/limits.h"

namespace dst::checker {

namespace {

using kv_detail::load32;
using kv_detail::load64;
using kv_detail::load_small;

// Arithmetic modulo M = 2^61 - 1 on values in [0, M) (StringPool's hash).
constexpr uint64_t kM61 = (uint64_t{1} << 61) - 1;
// x * 2^k mod M, for k < 61: 2^61 = 1 mod M makes it a rotation of 61 bits.
uint64_t rotate61(uint64_t x, unsigned k) { return ((x << k) | (x >> (61 - k))) & kM61; }
uint64_t add61(uint64_t a, uint64_t b) {
  uint64_t s = a + b;  // < 2^62
  s = (s & kM61) + (s >> 61);
  return s >= kM61 ? s - kM61 : s;
}
// 256^n = 2^(8n) mod M, as a rotation count.
unsigned shift_of_length(size_t n) { return static_cast<unsigned>((8 * (n % 61)) % 61); }

// Most keys and values of these histories are a few bytes long, where calling memcmp or memcpy
// costs more than the work: up to 16 bytes are done with two (overlapping) loads each side.
bool equal_bytes(const char* a, const char* b, size_t n) {
  if (n >= 8 && n <= 16) return load64(a) == load64(b) && load64(a + n - 8) == load64(b + n - 8);
  if (n >= 4 && n < 8) return load32(a) == load32(b) && load32(a + n - 4) == load32(b + n - 4);
  if (n < 4) {
    for (size_t i = 0; i < n; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  return std::memcmp(a, b, n) == 0;
}

// `to` and `from` do not overlap.
void copy_bytes(char* to, const char* from, size_t n) {
  if (n >= 8 && n <= 16) {
    const uint64_t head = load64(from), tail = load64(from + n - 8);
    std::memcpy(to, &head, 8);
    std::memcpy(to + n - 8, &tail, 8);
  } else if (n >= 4 && n < 8) {
    const uint32_t head = load32(from), tail = load32(from + n - 4);
    std::memcpy(to, &head, 4);
    std::memcpy(to + n - 4, &tail, 4);
  } else if (n < 4) {
    for (size_t i = 0; i < n; ++i) to[i] = from[i];
  } else {
    std::memcpy(to, from, n);
  }
}

uint64_t hash_tuple(const uint32_t* t, size_t n) {
  // One multiplication per key, one mix at the end (a step of the unpartitioned search interns
  // a tuple of every key's value).
  uint64_t h = 0x6b76ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ t[i]) * 0x9e3779b97f4a7c15ull;
  return mix64(h);
}

// Text for a report, built in place: describing an operation is part of every counterexample,
// and a dozen small appends to a std::string cost more than the rest of a short check's report.
class ShortText {
 public:
  void add(std::string_view s) {
    DST_ASSERT_LE(s.size(), sizeof(data_) - size_);
    copy_bytes(data_ + size_, s.data(), s.size());  // inline for short strings; none for an empty one
    size_ += s.size();
  }
  // A value or key, quoted; long ones (append chains) are cut in the middle, so that this adds
  // at most 1 + 16 + 3 + 24 + 3 + 20 + 7 = 74 characters.
  void add_quoted(std::string_view v) {
    constexpr size_t kShown = 48;
    add("\"");
    if (v.size() <= kShown) {
      add(v);
      add("\"");
      return;
    }
    add(v.substr(0, 16));
    add("...");
    add(v.substr(v.size() - 24));
    add("\" (");
    char digits[24];
    const int n = std::snprintf(digits, sizeof digits, "%zu", v.size());
    add(std::string_view(digits, static_cast<size_t>(n)));
    add(" bytes)");
  }
  std::string_view view() const { return std::string_view(data_, size_); }

 private:
  char data_[256];
  size_t size_ = 0;
};

bool starts_with(std::string_view s, std::string_view prefix) {
  // An empty view's data() may be null, which memcmp must not see.
  return prefix.empty() || (s.size() >= prefix.size() && std::memcmp(s.data(), prefix.data(), prefix.size()) == 0);
}

// Open-addressing tables are at most half full: the power of two, at least `least`, above 2n.
size_t slots_for(size_t n, size_t least) {
  size_t slots = least;
  while (slots < 2 * n) slots *= 2;
  return slots;
}

// KvModel::reserve's sizes, which KvModel::reserved_bytes adds up.
struct Reservation {
  size_t value_strings, value_bytes, key_strings, transitions, prefix_pairs;
};
Reservation reservation(size_t ops, size_t text_bytes) {
  // Values: appends add about one value each (more when the search backtracks). Bytes: the
  // texts, and as much again for the append results, each of which copies its prefix (a hint:
  // long append chains outgrow it). Keys: a few usually. Transitions: one per new append
  // result. Prefix pairs: a few per get at most, those not told apart at once by their last
  // bytes (measured on c10-ok: 312 for 337 operations; growing the table mid-check costs more
  // than reserving it).
  return Reservation{2 * ops + 1, 2 * text_bytes + 64, std::min<size_t>(ops, 32), ops / 2, ops};
}

}  // namespace

namespace kv_detail {

StringPool::Hash StringPool::hash_of(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n <= 7) return load_small(p, n);  // below 2^56 < M: its own hash
  // Horner's rule over 8-byte chunks from the last: h = w_0 + 2^64 (w_1 + 2^64 (...)), and
  // 2^64 = 8 mod M. For any 64-bit x, 8x mod M = ((x << 3) & M) + (x >> 58) and x mod M =
  // (x & M) + (x >> 61), each up to a few multiples of M too large, so h stays below 2^63 with
  // no branch in the loop; it is made canonical at the end.
  size_t chunks = n / 8;
  uint64_t h = load_small(p + 8 * chunks, n % 8);
  while (chunks-- > 0) {
    const uint64_t w = load64(p + 8 * chunks);
    h = ((h << 3) & kM61) + (h >> 58) + (w & kM61) + (w >> 61);
  }
  h = (h & kM61) + (h >> 61);
  return h >= kM61 ? h - kM61 : h;
}

ByteBuffer::ByteBuffer(const ByteBuffer& other) : memory_(std::pmr::get_default_resource()) {
  reserve(other.size_);
  if (other.size_ > 0) std::memcpy(data_, other.data_, other.size_);
  size_ = other.size_;
}

ByteBuffer::~ByteBuffer() {
  if (data_ != nullptr) memory_->deallocate(data_, capacity_, 1);
}

void ByteBuffer::append(std::string_view s) {
  copy_bytes(room(s.size()), s.data(), s.size());
  commit(s.size());
}

void ByteBuffer::reallocate(size_t capacity) {
  DST_ASSERT_GE(capacity, size_);
  capacity = std::max<size_t>(capacity, 64);
  auto* grown = static_cast<char*>(memory_->allocate(capacity, 1));
  if (size_ > 0) std::memcpy(grown, data_, size_);
  if (data_ != nullptr) memory_->deallocate(data_, capacity_, 1);
  data_ = grown;
  capacity_ = capacity;
}

uint32_t StringPool::intern(std::string_view s) {
  const Hash h = hash_of(s);
  if (slots_.empty()) grow();
  const size_t slot = find(h, s, {});
  if (slots_[slot] != 0) return slots_[slot] - 1;
  const size_t start = bytes_.size();
  bytes_.append(s);
  return add(slot, h, start);
}

uint32_t StringPool::store(std::string_view s) {
  const Hash h = hash_of(s);
  const auto id = static_cast<uint32_t>(strings_.size());
  DST_ASSERT_LT(s.size(), size_t{UINT32_MAX});
  strings_.push_back(String{h, bytes_.size(), static_cast<uint32_t>(s.size()), false});
  bytes_.append(s);
  return id;
}

uint32_t StringPool::intern_concat(uint32_t a, uint32_t b) {
  const String sa = strings_[a], sb = strings_[b];
  const Hash h = add61(sa.hash, rotate61(sb.hash, shift_of_length(sa.length)));
  const size_t slot = find(h, view(a), view(b));
  if (slots_[slot] != 0) return slots_[slot] - 1;
  // Copying within the arena: make room first (it may move), then copy from its used part to
  // past it (no overlap).
  const size_t start = bytes_.size();
  const size_t length = size_t{sa.length} + sb.length;
  char* to = bytes_.room(length);
  copy_bytes(to, bytes_.data() + sa.start, sa.length);
  copy_bytes(to + sa.length, bytes_.data() + sb.start, sb.length);
  bytes_.commit(length);
  return add(slot, h, start);
}

// find and add are forced inline into their few callers: called per operation and per new
// value, their calls cost as much as their work (measured: about 30 of 60 instructions).
[[gnu::always_inline]] inline size_t StringPool::find(Hash h, std::string_view head, std::string_view tail) const {
  const size_t mask = slots_.size() - 1;
  size_t i = home_slot(h, slots_.size());
  for (; slots_[i] != 0; i = (i + 1) & mask) {
    const String& c = strings_[slots_[i] - 1];
    if (c.hash != h || c.length != head.size() + tail.size()) continue;
    const char* at = bytes_.data() + c.start;
    if (equal_bytes(at, head.data(), head.size()) && equal_bytes(at + head.size(), tail.data(), tail.size())) {
      return i;
    }
  }
  return i;
}

[[gnu::always_inline]] inline uint32_t StringPool::add(size_t slot, Hash h, size_t start) {
  const auto id = static_cast<uint32_t>(strings_.size());
  DST_ASSERT_LT(bytes_.size() - start, size_t{UINT32_MAX});
  strings_.push_back(String{h, start, static_cast<uint32_t>(bytes_.size() - start), true});
  slots_[slot] = id + 1;
  if (strings_.size() * 2 > slots_.size()) grow();
  return id;
}

void StringPool::reserve(size_t strings, size_t bytes) {
  bytes_.reserve(bytes);
  strings_.reserve(strings);
  const size_t slots = slots_for(strings, 64);
  if (slots > slots_.size()) rehash(slots);
}

size_t StringPool::reserved_bytes(size_t strings, size_t bytes) {
  return bytes + strings * sizeof(String) + slots_for(strings, 64) * sizeof(uint32_t);
}

void StringPool::grow() { rehash(slots_.empty() ? 64 : slots_.size() * 2); }

void StringPool::rehash(size_t slots) {
  // One allocation: a check of a short history pays for every block it allocates.
  slots_.reset_zeroed(slots);
  const size_t mask = slots_.size() - 1;
  for (uint32_t id = 0; id < strings_.size(); ++id) {
    if (!strings_[id].looked_up) continue;  // stored: intern() must not find it
    size_t i = home_slot(strings_[id].hash, slots_.size());
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = id + 1;
  }
}

void FlatMap::insert(uint64_t key, uint32_t value) {
  if ((size_ + 1) * 2 > slots_.size()) grow();
  insert_at(slot_of(key), key, value);
}

void FlatMap::insert_at(size_t slot, uint64_t key, uint32_t value) {
  DST_ASSERT_NE(key, ~uint64_t{0});
  if ((size_ + 1) * 2 > slots_.size()) {  // the slot moves with the growth
    insert(key, value);
    return;
  }
  DST_ASSERT_EQ(slots_[slot].key_plus_1, 0u);  // the key is absent
  slots_[slot] = Slot{key + 1, value};
  ++size_;
}

void FlatMap::reserve(size_t n) {
  const size_t slots = slots_for(n, 32);
  if (slots > slots_.size()) rehash(slots);
}

size_t FlatMap::reserved_bytes(size_t n) { return slots_for(n, 32) * sizeof(Slot); }

void FlatMap::grow() { rehash(slots_.empty() ? 32 : slots_.size() * 2); }

void FlatMap::rehash(size_t slots) {
  ZeroedArray<Slot> old(slots_.resource());
  old.reset_zeroed(slots);  // all empty
  old.swap(slots_);
  size_ = 0;
  for (size_t i = 0; i < old.size(); ++i) {
    if (old[i].key_plus_1 != 0) insert(old[i].key_plus_1 - 1, old[i].value);
  }
}

}  // namespace kv_detail

KvModel::KvModel(std::pmr::memory_resource* memory)
    : keys_(memory),
      short_keys_(memory),
      values_(memory),
      transitions_(memory),
      tuples_(memory),
      prefix_of_(memory),
      tuple_ids_(memory),
      scratch_(memory),
      bytes_max_(limits::kCheckerModelBytesMax) {
  const uint32_t empty = values_.intern("");  // every key's value before its first write
  DST_ASSERT_EQ(empty, kEmpty);
}

void KvModel::reserve(size_t ops, size_t text_bytes) {
  const Reservation r = reservation(ops, text_bytes);
  values_.reserve(r.value_strings, r.value_bytes);
  keys_.reserve(r.key_strings, 0);
  transitions_.reserve(r.transitions);
  prefix_of_.reserve(r.prefix_pairs);
  short_keys_.reserve(r.key_strings);
}

size_t KvModel::reserved_bytes(size_t ops, size_t text_bytes) {
  const Reservation r = reservation(ops, text_bytes);
  // Plus the keys' bytes, which reserve() leaves to grow.
  return kv_detail::StringPool::reserved_bytes(r.value_strings, r.value_bytes) +
         kv_detail::StringPool::reserved_bytes(r.key_strings, 0) + kv_detail::FlatMap::reserved_bytes(r.transitions) +
         kv_detail::FlatMap::reserved_bytes(r.prefix_pairs) + kv_detail::FlatMap::reserved_bytes(r.key_strings) + 256;
}

uint32_t KvModel::intern_new_key(std::string_view key) {
  DST_ASSERT_MSG(!sealed_, "keys are fixed once the model is sealed");
  if (key.size() > 7) return keys_.intern(key);
  // A short key's id is short_keys_'s to find: the pool only keeps its bytes.
  const uint32_t id = keys_.store(key);
  short_keys_.insert(packed_key(key), id);
  return id;
}

void KvModel::seal() {
  sealed_ = true;
}

void KvModel::set_partitioned(bool per_key) {
  DST_ASSERT_MSG(!mode_set_, "a KvModel serves one search");
  mode_set_ = true;
  per_key_ = per_key;
  if (per_key_) return;
  scratch_.assign(keys_.size(), kEmpty);  // every key ""
  const State s0 = intern_tuple(scratch_);
  DST_ASSERT_EQ(s0, 0u);
}

KvModel::State KvModel::initial_state() const {
  DST_ASSERT_MSG(sealed_, "KvModel::seal() before the search");
  return 0;  // per key: the value ""; whole: the tuple of ""
}

KvModel::State KvModel::append_first_time(uint32_t v, uint32_t arg, size_t slot) {
  const uint32_t next = values_.intern_concat(v, arg);
  transitions_.insert_at(slot, (static_cast<uint64_t>(v) << 32) | arg, next);
  return next;
}

std::optional<KvModel::State> KvModel::step_whole(State s, const Op& op) {
  const uint32_t* t = tuple(s);
  if (op.kind == Op::Kind::kGet) {
    if (t[op.key] == op.value) return s;
    return std::nullopt;
  }
  const uint64_t memo_key = (static_cast<uint64_t>(s) << 32) | op.index;
  const size_t slot = transitions_.probe(memo_key);  // stays valid: nothing below inserts into transitions_
  if (transitions_.holds(slot)) return transitions_.value_at(slot);
  uint32_t value = op.value;  // put
  if (op.kind == Op::Kind::kAppend) value = op.value == kEmpty ? t[op.key] : values_.intern_concat(t[op.key], op.value);
  scratch_.assign(t, t + keys_.size());
  scratch_[op.key] = value;
  const State next = intern_tuple(scratch_);
  transitions_.insert_at(slot, memo_key, next);
  return next;
}

KvModel::State KvModel::intern_tuple(std::span<const uint32_t> t) {
  // Tuples with equal hashes are chained by rehashing the key; a new tuple takes the first free
  // link of its chain.
  uint64_t h = hash_tuple(t.data(), t.size()) >> 1;
  size_t slot = tuple_ids_.probe(h);
  for (; tuple_ids_.holds(slot); h = mix64(h) >> 1, slot = tuple_ids_.probe(h)) {
    const uint32_t s = tuple_ids_.value_at(slot);
    if (std::equal(t.begin(), t.end(), tuple(s))) return s;
  }
  const auto s = static_cast<State>(keys_.size() == 0 ? tuples_.size() : tuples_.size() / keys_.size());
  tuples_.insert(tuples_.end(), t.begin(), t.end());
  tuple_ids_.insert_at(slot, h, s);
  return s;
}

bool KvModel::extends_value(uint32_t now_id, uint32_t get_value) {
  // Most pairs asked about are not prefixes, and their last eight bytes tell at once: those need
  // neither the comparison nor a place in the memo.
  const std::string_view now = values_.view(now_id), want = values_.view(get_value);
  if (now.size() > want.size()) return false;
  if (now.size() >= 8 && load64(now.data() + now.size() - 8) != load64(want.data() + now.size() - 8)) return false;
  if (now.size() <= 16) return equal_bytes(now.data(), want.data(), now.size());
  const uint64_t pair = (static_cast<uint64_t>(now_id) << 32) | get_value;
  const size_t slot = prefix_of_.probe(pair);
  if (prefix_of_.holds(slot)) return prefix_of_.value_at(slot) == 1;
  const bool extends = std::memcmp(now.data(), want.data(), now.size()) == 0;
  prefix_of_.insert_at(slot, pair, extends ? 1 : 0);
  return extends;
}

bool KvModel::put_may_lead_to(const Op* target, std::span<const Op* const> window) const {
  const std::string_view want = values_.view(target->value);
  for (const Op* op : window) {
    if (op->kind != Op::Kind::kPut || op->key != target->key) continue;
    if (starts_with(want, values_.view(op->value))) return true;
  }
  return false;
}

std::string KvModel::partition_name(uint32_t key) const {
  ShortText t;
  t.add("key ");
  t.add_quoted(keys_.view(key));
  return std::string(t.view());
}

std::string KvModel::describe_op(const Op& op) const {
  static constexpr std::string_view kVerb[] = {"get(", "put(", "append("};
  ShortText t;  // at most 7 + 74 + 5 + 74 + 1 characters
  t.add(kVerb[static_cast<int>(op.kind)]);
  t.add_quoted(keys_.view(op.key));
  t.add(op.kind == Op::Kind::kGet ? ") -> " : ", ");
  t.add_quoted(values_.view(op.value));
  if (op.kind != Op::Kind::kGet) t.add(")");
  return std::string(t.view());
}

std::string KvModel::describe_state(State s) const {
  if (per_key_) {
    ShortText t;
    t.add("the key's value ");
    t.add_quoted(values_.view(s));
    return std::string(t.view());
  }
  std::string out = "{";
  const uint32_t* t = tuple(s);
  for (uint32_t k = 0; k < keys_.size(); ++k) {
    if (t[k] == kEmpty) continue;
    ShortText pair;  // at most 2 + 74 + 2 + 74 characters
    if (out.size() > 1) pair.add(", ");
    pair.add_quoted(keys_.view(k));
    pair.add(": ");
    pair.add_quoted(values_.view(t[k]));
    out += pair.view();
  }
  out += "} (other keys \"\")";
  return out;
}

}  // namespace dst::checker
