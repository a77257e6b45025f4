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
// - A step budget: when it runs out the verdict is kUnknown, never a guess.
//
// Operations with unknown outcome have no return entry: they may be linearized at any point after
// their call, or never; the search succeeds once every definite operation is linearized.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/assert.h"
#include "base/limits.h"
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

// A group of operations the model can check independently (e.g. one key).
struct Partition {
  std::string name;
  std::vector<size_t> ops;  // indices into the operation list, ascending
};

// A sequential specification.
//   State: small, copyable, equality-comparable (integer-coded where possible).
//   step(s, op): the state after op if op (with its recorded output) is legal from s, else nullopt.
//     Non-const: a model may intern states as it meets them.
//   is_read_only(op): true only if step(s, op) is s or nullopt for every s (a read, a failed
//     cas): the greedy rule applies to these only. (A write of the current value leaves this
//     state unchanged but not every state: linearizing it early can be wrong.)
//   partition(ops): independent groups; one group with everything is always correct.
//   resources_exhausted(): the model's own memory bound was hit; the search stops with kUnknown.
// Optional: may_become_legal(s, target, window) -> bool: false only if no sequence of operations
//   from `window` (the calls before target's return, target among them) taken from s can make
//   target legal. The search asks it about the operation whose return comes first, and prunes.
template <typename M>
concept Model = requires(M& m, const M& cm, const typename M::State& s, const typename M::Op& op,
                         std::span<const Operation<typename M::Op>> ops) {
  requires std::copyable<typename M::State>;
  requires std::equality_comparable<typename M::State>;
  { cm.initial_state() } -> std::same_as<typename M::State>;
  { m.step(s, op) } -> std::same_as<std::optional<typename M::State>>;
  { cm.hash_state(s) } -> std::same_as<uint64_t>;
  { cm.is_read_only(op) } -> std::same_as<bool>;
  { cm.partition(ops) } -> std::same_as<std::vector<Partition>>;
  { cm.describe_op(op) } -> std::convertible_to<std::string>;
  { cm.describe_state(s) } -> std::convertible_to<std::string>;
  { cm.resources_exhausted() } -> std::same_as<bool>;
};

struct SearchOptions {
  uint64_t step_budget = limits::kCheckerStepsDefault;  // over all partitions
  bool partition = true;                                // use the model's partitions
  bool greedy = true;                                   // greedy no-op linearization
  uint64_t quantum_steps = limits::kCheckerQuantumSteps;
  size_t cache_bytes_max = limits::kCheckerCacheBytesMax;
};

