// The linearizability search: Wing & Gong's algorithm with Lowe's memo, in the shape Porcupine uses
// (a doubly linked list of call/return entries, linearize a call by lifting it and its return out
// of the list, undo on backtrack), generic over a Model, plus the speed-ups issue 5 measured:
//
// - Greedy no-op linearization: a read-only operation (one that never changes any state: a read,
//   a failed cas) that is legal now is linearized at once without branching. If any
//   linearization exists from (S, L) and R is such a candidate, one exists from (S, L + R): move R
//   to the front of it (R is minimal in real time, and since R changes no state the rest of the
//   sequence sees the same states). So when (S, L + R) fails, (S, L) fails and the search backtracks past it.
// - An incremental hash of (state, linearized set): XOR of per-operation keys, updated on each
//   lift/unlift, mixed with the state's hash.
// - Per-partition search (per key when the model allows), the partitions interleaved round-robin
//   with a step quantum; the first failing partition ends the check (a hard key cannot hide an easy
//   failing one).
// - Fixed costs kept small, since on short histories they are most of the time (Porcupine's
//   c01 files check in a few microseconds, where one allocation is ~1%): the operations are
//   bucketed by partition in one pass, every partition's entry list, sets, best prefix and
//   scratch are carved out of one allocation shared by the whole check (SearchArena::allocate),
//   short lists are insertion-sorted, the counterexample reuses the arena's scratch, and the
//   memo stores failed nodes only (so a partition that never backtracks never allocates one;
//   see backtrack()). All of it comes from one memory resource per check (arena_resource.h):
//   one heap block for a short history instead of a few dozen.
// - A partition whose operations are sequential (each returns before the next is called, none of
//   unknown outcome) has one order that respects real time: it is replayed in that order, no
//   list, no memo (Porcupine's c01 files, one client, are all such partitions).
// - A step budget: when it runs out the verdict is kUnknown, never a guess.
//
// Operations with unknown outcome have no return entry: they may be linearized at any point after
// their call, or never; the search succeeds once every definite operation is linearized.
//
// - Interchangeable unknown operations (the model's optional same_effect: two writes of one value,
//   say) are linearized in call order only: j is tried only once every earlier such i is in the
//   linearized set. Complete: given a linearization that places j while an earlier i is still out,
//   swap them (i is placed where j was, which is after i's call since it is after j's; j goes where
//   i went, later, or nowhere); neither has a return to respect and both act alike on every
//   state. So the memo meets one set per combination instead of every choice among equals: a
//   history with a dozen timed-out writes of five values (Jepsen's etcd logs; the minimiser's
//   weakened operations) no longer searches 2^12 subsets.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "base/assert.h"
#include "base/hash.h"
#include "base/limits.h"
#include "checker/linearizability/arena_resource.h"
#include "checker/linearizability/verdict.h"
#include "checker/linearizability/visited_set.h"

namespace dst::checker {

// One operation of a history: what the model judges (input and output together), and when it was
// called and returned, in any integer time whose order is the real-time order.
template <typename Op>
struct Operation {
  Op op;
  int64_t call = 0;
  int64_t ret = kNeverReturns;  // kNeverReturns: unknown outcome (may happen later, or never)
  uint64_t id = 0;              // the caller's id, echoed in counterexamples
};

// A sequential specification.
//   State: small, copyable, equality-comparable (integer-coded where possible).
//   hash_state(s): equal states hash equal; well mixed (every bit depends on the whole state),
//     since the memo's table indexes by its low bits unmixed.
//   step(s, op): the state after op if op (with its recorded output) is legal from s, else nullopt.
//     Non-const: a model may intern states as it meets them.
//   is_read_only(op): true only if step(s, op) is s or nullopt for every s (a read, a failed
//     cas): the greedy rule applies to these only. (A write of the current value leaves this
//     state unchanged but not every state: linearizing it early can be wrong.)
//   partition_of(op) < partition_count(): independent groups (e.g. one per key); one group with
//     everything is always correct. partition_name(p) names group p in reports.
//   resources_exhausted(): the model's own memory bound was hit; the search stops with kUnknown.
// Optional: may_become_legal(s, target, window) -> bool: false only if no sequence of operations
//   from window() (a span of the calls before target's return, target among them) taken from s
//   can make target legal. The search asks it about the first few operations to return, and
//   prunes; window is a callable so that the list is only walked when the model needs it.
// Optional: same_effect(a, b) -> bool: true only if step(s, a) == step(s, b) for every s (the
//   interchangeable unknown operations above).
// Optional: set_partitioned(bool), called once before initial_state(): with true, each search
//   sees only one group's operations, so a state need only describe that group's part.
template <typename M>
concept Model = requires(M& m, const M& cm, const typename M::State& s, const typename M::Op& op, uint32_t p) {
  requires std::copyable<typename M::State>;
  requires std::default_initializable<typename M::State>;
  requires std::equality_comparable<typename M::State>;
  { cm.initial_state() } -> std::same_as<typename M::State>;
  { m.step(s, op) } -> std::same_as<std::optional<typename M::State>>;
  { cm.hash_state(s) } -> std::same_as<uint64_t>;
  { cm.is_read_only(op) } -> std::same_as<bool>;
  { cm.partition_count() } -> std::same_as<uint32_t>;
  { cm.partition_of(op) } -> std::same_as<uint32_t>;
  { cm.partition_name(p) } -> std::convertible_to<std::string>;
  { cm.describe_op(op) } -> std::convertible_to<std::string>;
  { cm.describe_state(s) } -> std::convertible_to<std::string>;
  { cm.resources_exhausted() } -> std::same_as<bool>;
};

struct SearchOptions {
  uint64_t step_budget = limits::kCheckerStepsDefault;  // over all partitions
  bool partition = true;                                // use the model's partitions
  bool greedy = true;                                   // greedy no-op linearization
  bool replay_sequential = true;                        // replay sequential partitions (tests compare)
  uint64_t quantum_steps = limits::kCheckerQuantumSteps;
  size_t cache_bytes_max = limits::kCheckerCacheBytesMax;
};

// Storage shared by all partition searches of one check: each partition owns a contiguous block
// of every array, sized once before the search starts (the blocks never move). The arrays of
// plain integers are carved out of one allocation (`block`): on a short history the search's
// fixed costs, allocations first, are most of its time.
template <typename M>
struct SearchArena {
  explicit SearchArena(std::pmr::memory_resource* memory) : ops(memory), frames(memory), memory_(memory) {}
  SearchArena(const SearchArena&) = delete;
  SearchArena& operator=(const SearchArena&) = delete;
  ~SearchArena() {
    if (block != nullptr) memory_->deallocate(block, block_bytes_, alignof(uint64_t));
  }

