// The search's memo of failed (model state, linearized set) pairs (Lowe's / Porcupine's cache).
//
// A pair found again was already explored and failed, so the search prunes it. Keys are an
// incrementally maintained hash; the full state and set are stored and compared, so a hash
// collision never prunes a pair that was not visited. Open addressing, power-of-two table,
// allocated on the first insert (most partitions of a typical history never backtrack and so
// never need one); memory is bounded by a byte budget shared by all partitions: past it nothing
// new is remembered (still sound, only slower). A decided partition hands its emptied tables to
// the check's Spare, and the next partition that needs a memo takes them: a short history with
// many keys allocates one memo, not one per key that backtracks. The tables come from the
// check's memory resource (arena_resource.h), the same for every set of a check and its Spare.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory_resource>
#include <vector>

#include "base/assert.h"

namespace dst::checker {

template <typename State>
class VisitedSet {
  struct Entry {
    uint64_t hash;
    State state;
  };

 public:
  // Allocator-aware, so that a pmr container of searches constructs each one's set with its
  // resource.
  using allocator_type = std::pmr::polymorphic_allocator<>;

  // The tables of a released VisitedSet, emptied but keeping their capacity. Shared by the
  // VisitedSets of one check (one at a time: a set takes them on its first insert), and from
  // the same resource as theirs: tables are swapped, never copied.
  struct Spare {
    Spare() = default;
    explicit Spare(const allocator_type& a) : slots(a), entries(a), sets(a) {}
    std::pmr::vector<uint32_t> slots;
    std::pmr::vector<Entry> entries;
    std::pmr::vector<uint64_t> sets;
  };

  VisitedSet() = default;
  explicit VisitedSet(const allocator_type& a) : slots_(a), entries_(a), sets_(a) {}
  // `words`: 64-bit words per linearized set. `bytes_used` is shared by all VisitedSets of one
  // check and must stay below `bytes_max`.
  VisitedSet(size_t words, size_t* bytes_used, size_t bytes_max) { configure(words, bytes_used, bytes_max); }
  ~VisitedSet() { release(); }
  VisitedSet(const VisitedSet&) = delete;
  VisitedSet& operator=(const VisitedSet&) = delete;

  // `spare` (optional) must outlive this set.
  void configure(size_t words, size_t* bytes_used, size_t bytes_max, Spare* spare = nullptr) {
    DST_ASSERT(entries_.empty());
    DST_ASSERT_MSG(spare == nullptr || spare->entries.get_allocator() == entries_.get_allocator(),
                   "a VisitedSet and its Spare must share one memory resource");
    words_ = words;
    bytes_used_ = bytes_used;
    bytes_max_ = bytes_max;
    spare_ = spare;
  }
  // Forgets everything and returns the memory (and its share of the byte budget): to the spare
  // if it has none, else to the allocator.
  void release() {
    if (bytes_used_ != nullptr) *bytes_used_ -= bytes_mine_;
    bytes_mine_ = 0;
    if (spare_ != nullptr && spare_->entries.capacity() < entries_.capacity()) {
      slots_.clear();
      entries_.clear();
      sets_.clear();
      slots_.swap(spare_->slots);
      entries_.swap(spare_->entries);
      sets_.swap(spare_->sets);
    }
    std::pmr::vector<uint32_t>(slots_.get_allocator()).swap(slots_);
    std::pmr::vector<Entry>(entries_.get_allocator()).swap(entries_);
    std::pmr::vector<uint64_t>(sets_.get_allocator()).swap(sets_);
  }

  bool contains(uint64_t hash, const State& state, const uint64_t* set) const {
    if (entries_.empty()) return false;
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const uint32_t slot = slots_[i];
      if (slot == 0) return false;
      const Entry& e = entries_[slot - 1];
      if (e.hash == hash && e.state == state &&
          std::memcmp(&sets_[static_cast<size_t>(slot - 1) * words_], set, words_ * sizeof(uint64_t)) == 0) {
        return true;
      }
    }
  }

  // Remembers (state, set), which the caller knows is absent, unless the budget is spent.
  void insert_absent(uint64_t hash, const State& state, const uint64_t* set) {
    const size_t entry_bytes = sizeof(Entry) + words_ * sizeof(uint64_t) + 2 * sizeof(uint32_t);
    if (*bytes_used_ + entry_bytes > bytes_max_ || entries_.size() >= UINT32_MAX / 2) {
      full_ = true;
      return;  // not remembered: the search may explore it again
    }
    if ((entries_.size() + 1) * 2 > slots_.size()) grow();
    entries_.push_back(Entry{hash, state});
    sets_.insert(sets_.end(), set, set + words_);
    *bytes_used_ += entry_bytes;
    bytes_mine_ += entry_bytes;
    place(hash, static_cast<uint32_t>(entries_.size()));
  }

  // Remembers (state, set) unless present. Returns false iff it was already present.
  bool insert_if_absent(uint64_t hash, const State& state, const uint64_t* set) {
    if (contains(hash, state, set)) return false;
    insert_absent(hash, state, set);
    return true;
  }

  size_t size() const { return entries_.size(); }
  bool full() const { return full_; }
  // What the first insert allocates, for sizing a check's arena.
  static constexpr size_t first_fill_bytes(size_t words) {
    return kFirstEntries * (sizeof(Entry) + words * sizeof(uint64_t)) + 2 * kFirstEntries * sizeof(uint32_t);
  }

 private:
  static constexpr size_t kFirstEntries = 128;
  void place(uint64_t hash, uint32_t slot_value) {
    const size_t mask = slots_.size() - 1;
    size_t i = hash & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = slot_value;
  }
  void grow() {
    size_t n = slots_.size() * 2;
    if (slots_.empty()) {  // the first insert: room for the table's first fill, not one doubling each
      if (spare_ != nullptr && spare_->entries.capacity() != 0) {
        slots_.swap(spare_->slots);
        entries_.swap(spare_->entries);
        sets_.swap(spare_->sets);
      }
      entries_.reserve(kFirstEntries);
      sets_.reserve(kFirstEntries * words_);
      // As large as taken tables allow without allocating (a power of two).
      n = std::bit_floor(std::max(2 * kFirstEntries, slots_.capacity()));
    }
    slots_.assign(n, 0);
    for (size_t k = 0; k < entries_.size(); ++k) place(entries_[k].hash, static_cast<uint32_t>(k + 1));
  }

  size_t words_ = 0;
  size_t* bytes_used_ = nullptr;
  size_t bytes_max_ = 0;
  size_t bytes_mine_ = 0;
  bool full_ = false;
  Spare* spare_ = nullptr;
  std::pmr::vector<uint32_t> slots_;  // 0: empty; else 1 + index into entries_
  std::pmr::vector<Entry> entries_;
  std::pmr::vector<uint64_t> sets_;   // words_ per entry
};

}  // namespace dst::checker