inline uint64_t mix64(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The search over one partition, resumable: run(n) does up to about n more model steps.
template <Model M>
class PartitionSearch {
 public:
  using State = typename M::State;
  using Op = typename M::Op;
  enum class Progress { kRunning, kLinearizable, kViolation };

  PartitionSearch(M& model, std::span<const Operation<Op>> all, const Partition& part, const SearchOptions& options,
                  size_t* cache_bytes_used)
      : model_(model),
        greedy_(options.greedy),
        state_(model.initial_state()),
        best_state_(state_),
        visited_((part.ops.size() + 63) / 64, cache_bytes_used, options.cache_bytes_max) {
    ops_.reserve(part.ops.size());
    for (size_t i : part.ops) ops_.push_back(&all[i]);
    build_entries();
    set_.assign((ops_.size() + 63) / 64, 0);
    keys_.resize(ops_.size());
    for (size_t i = 0; i < ops_.size(); ++i) keys_[i] = mix64(0x6c696e6561726973ull ^ (i * 0x2545f4914f6cdd1dull));
  }

  Progress run(uint64_t max_steps) {
    if (done_ != Progress::kRunning) return done_;
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
      if (!is_call_[e]) {
        if (!backtrack()) return done_ = Progress::kViolation;
        continue;
      }
      ++steps_;
      std::optional<State> next = model_.step(state_, ops_[op_of_[e]]->op);
      if (next && descend(e, std::move(*next), false)) continue;
      cursor_ = next_[e];
    }
    return Progress::kRunning;
  }

  uint64_t steps() const { return steps_; }
  size_t size() const { return ops_.size(); }

  // After kViolation: the longest linearizable prefix found and what could not follow it.
  Counterexample counterexample(const std::string& name) const {
    Counterexample c;
    c.partition = name;
    c.prefix_length = best_.size();
    c.state_after_prefix = model_.describe_state(best_state_);
    std::vector<bool> in_prefix(ops_.size(), false);
    for (uint32_t i : best_) in_prefix[i] = true;
    const size_t shown = limits::kCounterexampleOpsShownMax;
    for (size_t k = best_.size() > shown ? best_.size() - shown : 0; k < best_.size(); ++k) {
      c.prefix_tail.push_back(describe(best_[k], ""));
    }
    int64_t min_ret = kNeverReturns;
    for (size_t i = 0; i < ops_.size(); ++i) {
      if (!in_prefix[i]) min_ret = std::min(min_ret, ops_[i]->ret);
    }
    // The candidates for the next place: definite operations first (by call), then unknown ones.
    std::vector<uint32_t> next_ops;
    for (uint32_t i = 0; i < ops_.size(); ++i) {
      if (!in_prefix[i] && ops_[i]->call <= min_ret) next_ops.push_back(i);
    }
    std::stable_sort(next_ops.begin(), next_ops.end(), [&](uint32_t a, uint32_t b) {
      const bool ua = ops_[a]->ret == kNeverReturns, ub = ops_[b]->ret == kNeverReturns;
      return ua != ub ? ub : ops_[a]->call < ops_[b]->call;
    });
    for (uint32_t i : next_ops) {
      if (c.unplaced.size() >= shown) break;
      std::optional<State> after = model_.step(best_state_, ops_[i]->op);
      std::string note = after ? "legal here, but no linearization continues after it" : "not legal from this state";
      if (ops_[i]->ret == min_ret && min_ret != kNeverReturns) note += "; returned first, so it must be placed here";
      c.unplaced.push_back(describe(i, note));
    }
    return c;
  }

 private:
  static constexpr uint32_t kHead = 0;
  // Return entries greedy_scan asks may_become_legal about: the first is the strongest test,
  // a few more catch a get that returns just after an append; more costs more than it prunes.
  static constexpr size_t kPruneReturnsChecked = 8;

  struct Frame {
    uint32_t entry;
    bool forced;  // linearized by the greedy rule: no alternatives to try at its node
    State before;
  };

  // Entries 1..E sorted by (time, calls before returns, op), linked in a circular list at kHead.
  void build_entries() {
    struct Raw {
      int64_t time;
      bool is_return;
      uint32_t op;
    };
    std::vector<Raw> raw;
    for (uint32_t i = 0; i < ops_.size(); ++i) {
      DST_ASSERT_LE(ops_[i]->call, ops_[i]->ret);
      raw.push_back({ops_[i]->call, false, i});
      if (ops_[i]->ret != kNeverReturns) {
        raw.push_back({ops_[i]->ret, true, i});
        ++definite_left_;
      }
    }
    std::sort(raw.begin(), raw.end(), [](const Raw& a, const Raw& b) {
      if (a.time != b.time) return a.time < b.time;
      if (a.is_return != b.is_return) return !a.is_return;
      return a.op < b.op;
    });
    const size_t n = raw.size() + 1;
    next_.resize(n);
    prev_.resize(n);
    is_call_.assign(n, false);
    op_of_.assign(n, 0);
    match_.assign(n, 0);
    std::vector<uint32_t> call_entry(ops_.size(), 0);
    for (uint32_t k = 0; k < raw.size(); ++k) {
      const uint32_t e = k + 1;
      is_call_[e] = !raw[k].is_return;
      op_of_[e] = raw[k].op;
      if (raw[k].is_return) {
        match_[call_entry[raw[k].op]] = e;
      } else {
        call_entry[raw[k].op] = e;
      }
    }
    for (uint32_t e = 0; e < n; ++e) {
      next_[e] = static_cast<uint32_t>((e + 1) % n);
      prev_[e] = static_cast<uint32_t>((e + n - 1) % n);
    }
    cursor_ = next_[kHead];
  }

  void unlink(uint32_t e) {
    next_[prev_[e]] = next_[e];
    prev_[next_[e]] = prev_[e];
  }
  void relink(uint32_t e) {
    next_[prev_[e]] = e;
    prev_[next_[e]] = e;
  }
  void toggle(uint32_t op) {
    set_[op / 64] ^= uint64_t{1} << (op % 64);
    set_hash_ ^= keys_[op];
  }

  // Linearizes call entry `e` leading to `next` unless (next, set + op) was visited.
  bool descend(uint32_t e, State next, bool forced) {
    const uint32_t op = op_of_[e];
    toggle(op);
    const uint64_t h = set_hash_ ^ mix64(model_.hash_state(next));
    if (!visited_.insert_if_absent(h, next, set_.data())) {
      toggle(op);
      return false;
    }
    stack_.push_back(Frame{e, forced, std::move(state_)});
    state_ = std::move(next);
    unlink(e);
    if (match_[e] != 0) {
      unlink(match_[e]);
      --definite_left_;
    }
    if (stack_.size() > best_.size()) note_best();
    cursor_ = next_[kHead];
    scan_pending_ = greedy_;
    return true;
  }

  // Undoes frames up to and including the innermost branching one; false if none is left.
  bool backtrack() {
    for (;;) {
      if (stack_.empty()) return false;
      Frame f = std::move(stack_.back());
      stack_.pop_back();
      diverged_ = std::min(diverged_, stack_.size());
      if (match_[f.entry] != 0) {
        relink(match_[f.entry]);
        ++definite_left_;
      }
      relink(f.entry);
      toggle(op_of_[f.entry]);
      state_ = std::move(f.before);
      if (!f.forced) {
        cursor_ = next_[f.entry];
        return true;
      }
    }
  }

  // At a fresh node: linearize the first read-only candidate that is legal;
  // and if the model can tell that the operation that must come before every other return (the
  // first return entry's) can never become legal from here, the node is dead. Returns false if
  // the search failed.
  bool greedy_scan() {
    window_.clear();
    uint32_t e = next_[kHead];
    for (; e != kHead && is_call_[e]; e = next_[e]) {
      const Op& op = ops_[op_of_[e]]->op;
      window_.push_back(&op);
      if (!model_.is_read_only(op)) continue;
      ++steps_;
      std::optional<State> next = model_.step(state_, op);
      if (!next) continue;
      DST_ASSERT_MSG(*next == state_, "is_read_only(op) but step changed the state: " + model_.describe_op(op));
      if (descend(e, std::move(*next), true)) return true;
      return backtrack();  // (S, L + op) already failed, so (S, L) fails
    }
    if constexpr (requires { model_.may_become_legal(state_, window_.front(), std::span<const Op* const>(window_)); }) {
      // The first few return entries: each one's operation must become legal after some of the
      // calls before it (window_ when we reach it).
      size_t returns_checked = 0;
      for (; e != kHead && returns_checked < kPruneReturnsChecked; e = next_[e]) {
        if (is_call_[e]) {
          window_.push_back(&ops_[op_of_[e]]->op);
          continue;
        }
        ++returns_checked;
        ++steps_;
        if (!model_.may_become_legal(state_, &ops_[op_of_[e]]->op, std::span<const Op* const>(window_))) {
          return backtrack();
        }
      }
    }
    cursor_ = next_[kHead];
    return true;
  }

  // The current stack is the longest so far: copy the part that differs from the saved one.
  void note_best() {
    best_.resize(diverged_);
    for (size_t k = diverged_; k < stack_.size(); ++k) best_.push_back(op_of_[stack_[k].entry]);
    diverged_ = stack_.size();
    best_state_ = state_;
  }

  CounterexampleOp describe(uint32_t i, std::string note) const {
    CounterexampleOp c;
    c.id = ops_[i]->id;
    c.what = model_.describe_op(ops_[i]->op);
    c.call = ops_[i]->call;
    c.ret = ops_[i]->ret;
    c.note = std::move(note);
    return c;
  }

  M& model_;
  const bool greedy_;
  std::vector<const Operation<Op>*> ops_;
  // The entry list: index 0 is the head sentinel.
  std::vector<uint32_t> next_, prev_, op_of_, match_;
  std::vector<bool> is_call_;
  uint32_t cursor_ = kHead;
  size_t definite_left_ = 0;
  // The current node.
  State state_;
  std::vector<uint64_t> set_;
  uint64_t set_hash_ = 0;
  std::vector<uint64_t> keys_;
  std::vector<Frame> stack_;
  std::vector<const Op*> window_;  // scratch for greedy_scan
  bool scan_pending_ = true;
  uint64_t steps_ = 0;
  Progress done_ = Progress::kRunning;
  // The longest prefix linearized so far (ops), valid up to diverged_ against the stack.
  std::vector<uint32_t> best_;
  size_t diverged_ = 0;
  State best_state_;
  VisitedSet<State> visited_;
};