  using Op = typename M::Op;
  using State = typename M::State;
  // The entry list of a partition: its block starts with the head sentinel (local index 0);
  // entries 1..E are the calls and returns sorted by (time, calls before returns, op).
  struct Entry {
    uint32_t next;
    uint32_t prev;
    uint32_t op;     // local operation index
    uint32_t match;  // a call's return entry (0: unknown outcome); 0 for a return
    bool call;
  };
  struct Frame {
    uint32_t entry;
    bool forced;  // linearized by the greedy rule: no alternatives to try at its node
    State before;
  };
  std::pmr::vector<Operation<Op>> ops;  // grouped by partition, in input order within one
  std::pmr::vector<Frame> frames;       // the stacks: one frame per op of the partition at most
  std::byte* block = nullptr;
  uint64_t* sets = nullptr;         // the linearized set: (ops + 63) / 64 words per partition
  uint64_t* keys = nullptr;         // set-hash key of local operation i (same in every partition)
  const Op** window = nullptr;      // scratch for greedy_scan: the largest partition's ops
  Entry* entries = nullptr;         // 1 + calls + returns per partition
  uint32_t* best = nullptr;         // the longest prefix so far: one per op
  uint32_t* scratch_calls = nullptr;  // building entries: the largest partition's ops each
  uint32_t* scratch_returns = nullptr;
  uint32_t* scratch_call_entry = nullptr;

  // Sizes every array; the sets start empty, the rest is written before it is read.
  void allocate(size_t ops_total, size_t entries_total, size_t set_words, size_t largest) {
    static_assert(std::is_trivially_copyable_v<Entry> && alignof(Entry) <= 8);
    auto words = [](size_t bytes) { return (bytes + 7) / 8; };
    const size_t w_sets = set_words, w_keys = largest, w_window = words(largest * sizeof(const Op*));
    const size_t w_entries = words(entries_total * sizeof(Entry)), w_best = words(ops_total * 4);
    const size_t w_scratch = words(largest * 4);
    // Bytes, so that the arrays' objects begin their lifetime implicitly; each starts on a
    // multiple of 8.
    DST_ASSERT(block == nullptr);
    block_bytes_ = 8 * (w_sets + w_keys + w_window + w_entries + w_best + 3 * w_scratch);
    block = static_cast<std::byte*>(memory_->allocate(block_bytes_, alignof(uint64_t)));
    std::byte* at = block;
    auto carve = [&at](size_t w) { std::byte* p = at; at += 8 * w; return p; };
    sets = reinterpret_cast<uint64_t*>(carve(w_sets));
    std::fill(sets, sets + set_words, 0);
    keys = reinterpret_cast<uint64_t*>(carve(w_keys));
    window = reinterpret_cast<const Op**>(carve(w_window));
    entries = reinterpret_cast<Entry*>(carve(w_entries));
    best = reinterpret_cast<uint32_t*>(carve(w_best));
    scratch_calls = reinterpret_cast<uint32_t*>(carve(w_scratch));
    scratch_returns = reinterpret_cast<uint32_t*>(carve(w_scratch));
    scratch_call_entry = reinterpret_cast<uint32_t*>(carve(w_scratch));
    frames.resize(ops_total);
  }

  // An upper bound on what allocate() and the operations take for `ops_total` operations in at
  // most `parts` partitions, for sizing the check's arena.
  static size_t bytes_for(size_t ops_total, size_t parts) {
    const size_t per_op = sizeof(Operation<Op>) + sizeof(Frame) + 3 * sizeof(uint64_t) + 2 * sizeof(Entry) + 4 * 4;
    return ops_total * per_op + parts * (sizeof(Entry) + 2 * sizeof(uint64_t)) + 256;
  }

 private:
  std::pmr::memory_resource* memory_;
  size_t block_bytes_ = 0;
};

// Where one partition's blocks start in the arena.
struct PartitionLayout {
  uint32_t partition = 0;  // the model's partition number (0 when not partitioned)
  size_t op_begin = 0;     // also the frames' and best's
  size_t ops = 0;
  size_t definite = 0;  // operations with a return entry
  size_t entry_begin = 0;
  size_t set_begin = 0;
  // Each operation returns before the next is called, none of unknown outcome (a tie is an
  // overlap, as in the entry list: calls before returns): real time allows only their order.
  bool sequential = false;
  bool entries_built = false;  // by lay_out_partitions; else the search builds its own (if not replayed)
};

// The search over one partition, resumable: run(n) does up to about n more model steps.
template <Model M>
class PartitionSearch {
 public:
  using State = typename M::State;
  using Op = typename M::Op;
  using Arena = SearchArena<M>;
  using Entry = typename Arena::Entry;
  using Frame = typename Arena::Frame;
  enum class Progress { kRunning, kLinearizable, kViolation };

  // Allocator-aware: a pmr vector of searches gives each one's memo the check's resource.
  using allocator_type = std::pmr::polymorphic_allocator<>;
  explicit PartitionSearch(const allocator_type& a) : visited_(a), prev_same_(a) {}
  PartitionSearch(const PartitionSearch&) = delete;
  PartitionSearch& operator=(const PartitionSearch&) = delete;

  // The arena's arrays must be sized for every partition's layout before the first init.
  void init(M& model, Arena& arena, const PartitionLayout& at, const SearchOptions& options,
            size_t* cache_bytes_used, typename VisitedSet<State>::Spare* spare_memo) {
    model_ = &model;
    arena_ = &arena;
    greedy_ = options.greedy;
    n_ = at.ops;
    ops_ = arena.ops.data() + at.op_begin;
    ent_ = arena.entries + at.entry_begin;
    set_ = arena.sets + at.set_begin;
    words_ = (n_ + 63) / 64;
    frames_ = arena.frames.data() + at.op_begin;
    best_ = arena.best + at.op_begin;
    keys_ = arena.keys;
    state_ = model.initial_state();
    best_state_ = state_;
    visited_.configure(words_, cache_bytes_used, options.cache_bytes_max, spare_memo);
    sequential_ = options.replay_sequential && at.sequential;
    if constexpr (kHasSameEffect) {
      if (!sequential_) link_interchangeable();
    }
    if (at.entries_built) {
      definite_left_ = at.definite;
      cursor_ = ent_[kHead].next;
    } else if (!sequential_) {
      build_entries(1 + at.ops + at.definite);
    }
  }

  Progress run(uint64_t max_steps) {
    if (done_ != Progress::kRunning) return done_;
    if (sequential_) return replay(max_steps);
    const uint64_t stop = steps_ + max_steps;
    while (steps_ < stop) {
      if (definite_left_ == 0) return done_ = Progress::kLinearizable;
      if (scan_pending_) {
        scan_pending_ = false;
        if (!greedy_scan()) return done_ = Progress::kViolation;
        continue;
      }
      const uint32_t e = cursor_;
      DST_ASSERT_NE(e, kHead);  // a definite operation's return entry is still in the list
      if (!ent_[e].call) {
        if (!backtrack()) return done_ = Progress::kViolation;
        continue;
      }
      if constexpr (kHasSameEffect) {
        if (waits_for_earlier_equal(e)) {
          cursor_ = ent_[e].next;
          continue;
        }
      }
      ++steps_;
      std::optional<State> next = model_->step(state_, ops_[ent_[e].op].op);
      if (next && descend(e, std::move(*next), false)) continue;
      cursor_ = ent_[e].next;
    }
    return Progress::kRunning;
  }

  // Frees the memo once the partition is decided.
  void release() { visited_.release(); }
  uint64_t steps() const { return steps_; }
  size_t size() const { return n_; }