// Checks a whole history: partitions it, interleaves the partitions' searches round-robin, and
// stops at the first violation or when the budget runs out.
template <Model M>
CheckResult check_linearizable(M& model, std::span<const Operation<typename M::Op>> ops,
                               const SearchOptions& options = {}) {
  std::vector<Partition> parts;
  if (options.partition) {
    parts = model.partition(ops);
  } else {
    Partition all{"all operations", {}};
    for (size_t i = 0; i < ops.size(); ++i) all.ops.push_back(i);
    parts.push_back(std::move(all));
  }
  CheckResult result;
  size_t cache_bytes_used = 0;
  std::vector<std::unique_ptr<PartitionSearch<M>>> searches;
  for (const Partition& p : parts) {
    searches.push_back(std::make_unique<PartitionSearch<M>>(model, ops, p, options, &cache_bytes_used));
    result.partitions.push_back(PartitionStats{p.name, p.ops.size(), 0, Verdict::kUnknown});
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
      const uint64_t before = searches[i]->steps();
      const Progress p = searches[i]->run(std::min(quantum, options.step_budget - result.steps));
      stats.steps = searches[i]->steps();
      result.steps += stats.steps - before;
      if (p == Progress::kViolation) {
        stats.verdict = Verdict::kViolation;
        result.verdict = Verdict::kViolation;
        result.counterexample = searches[i]->counterexample(stats.name);
        return result;
      }
      if (p == Progress::kLinearizable) {
        stats.verdict = Verdict::kLinearizable;
        searches[i].reset();  // frees its memo
        --running;
      }
    }
  }
  result.verdict = Verdict::kLinearizable;
  return result;
}

}  // namespace dst::checker