  // After kViolation: the longest linearizable prefix found and what could not follow it.
  Counterexample counterexample(const std::string& name) const {
    Counterexample c;
    c.partition = name;
    c.prefix_length = best_len_;
    c.state_after_prefix = model_->describe_state(best_state_);
    // Scratch from the arena: the search is over, and only one counterexample is built.
    uint32_t* const in_prefix = arena_->scratch_call_entry;
    std::fill(in_prefix, in_prefix + n_, 0);
    for (size_t k = 0; k < best_len_; ++k) in_prefix[best_[k]] = 1;
    const size_t shown = limits::kCounterexampleOpsShownMax;
    const size_t tail_from = best_len_ > shown ? best_len_ - shown : 0;
    c.prefix_tail.reserve(best_len_ - tail_from);
    for (size_t k = tail_from; k < best_len_; ++k) c.prefix_tail.push_back(describe(best_[k], ""));
    int64_t min_ret = kNeverReturns;
    for (size_t i = 0; i < n_; ++i) {
      if (!in_prefix[i]) min_ret = std::min(min_ret, ops_[i].ret);
    }
    // The candidates for the next place: definite operations first (by call), then unknown ones.
    uint32_t* const next_ops = arena_->scratch_calls;
    size_t next_count = 0;
    for (uint32_t i = 0; i < n_; ++i) {
      if (!in_prefix[i] && ops_[i].call <= min_ret) next_ops[next_count++] = i;
    }
    auto before = [&](uint32_t a, uint32_t b) {
      const bool ua = ops_[a].ret == kNeverReturns, ub = ops_[b].ret == kNeverReturns;
      return ua != ub ? ub : ops_[a].call < ops_[b].call;
    };
    if (next_count > 64) {
      std::stable_sort(next_ops, next_ops + next_count, before);
    } else {
      sort_small(next_ops, next_count, before);  // insertion sort: stable
    }
    c.unplaced.reserve(std::min(next_count, shown));
    for (size_t k = 0; k < next_count && c.unplaced.size() < shown; ++k) {
      const uint32_t i = next_ops[k];
      std::optional<State> after = model_->step(best_state_, ops_[i].op);
      std::string note;
      note.reserve(96);
      note += after ? "legal here, but no linearization continues after it" : "not legal from this state";
      if (ops_[i].ret == min_ret && min_ret != kNeverReturns) note += "; returned first, so it must be placed here";
      c.unplaced.push_back(describe(i, std::move(note)));
    }
    return c;
  }

 private:
  static constexpr uint32_t kHead = 0;
  // Return entries greedy_scan asks may_become_legal about: the first is the strongest test,
  // a few more catch a get that returns just after an append; more costs more than it prunes
  // (measured on the Porcupine kv files: 2 makes c50 5x slower, 8 makes c10 1.5x slower than 4).
  static constexpr size_t kPruneReturnsChecked = 4;
  struct WindowProbe {  // stands for greedy_scan's window callable in the requires-expression
    std::span<const Op* const> operator()() const { return {}; }
  };
  static constexpr bool kPrunes = requires(M& m, const State& s, const Op* op) {
    { m.may_become_legal(s, op, WindowProbe{}) } -> std::same_as<bool>;
  };
  static constexpr bool kHasSameEffect = requires(const M& m, const Op& a) {
    { m.same_effect(a, a) } -> std::same_as<bool>;
  };
  static constexpr uint32_t kNoEarlier = UINT32_MAX;
  // Classes of interchangeable operations tracked per partition: past it, an unknown operation
  // that matches none of them keeps no link (sound, only less pruning), which bounds the work
  // at partition size x this.
  static constexpr size_t kInterchangeableClassesMax = 64;

  // prev_same_[j]: the latest unknown operation called before j (ties: lower index) with the same
  // effect, or kNoEarlier. Chains in call order, so "every earlier equal one is linearized" is
  // "the previous one is" (the linearized ones of a chain are always a prefix of it).
  void link_interchangeable() {
    prev_same_.assign(n_, kNoEarlier);
    std::pmr::vector<uint32_t> unknown(prev_same_.get_allocator());
    for (uint32_t i = 0; i < n_; ++i)
      if (ops_[i].ret == kNeverReturns) unknown.push_back(i);
    if (unknown.size() < 2) return;
    std::stable_sort(unknown.begin(), unknown.end(), [&](uint32_t a, uint32_t b) { return ops_[a].call < ops_[b].call; });
    std::pmr::vector<uint32_t> last_of_class(prev_same_.get_allocator());  // the latest member of each class
    for (const uint32_t j : unknown) {
      bool placed = false;
      for (uint32_t& last : last_of_class) {
        if (!model_->same_effect(ops_[last].op, ops_[j].op)) continue;
        prev_same_[j] = last;
        last = j;
        placed = true;
        break;
      }
      if (!placed && last_of_class.size() < kInterchangeableClassesMax) last_of_class.push_back(j);
    }
  }

  // Call entry e is an unknown operation whose earlier equal is not linearized yet: skip it.
  bool waits_for_earlier_equal(uint32_t e) const {
    if (ent_[e].match != 0 || prev_same_.empty()) return false;
    const uint32_t earlier = prev_same_[ent_[e].op];
    return earlier != kNoEarlier && (set_[earlier / 64] >> (earlier % 64) & 1) == 0;
  }

  // The search of a sequential partition: each operation in turn (depth_ of them done). The
  // prefix before a failing one is the longest linearizable prefix (the search without the
  // greedy rule finds the same; with it, its pruning may stop at a shorter one).
  Progress replay(uint64_t max_steps) {
    const uint64_t stop = steps_ + max_steps;
    for (; depth_ < n_; ++depth_) {
      if (steps_ >= stop) return Progress::kRunning;
      ++steps_;
      std::optional<State> next = model_->step(state_, ops_[depth_].op);
      if (!next) break;
      state_ = std::move(*next);
    }
    for (size_t k = 0; k < depth_; ++k) best_[k] = static_cast<uint32_t>(k);
    best_len_ = depth_;
    best_state_ = state_;
    return done_ = depth_ == n_ ? Progress::kLinearizable : Progress::kViolation;
  }

  // Fills the partition's `count` entries (head included) and links them in a circular list.
  // Calls are ordered by (call, op) and returns by (ret, op), then merged, calls first on a tie:
  // the order (time, calls before returns, op). Imported histories come in call order, so the
  // calls usually need no sort.
  void build_entries(size_t count) {
    uint32_t* const calls = arena_->scratch_calls;
    uint32_t* const rets = arena_->scratch_returns;
    uint32_t* const call_entry = arena_->scratch_call_entry;
    size_t n_rets = 0;
    bool calls_sorted = true, rets_sorted = true;
    for (uint32_t i = 0; i < n_; ++i) {
      DST_ASSERT_LE(ops_[i].call, ops_[i].ret);
      calls_sorted = calls_sorted && (i == 0 || ops_[i - 1].call <= ops_[i].call);
      calls[i] = i;
      if (ops_[i].ret != kNeverReturns) {
        rets_sorted = rets_sorted && (n_rets == 0 || ops_[rets[n_rets - 1]].ret <= ops_[i].ret);
        rets[n_rets++] = i;
      }
    }
    auto by = [&](int64_t Operation<Op>::*time) {
      return [this, time](uint32_t a, uint32_t b) {
        return ops_[a].*time != ops_[b].*time ? ops_[a].*time < ops_[b].*time : a < b;
      };
    };
    if (!calls_sorted) sort_small(calls, n_, by(&Operation<Op>::call));
    if (!rets_sorted) sort_small(rets, n_rets, by(&Operation<Op>::ret));
    DST_ASSERT_EQ(count, 1 + n_ + n_rets);
    definite_left_ = n_rets;
    size_t ci = 0, ri = 0;
    for (uint32_t e = 1; e < count; ++e) {
      const bool take_call = ri == n_rets || (ci < n_ && ops_[calls[ci]].call <= ops_[rets[ri]].ret);
      const uint32_t op = take_call ? calls[ci++] : rets[ri++];
      ent_[e] = Entry{e + 1, e - 1, op, 0, take_call};
      if (take_call) {
        call_entry[op] = e;
      } else {
        ent_[call_entry[op]].match = e;
      }
    }
    ent_[kHead] = Entry{1, static_cast<uint32_t>(count - 1), 0, 0, false};
    ent_[count - 1].next = kHead;
    cursor_ = ent_[kHead].next;
  }

  // Returns come nearly in order (one partition's operations overlap a little), and most
  // partitions are short: insertion sort (stable), std::sort for the long ones.
  template <typename Less>
  static void sort_small(uint32_t* a, size_t n, Less less) {
    if (n > 64) {
      std::sort(a, a + n, less);
      return;
    }
    for (size_t i = 1; i < n; ++i) {
      const uint32_t x = a[i];
      size_t j = i;
      for (; j > 0 && less(x, a[j - 1]); --j) a[j] = a[j - 1];
      a[j] = x;
    }
  }

  void unlink(uint32_t e) {
    ent_[ent_[e].prev].next = ent_[e].next;
    ent_[ent_[e].next].prev = ent_[e].prev;
  }
  void relink(uint32_t e) {
    ent_[ent_[e].prev].next = e;
    ent_[ent_[e].next].prev = e;
  }
  void toggle(uint32_t op) {
    set_[op / 64] ^= uint64_t{1} << (op % 64);
    set_hash_ ^= keys_[op];
  }
  uint64_t node_hash(const State& s) const { return set_hash_ ^ model_->hash_state(s); }

  // Linearizes call entry `e` leading to `next` unless (next, set + op) already failed.
  bool descend(uint32_t e, State next, bool forced) {
    const uint32_t op = ent_[e].op;
    toggle(op);
    if (visited_.size() != 0 && visited_.contains(node_hash(next), next, set_)) {
      toggle(op);
      return false;
    }
    frames_[depth_++] = Frame{e, forced, std::move(state_)};
    state_ = std::move(next);
    unlink(e);
    if (ent_[e].match != 0) {
      unlink(ent_[e].match);
      --definite_left_;
    }
    if (depth_ > best_len_) note_best();
    cursor_ = ent_[kHead].next;
    scan_pending_ = greedy_;
    return true;
  }

  // The current node failed: remembers it, then undoes frames up to and including the innermost
  // branching one (every node undone on the way failed too); false if none is left.
  // Remembering failed nodes only prunes exactly what remembering every visited node would: the
  // search never meets a node of its current path again (the set grows along it), so a node met
  // again was left before, and a node is left only when it failed.
  bool backtrack() {
    for (;;) {
      if (depth_ == 0) return false;
      visited_.insert_absent(node_hash(state_), state_, set_);
      Frame& f = frames_[--depth_];
      diverged_ = std::min(diverged_, depth_);
      const uint32_t match = ent_[f.entry].match;
      if (match != 0) {
        relink(match);
        ++definite_left_;
      }
      relink(f.entry);
      toggle(ent_[f.entry].op);
      state_ = std::move(f.before);
      if (!f.forced) {
        cursor_ = ent_[f.entry].next;
        return true;
      }
    }
  }

  // At a fresh node: linearize the first read-only candidate that is legal;
  // and if the model can tell that the operation that must come before every other return (the
  // first return entry's) can never become legal from here, the node is dead. Returns false if
  // the search failed.
  bool greedy_scan() {
    uint32_t e = ent_[kHead].next;
    for (; e != kHead && ent_[e].call; e = ent_[e].next) {
      const Op& op = ops_[ent_[e].op].op;
      if (!model_->is_read_only(op)) continue;
      ++steps_;
      std::optional<State> next = model_->step(state_, op);
      if (!next) continue;
      DST_ASSERT_MSG(*next == state_, "is_read_only(op) but step changed the state: " + model_->describe_op(op));
      if (descend(e, std::move(*next), true)) return true;
      return backtrack();  // (S, L + op) already failed, so (S, L) fails
    }
    if constexpr (kPrunes) {
      // The first few return entries: each one's operation must become legal after some of the
      // calls before it.
      size_t returns_checked = 0;
      for (; e != kHead && returns_checked < kPruneReturnsChecked; e = ent_[e].next) {
        if (ent_[e].call) continue;
        ++returns_checked;
        ++steps_;
        const uint32_t target = e;
        auto window = [this, target] {
          const Op** const w = arena_->window;
          size_t n = 0;
          for (uint32_t c = ent_[kHead].next; c != target; c = ent_[c].next) {
            if (ent_[c].call) w[n++] = &ops_[ent_[c].op].op;
          }
          return std::span<const Op* const>(w, n);
        };
        if (!model_->may_become_legal(state_, &ops_[ent_[e].op].op, window)) return backtrack();
      }
    }
    cursor_ = ent_[kHead].next;
    return true;
  }

  // The current stack is the longest so far: copy the part that differs from the saved one.
  void note_best() {
    for (size_t k = diverged_; k < depth_; ++k) best_[k] = ent_[frames_[k].entry].op;
    best_len_ = depth_;
    diverged_ = depth_;
    best_state_ = state_;
  }

  CounterexampleOp describe(uint32_t i, std::string note) const {
    CounterexampleOp c;
    c.id = ops_[i].id;
    c.what = model_->describe_op(ops_[i].op);
    c.call = ops_[i].call;
    c.ret = ops_[i].ret;
    c.note = std::move(note);
    return c;
  }

  M* model_ = nullptr;
  Arena* arena_ = nullptr;
  bool greedy_ = true;
  size_t n_ = 0;
  const Operation<Op>* ops_ = nullptr;
  Entry* ent_ = nullptr;  // index 0 is the head sentinel
  uint32_t cursor_ = kHead;
  size_t definite_left_ = 0;
  // The current node.
  State state_{};
  uint64_t* set_ = nullptr;
  size_t words_ = 0;
  uint64_t set_hash_ = 0;
  const uint64_t* keys_ = nullptr;
  Frame* frames_ = nullptr;
  size_t depth_ = 0;
  bool scan_pending_ = true;
  bool sequential_ = false;  // replayed, not searched: no entries, frames or memo
  uint64_t steps_ = 0;
  Progress done_ = Progress::kRunning;
  // The longest prefix linearized so far (ops), valid up to diverged_ against the stack.
  uint32_t* best_ = nullptr;
  size_t best_len_ = 0;
  size_t diverged_ = 0;
  State best_state_{};
  VisitedSet<State> visited_;
  std::pmr::vector<uint32_t> prev_same_;  // link_interchangeable; empty when the model cannot tell
};

// lay_out_partitions' one pass: every partition's entry list from the events in time order
// (`bucket`: per time 0, or 2 * placed op + 1 for its call, + 2 for its return; `owner`: the
// partition number of each placed op; `layout` indexed by partition number).
template <Model M>
void link_entries_in_time_order(SearchArena<M>& arena, std::span<PartitionLayout> layout,
                                std::span<const uint32_t> bucket, std::span<const uint32_t> owner,
                                std::pmr::memory_resource* memory) {
  using Entry = typename SearchArena<M>::Entry;
  struct Cursor {
    Entry* ent;
    size_t op_begin;
    uint32_t next;  // the next entry
  };
  std::pmr::vector<Cursor> cursor(layout.size(), memory);
  for (size_t p = 0; p < layout.size(); ++p) {
    cursor[p] = Cursor{arena.entries + layout[p].entry_begin, layout[p].op_begin, 1};
  }
  std::pmr::vector<uint32_t> call_entry(owner.size(), memory);
  for (const uint32_t event : bucket) {
    if (event == 0) continue;
    const uint32_t at = (event - 1) >> 1;
    const bool is_call = ((event - 1) & 1) == 0;
    Cursor& c = cursor[owner[at]];
    const uint32_t e = c.next++;
    c.ent[e] = Entry{e + 1, e - 1, static_cast<uint32_t>(at - c.op_begin), 0, is_call};
    if (is_call) {
      call_entry[at] = e;
    } else {
      c.ent[call_entry[at]].match = e;
    }
  }
  for (size_t p = 0; p < layout.size(); ++p) {
    PartitionLayout& l = layout[p];
    if (l.ops == 0) continue;
    const uint32_t count = cursor[p].next;
    DST_ASSERT_EQ(count, 1 + l.ops + l.definite);
    cursor[p].ent[0] = Entry{1, count - 1, 0, 0, false};
    cursor[p].ent[count - 1].next = 0;
    l.entries_built = true;
  }
}

// Buckets the operations by partition (input order kept within a partition), sizes the arena for
// all of them and returns each non-empty partition's layout, with whether it is sequential. When
// the times are distinct integers spread over not much more than the number of events, as the
// positions of events in an imported history are, it also builds every partition's entry list,
// in one pass over the time range that appends each event to its partition's list: no sort and
// no merge (entries_built). Otherwise each partition's search sorts and merges its own
// (PartitionSearch::build_entries), in the same order.
// The first pass of lay_out_partitions: each operation's partition number (`part`), each
// partition's size and whether it is sequential (`layout`, indexed by partition number), the span
// of the times and the number of events.
struct PartitionTally {
  int64_t first = 0, last = 0;
  size_t events = 0;
};
template <Model M>
PartitionTally tally_partitions(M& model, std::span<const Operation<typename M::Op>> ops, bool partition,
                                std::pmr::vector<uint32_t>& part, std::pmr::vector<PartitionLayout>& layout,
                                std::pmr::memory_resource* memory) {
  std::pmr::vector<int64_t> last_return(layout.size(), INT64_MIN, memory);
  PartitionTally t;
  t.first = t.last = ops.empty() ? 0 : ops[0].call;
  for (size_t i = 0; i < ops.size(); ++i) {
    const uint32_t p = partition ? model.partition_of(ops[i].op) : 0;
    DST_ASSERT_LT(p, layout.size());
    DST_ASSERT_LE(ops[i].call, ops[i].ret);
    part[i] = p;
    const bool definite = ops[i].ret != kNeverReturns;
    PartitionLayout& l = layout[p];
    if (l.ops == 0) l.sequential = true;
    if (!definite || last_return[p] >= ops[i].call) l.sequential = false;
    last_return[p] = ops[i].ret;
    ++l.ops;
    l.definite += definite;
    t.first = std::min(t.first, ops[i].call);
    t.last = std::max(t.last, definite ? ops[i].ret : ops[i].call);
    t.events += definite ? 2 : 1;
  }
  return t;
}

template <Model M>
std::pmr::vector<PartitionLayout> lay_out_partitions(M& model, std::span<const Operation<typename M::Op>> ops,
                                                     bool partition, bool replay_sequential, SearchArena<M>& arena,
                                                     std::pmr::memory_resource* memory) {
  const uint32_t parts = partition ? model.partition_count() : 1;
  // Each operation's partition number, the partitions' sizes, which are sequential (each
  // operation returns before the next is called, a tie being an overlap; none unknown), the span
  // of the times. The layout is indexed by partition number until the operations are placed,
  // then compacted.
  std::pmr::vector<uint32_t> part(ops.size(), memory);
  std::pmr::vector<PartitionLayout> layout(parts, memory);
  const auto [first, last, events] = tally_partitions(model, ops, partition, part, layout, memory);
  size_t op_at = 0, entry_at = 0, set_at = 0, largest = 0;
  bool all_sequential = true;
  for (uint32_t p = 0; p < parts; ++p) {
    PartitionLayout& l = layout[p];
    if (l.ops == 0) continue;
    l.partition = p;
    l.op_begin = op_at;
    l.entry_begin = entry_at;
    l.set_begin = set_at;
    all_sequential = all_sequential && l.sequential;
    op_at += l.ops;
    entry_at += 1 + l.ops + l.definite;
    set_at += (l.ops + 63) / 64;
    largest = std::max(largest, l.ops);
  }
  arena.allocate(ops.size(), entry_at, set_at, largest);
  for (size_t i = 0; i < largest; ++i) arena.keys[i] = mix64(0x6c696e6561726973ull ^ (i * 0x2545f4914f6cdd1dull));

  // Place the operations (layout[p].op_begin advances as partition p fills, and is put back
  // after), and put each event in its time's bucket if the entry lists are to be built here.
  // Replayed partitions need none.
  const uint64_t span = static_cast<uint64_t>(last) - static_cast<uint64_t>(first);  // no signed overflow
  const bool dense = !ops.empty() && ops.size() < (size_t{1} << 30) &&
                     span < 4 * static_cast<uint64_t>(events) + 64 && !(all_sequential && replay_sequential);
  // Per time: 0, or 2 * placed op + 1 for its call, + 2 for its return.
  std::pmr::vector<uint32_t> bucket(dense ? static_cast<size_t>(span) + 1 : 0, 0, memory);
  std::pmr::vector<uint32_t> owner(dense ? ops.size() : 0, memory);  // partition number per placed op
  bool distinct = dense;
  arena.ops.resize(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const uint32_t p = part[i];
    PartitionLayout& l = layout[p];
    const size_t at = l.op_begin++;
    const Operation<typename M::Op>& op = arena.ops[at] = ops[i];
    if (!distinct) continue;
    owner[at] = p;
    uint32_t& call = bucket[static_cast<size_t>(op.call - first)];
    distinct = call == 0;  // a tie: ordered by the sorts' rule instead
    call = static_cast<uint32_t>(2 * at + 1);
    if (op.ret == kNeverReturns) continue;
    uint32_t& ret = bucket[static_cast<size_t>(op.ret - first)];
    distinct = distinct && ret == 0;
    ret = static_cast<uint32_t>(2 * at + 2);
  }
  for (uint32_t p = 0; p < parts; ++p) layout[p].op_begin -= layout[p].ops;

  if (distinct) link_entries_in_time_order(arena, std::span<PartitionLayout>(layout), bucket, owner, memory);

  size_t used = 0;
  for (uint32_t p = 0; p < parts; ++p) {
    if (layout[p].ops != 0) layout[used++] = layout[p];
  }
  layout.resize(used);
  return layout;
}

// What check_linearizable allocates for `ops` operations, at most: for sizing an arena that also
// serves the model (imported_check.cc).
template <Model M>
size_t search_bytes_for(size_t ops, size_t parts) {
  const size_t entry_building = 4 * (8 * ops + 64) + 3 * 4 * ops + 32 * parts;  // lay_out_partitions
  return SearchArena<M>::bytes_for(ops, parts) + parts * (sizeof(PartitionLayout) + sizeof(PartitionSearch<M>)) +
         VisitedSet<typename M::State>::first_fill_bytes((ops + 63) / 64) + entry_building + 256;
}

// Checks a whole history: partitions it, interleaves the partitions' searches round-robin, and
// stops at the first violation or when the budget runs out. Its working memory comes from
// `memory`, which must outlive the call; without one, from an arena of its own.
template <Model M>
CheckResult check_linearizable(M& model, std::span<const Operation<typename M::Op>> ops,
                               const SearchOptions& options = {}, std::pmr::memory_resource* memory = nullptr) {
  if constexpr (requires { model.set_partitioned(true); }) model.set_partitioned(options.partition);
  std::optional<ArenaResource> own;
  if (memory == nullptr) {
    memory = &own.emplace(search_bytes_for<M>(ops.size(), options.partition ? model.partition_count() : 1));
  }
  SearchArena<M> arena(memory);
  const std::pmr::vector<PartitionLayout> parts =
      lay_out_partitions(model, ops, options.partition, options.replay_sequential, arena, memory);
  CheckResult result;
  result.partitions.reserve(parts.size());
  size_t cache_bytes_used = 0;
  typename VisitedSet<typename M::State>::Spare spare_memo(memory);  // outlives the searches
  // Each constructed with `memory` (uses-allocator construction: PartitionSearch::allocator_type).
  std::pmr::vector<PartitionSearch<M>> searches(parts.size(), memory);
  for (size_t i = 0; i < parts.size(); ++i) {
    searches[i].init(model, arena, parts[i], options, &cache_bytes_used, &spare_memo);
    std::string name = options.partition ? std::string(model.partition_name(parts[i].partition)) : "all operations";
    result.partitions.push_back(PartitionStats{std::move(name), parts[i].ops, 0, Verdict::kUnknown});
  }
  using Progress = typename PartitionSearch<M>::Progress;
  size_t running = searches.size();
  const uint64_t quantum = std::max<uint64_t>(1, options.quantum_steps);
  while (running > 0) {
    for (size_t i = 0; i < searches.size(); ++i) {
      PartitionStats& stats = result.partitions[i];
      if (stats.verdict != Verdict::kUnknown) continue;
      if (result.steps >= options.step_budget) {
        result.verdict = Verdict::kUnknown;
        result.unknown_reason = "step budget of " + std::to_string(options.step_budget) + " exhausted";
        return result;
      }
      if (model.resources_exhausted()) {
        result.verdict = Verdict::kUnknown;
        result.unknown_reason = "the model's memory bound was reached";
        return result;
      }
      const uint64_t before = searches[i].steps();
      const Progress p = searches[i].run(std::min(quantum, options.step_budget - result.steps));
      stats.steps = searches[i].steps();
      result.steps += stats.steps - before;
      if (p == Progress::kViolation) {
        stats.verdict = Verdict::kViolation;
        result.verdict = Verdict::kViolation;
        result.counterexample = searches[i].counterexample(stats.name);
        return result;
      }
      if (p == Progress::kLinearizable) {
        stats.verdict = Verdict::kLinearizable;
        searches[i].release();  // frees its memo
        --running;
      }
    }
  }
  result.verdict = Verdict::kLinearizable;
  return result;
}

}  // namespace dst::checker
