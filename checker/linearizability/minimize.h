// Counterexample minimisation: after check_linearizable found a violation, the smallest set of
// operations that cannot be ordered (issue 5), generic over the Model concept of search.h.
//
// Soundness. A sub-history being non-linearizable does not in general prove the original is (drop
// the write before a read and the read becomes impossible). So the minimiser only ever applies
// WEAKENINGS: changes W -> W' such that "W linearizable => W' linearizable". Then "W' NOT
// linearizable" proves "W NOT linearizable", and by induction a weakened history that a check
// finds non-linearizable proves the original is not. The weakenings used:
//
// (0) Keeping only the failing partition's operations: the model declares its partitions
//     independent (that is what partition_of means to the search), so a linearization of the
//     history restricted to one partition is the original one restricted to it.
// (1) Dropping a read-only operation (model.is_read_only: step(s, op) is s or nullopt for every s):
//     remove it from a linearization of W and every remaining step sees the same state, and the
//     real-time order among the rest is unchanged.
// (2) Turning any operation into unknown outcome (ret = kNeverReturns): a linearization of W is one
//     of W' (an unknown operation may take effect at any time after its call, which its place in
//     the linearization is, and fewer real-time constraints remain). Dropping an unknown read-only
//     operation is (1).
// (3) The time cut at T: keep the operations called at or before T, turn those still running at T
//     (ret > T) into unknown outcome, dropping the read-only ones among them. Take a linearization
//     of W and cut it just before its first operation called after T: every operation that
//     returned by T precedes every operation called after T in real time, so it is in the cut;
//     the rest of the cut were running at T and are unknown (or read-only and dropped, by (1)).
// (4) Dropping a write nobody reads, for models that tell effect_value/observed_value (a register):
//     an operation w that leaves value x (a write of x, a cas to x) when no other operation needs
//     the state to be x (no read of x, no cas from x). In a linearization of W, every operation
//     between w and the next plain write would see x; none can (each needs another value), so
//     nothing lies between them, and removing w changes no step. Like every weakening it is kept
//     only if the re-check still shows NOT linearizable; tried for all such writes at once, then
//     by halves: on a long run most writes were overwritten unread, and one re-check drops them.
//
// Monotonicity, used twice: a weakening of a linearizable history is linearizable. So (a) the cut
// is monotone in T (the cut at T' < T is the cut at T' of the cut at T), and the smallest T whose
// cut is not linearizable can be found by binary search; (b) once weakening x was found to make
// the history linearizable, it still does after other operations are weakened, so one pass over
// the single operations decides 1-minimality.
//
// And one fact the other way round: dropping an operation with unknown outcome from a history that
// is NOT linearizable leaves it NOT linearizable (a linearization without it would be one of the
// history with it: the operation never took effect). It is never used to prove anything; it is why
// the final cut at the core's last return needs no new proof (see finish()).
//
// The algorithm: restrict to the failing partition (0), found by a partitioned check if the
// original check ran unpartitioned; drop the writes nobody reads (4); binary-search the smallest
// cut (3); drop the definite reads (1) in chunks, halving their size (ddmin-like: a violation
// usually involves a handful of operations, so big chunks go first); (4) again; weaken the
// remaining definite operations (1)/(2) in chunks; (4) again; then each one singly; (4) again. A
// weakening is kept only when the re-check says NOT linearizable; a re-check that runs out of its
// step budget is "not shown" and the operation stays. All re-checks share a total budget; when it
// runs out, what was shown so far is the result, marked as not 1-minimal.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "base/assert.h"
#include "base/limits.h"
#include "checker/linearizability/search.h"
#include "checker/linearizability/verdict.h"

namespace dst::checker {

struct MinimizeOptions {
  // As the original check ran (partitioning, greedy, quantum, memo size); step_budget is replaced
  // by the budgets below.
  SearchOptions search;
  uint64_t steps_budget = 0;        // all re-checks together; 0: derived from the original check
  uint64_t check_steps_budget = 0;  // one re-check; 0: derived from the failing partition's steps
};

namespace minimize_detail {

enum class Fate : uint8_t {
  kDefinite,  // as recorded
  kUnknown,   // outcome unknown: in the history already, or weakened by (2)/(3)
  kDropped,   // left out: read-only (1), or called after the cut (3)
};

enum class Shown : uint8_t { kViolation, kLinearizable, kUndecided };

}  // namespace minimize_detail

// The minimiser of one violation. make_model() returns a fresh model for each re-check (a model
// may serve one search only, as KvModel does); the operations must be what `original` checked.
template <typename MakeModel, typename M = std::invoke_result_t<MakeModel&>>
  requires Model<M>
class Minimizer {
 public:
  using Op = typename M::Op;
  using Fate = minimize_detail::Fate;
  using Shown = minimize_detail::Shown;

  Minimizer(MakeModel& make_model, std::span<const Operation<Op>> ops, const CheckResult& original,
            const MinimizeOptions& options)
      : make_(make_model), probe_(make_model()), all_(ops), original_(original), options_(options) {}

  // nullopt when `original` is no violation, or the failing partition alone could not be shown
  // NOT linearizable within the budgets (then there is nothing proven to report).
  std::optional<MinimalCounterexample> run() {
    if (original_.verdict != Verdict::kViolation || !original_.counterexample) return std::nullopt;
    set_budgets();
    if (!locate_partition()) return std::nullopt;
    select_partition();
    if (items_.empty()) return std::nullopt;
    // (0): the failing partition alone is NOT linearizable: the partitioned check (the original,
    // or locate_partition's) decided it on its own. initial_fates only drops operations with
    // unknown outcome, which keeps it so (the fact above): no re-check needed.
    std::vector<Fate> fates = drop_unobserved(initial_fates());
    fates = binary_search_cut(fates);
    fates = drop_unobserved(weaken_in_chunks(fates, /*reads_only=*/true));
    fates = drop_unobserved(weaken_in_chunks(fates, /*reads_only=*/false));
    fates = drop_unobserved(weaken_singly(fates));  // last: the weakened writes nothing reads now
    return finish(fates);
  }

 private:
  struct Item {
    uint32_t src = 0;  // index into all_
    bool read_only = false;
  };

  const Operation<Op>& op_of(size_t item) const { return all_[items_[item].src]; }

  // The failing partition's name, and whether the re-checks partition. A check run without
  // partitioning (for comparison) names none: a partitioned check of the whole history finds it,
  // sound by (0) (the model declares its partitions independent; locality of linearizability), and
  // every later re-check is then as small as one partition. If that check does not find a
  // violation in time, the minimiser works on the whole history unpartitioned, as the check did.
  // False if the budget ran out before anything was shown.
  bool locate_partition() {
    search_ = options_.search;
    failing_ = original_.counterexample->partition;
    if (search_.partition || probe_.partition_count() <= 1) return true;
    SearchOptions o = search_;
    o.partition = true;
    o.step_budget = std::min(check_budget(), total_budget_);
    M model = make_();
    const CheckResult r = check_linearizable(model, all_, o);
    steps_ += r.steps;
    ++checks_;
    if (r.verdict == Verdict::kViolation) {
      search_.partition = true;
      failing_ = r.counterexample->partition;
    }
    return steps_ < total_budget_;
  }

  // The operations of the failing partition (all of them without partitioning), by call time.
  // Partitions are matched by name: two partitions with one name are both kept, still sound by
  // (0) since their union's linearizations are the original's restricted to it.
  void select_partition() {
    std::map<uint32_t, bool> matches;  // partition -> its name is the failing one's
    for (size_t i = 0; i < all_.size(); ++i) {
      bool in = true;
      if (search_.partition) {
        const uint32_t p = probe_.partition_of(all_[i].op);
        auto it = matches.find(p);
        if (it == matches.end()) it = matches.emplace(p, std::string(probe_.partition_name(p)) == failing_).first;
        in = it->second;
      }
      if (in) items_.push_back(Item{static_cast<uint32_t>(i), probe_.is_read_only(all_[i].op)});
    }
    std::stable_sort(items_.begin(), items_.end(),
                     [&](const Item& a, const Item& b) { return all_[a.src].call < all_[b.src].call; });
  }

  // One re-check's budget: what the user gave, else a multiple of what the last violation shown
  // took (at first, the failing partition's own check). A weakening whose proof would take many
  // times that is not worth its steps, and one hard weakening cannot spend the whole budget: it
  // counts as undecided, the operation stays, and the result says it is not shown 1-minimal.
  uint64_t check_budget() const {
    if (options_.check_steps_budget != 0) return options_.check_steps_budget;
    return std::max(limits::kMinimizeCheckStepsFloor, limits::kMinimizeProofStepsFactor * proof_steps_);
  }

  // The whole history's steps and size scale the total (an explanation should cost about as much
  // as reading and deciding did: limits.h); the failing partition's steps the first re-check's.
  void set_budgets() {
    uint64_t partition_steps = 0;
    for (const PartitionStats& p : original_.partitions) {
      if (p.name == original_.counterexample->partition) partition_steps = std::max(partition_steps, p.steps);
    }
    total_budget_ = options_.steps_budget != 0
                        ? options_.steps_budget
                        : std::max(limits::kMinimizeStepsFloor, limits::kMinimizeStepsFactor * original_.steps +
                                                                    limits::kMinimizeStepsPerOp * all_.size());
    DST_ASSERT_GT(total_budget_, 0u);
    proof_steps_ = partition_steps;
  }

  // As recorded, except that read-only operations with unknown outcome are dropped (1): they
  // cannot constrain anything.
  std::vector<Fate> initial_fates() const {
    std::vector<Fate> f(items_.size(), Fate::kDefinite);
    for (size_t i = 0; i < items_.size(); ++i) {
      if (op_of(i).ret == kNeverReturns) f[i] = items_[i].read_only ? Fate::kDropped : Fate::kUnknown;
    }
    return f;
  }

  static constexpr bool kTellsValues = requires(const M& m, const Op& op) {
    { m.effect_value(op) } -> std::same_as<std::optional<int64_t>>;
    { m.observed_value(op) } -> std::same_as<std::optional<int64_t>>;
  };

  // Weakening (4) of the writes whose value nothing in `f` reads, all at once, then by halves down
  // to single ones: each kept only when the re-check still shows NOT linearizable (a weakening can
  // make the history linearizable: a write of 2 nobody reads is what makes a later read of 1
  // stale). On a long run most writes were overwritten unread, and one re-check drops them all.
  std::vector<Fate> drop_unobserved(std::vector<Fate> f) {
    if constexpr (kTellsValues) {
      std::set<int64_t> observed;
      for (size_t i = 0; i < items_.size(); ++i) {
        if (f[i] == Fate::kDropped) continue;
        if (const std::optional<int64_t> v = probe_.observed_value(op_of(i).op)) observed.insert(*v);
      }
      std::vector<size_t> candidates;
      for (size_t i = 0; i < items_.size(); ++i) {
        const std::optional<int64_t> v = f[i] == Fate::kDropped ? std::nullopt : probe_.effect_value(op_of(i).op);
        if (v && observed.count(*v) == 0) candidates.push_back(i);
      }
      // All of them, then halves, quarters, ... down to single writes; each chunk of those not
      // dropped yet. Dropping shrinks the re-checks, so even the single ones are cheap.
      std::vector<bool> gone(candidates.size(), false);
      for (size_t size = candidates.size(); size >= 1 && !out_of_budget_; size /= 2) {
        for (size_t begin = 0; begin < candidates.size() && !out_of_budget_; begin += size) {
          std::vector<Fate> g = f;
          size_t fresh = 0;
          for (size_t k = begin; k < std::min(begin + size, candidates.size()); ++k) {
            if (gone[k]) continue;
            g[candidates[k]] = Fate::kDropped;
            ++fresh;
          }
          if (fresh == 0 || test(g) != Shown::kViolation) continue;
          f = std::move(g);
          for (size_t k = begin; k < std::min(begin + size, candidates.size()); ++k) {
            if (!gone[k]) unobserved_.push_back(candidates[k]);
            gone[k] = true;
          }
        }
      }
    }
    return f;
  }

  // Weakening (1) or (2) of one definite operation.
  Fate weakened(size_t item) const { return items_[item].read_only ? Fate::kDropped : Fate::kUnknown; }

  // The time cut (3) at t applied to `f`.
  std::vector<Fate> cut_at(std::vector<Fate> f, int64_t t) const {
    for (size_t i = 0; i < items_.size(); ++i) {
      if (op_of(i).call > t) f[i] = Fate::kDropped;
      else if (f[i] == Fate::kDefinite && op_of(i).ret > t) f[i] = weakened(i);
    }
    return f;
  }

  // Checks the history `f` describes. Undecided when the check's budget, the total budget or the
  // model's memory bound ran out: only kViolation ever lets a weakening stand.
  Shown test(const std::vector<Fate>& f) {
    DST_ASSERT_EQ(f.size(), items_.size());
    if (steps_ >= total_budget_) {
      out_of_budget_ = true;
      return Shown::kUndecided;
    }
    std::vector<Operation<Op>> h;
    for (size_t i = 0; i < items_.size(); ++i) {
      if (f[i] == Fate::kDropped) continue;
      DST_ASSERT(f[i] == Fate::kUnknown || op_of(i).ret != kNeverReturns);
      DST_ASSERT(!(f[i] == Fate::kUnknown && items_[i].read_only));  // (1) drops those
      h.push_back(op_of(i));
      if (f[i] == Fate::kUnknown) h.back().ret = kNeverReturns;
    }
    SearchOptions o = search_;
    o.step_budget = std::min(check_budget(), total_budget_ - steps_);
    M model = make_();
    const CheckResult r = check_linearizable(model, std::span<const Operation<Op>>(h), o);
    steps_ += r.steps;
    ++checks_;
    if (r.verdict == Verdict::kViolation) {
      proof_steps_ = r.steps;
      return Shown::kViolation;
    }
    if (r.verdict == Verdict::kLinearizable) return Shown::kLinearizable;
    if (steps_ >= total_budget_) out_of_budget_ = true;
    return Shown::kUndecided;
  }

  // The smallest cut time (a definite operation's return: between two returns the cut only gains
  // unknown operations, which never make a history non-linearizable) whose cut is shown NOT
  // linearizable. The largest return's cut is the partition without the unknown operations called
  // after every return, shown NOT linearizable by the fact above. Monotone by (a), so a binary
  // search; an undecided test counts as "not shown" and moves the search later, which keeps the
  // invariant that the cut at returns[hi] was shown.
  std::vector<Fate> binary_search_cut(const std::vector<Fate>& f) {
    std::vector<int64_t> returns;
    for (size_t i = 0; i < items_.size(); ++i) {
      if (f[i] == Fate::kDefinite) returns.push_back(op_of(i).ret);
    }
    DST_ASSERT_MSG(!returns.empty(), "a history without definite operations is linearizable");
    std::sort(returns.begin(), returns.end());
    returns.erase(std::unique(returns.begin(), returns.end()), returns.end());
    size_t lo = 0, hi = returns.size() - 1;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (test(cut_at(f, returns[mid])) == Shown::kViolation) hi = mid;
      else lo = mid + 1;
    }
    return cut_at(f, returns[hi]);
  }

  std::vector<size_t> definite_items(const std::vector<Fate>& f, bool read_only_only = false) const {
    std::vector<size_t> d;
    for (size_t i = 0; i < items_.size(); ++i) {
      if (f[i] == Fate::kDefinite && (!read_only_only || items_[i].read_only)) d.push_back(i);
    }
    return d;
  }

  // ddmin's reduction phase without its complements: chunks of half the definite operations, then
  // quarters, ... down to pairs; a chunk whose weakening is still shown NOT linearizable is
  // weakened for good. Only an optimisation: weaken_singly decides 1-minimality on its own.
  // `reads_only` first: dropping reads makes every re-check smaller, where turning writes into
  // unknown outcome makes it larger; and the writes they read become droppable by (4).
  std::vector<Fate> weaken_in_chunks(std::vector<Fate> f, bool reads_only) {
    for (size_t size = definite_items(f, reads_only).size() / 2; size >= 2; size /= 2) {
      const std::vector<size_t> d = definite_items(f, reads_only);
      for (size_t begin = 0; begin + size <= d.size() && !out_of_budget_; begin += size) {
        std::vector<Fate> g = f;
        for (size_t k = begin; k < begin + size; ++k) g[d[k]] = weakened(d[k]);
        if (test(g) == Shown::kViolation) f = std::move(g);
      }
    }
    return f;
  }

  // Each remaining definite operation in turn. By (b) an operation whose weakening was shown
  // linearizable stays necessary however many others are weakened after it, so after one pass
  // with every test decided the result is 1-minimal.
  std::vector<Fate> weaken_singly(std::vector<Fate> f) {
    for (size_t i : definite_items(f)) {
      std::vector<Fate> g = f;
      g[i] = weakened(i);
      const Shown s = out_of_budget_ ? Shown::kUndecided : test(g);
      if (s == Shown::kViolation) f = std::move(g);
      else if (s == Shown::kUndecided) ++undecided_;
    }
    return f;
  }

  // The final cut at the core's last return drops only unknown operations called after it (every
  // definite one returned by then). They come after every definite operation in any order, so they
  // change neither the verdict of the result nor that of its single weakenings: no new proof is
  // needed, and the re-check below only asserts it.
  MinimalCounterexample finish(std::vector<Fate> f) {
    MinimalCounterexample m;
    m.partition = failing_;
    m.partition_ops = items_.size();
    const std::vector<size_t> core = definite_items(f);
    DST_ASSERT_MSG(!core.empty(), "a history without definite operations is linearizable");
    int64_t last_return = op_of(core.front()).ret;
    for (size_t i : core) last_return = std::max(last_return, op_of(i).ret);
    for (size_t i = 0; i < items_.size(); ++i) {
      if (op_of(i).call > last_return) {
        DST_ASSERT(f[i] != Fate::kDefinite);
        f[i] = Fate::kDropped;
      }
    }
    // Decided before the final re-check, which proves nothing new (its running out changes nothing).
    const bool budget_ran_out = out_of_budget_;
    if (!budget_ran_out) {
      const Shown final_check = test(f);
      DST_ASSERT_MSG(final_check != Shown::kLinearizable, "the minimised counterexample must stay NOT linearizable");
    }
    m.cut_time = last_return;
    for (size_t i = 0; i < items_.size(); ++i) {
      if (f[i] == Fate::kDefinite) m.core.push_back(describe(i, ""));
      if (f[i] != Fate::kUnknown) continue;
      const bool was_definite = op_of(i).ret != kNeverReturns;
      m.weakened += was_definite;
      m.may_have_happened.push_back(
          describe(i, was_definite ? "returned; taken as may or may not have happened" : "outcome unknown"));
    }
    std::sort(unobserved_.begin(), unobserved_.end());
    for (size_t i : unobserved_) m.unobserved.push_back(op_of(i).id);
    m.one_minimal = !budget_ran_out && undecided_ == 0;
    if (budget_ran_out) {
      m.cut_short = "the minimisation's budget of " + std::to_string(total_budget_) + " steps ran out";
    } else if (undecided_ > 0) {
      m.cut_short = std::to_string(undecided_) + " weakening(s) not decided within their budget (" +
                    (options_.check_steps_budget != 0 ? std::to_string(options_.check_steps_budget) + " steps"
                                                      : std::to_string(limits::kMinimizeProofStepsFactor) +
                                                            "x the steps of the last proof") + ")";
    }
    m.steps = steps_;
    m.checks = checks_;
    return m;
  }

  CounterexampleOp describe(size_t item, std::string note) const {
    const Operation<Op>& o = op_of(item);
    CounterexampleOp c;
    c.id = o.id;
    c.what = probe_.describe_op(o.op);
    c.call = o.call;
    c.ret = o.ret;
    c.note = std::move(note);
    return c;
  }

  MakeModel& make_;
  const M probe_;  // never searched: partition names, read-only tests and descriptions
  std::span<const Operation<Op>> all_;
  const CheckResult& original_;
  const MinimizeOptions options_;
  SearchOptions search_;  // the re-checks' (step_budget set per check)
  std::string failing_;   // the failing partition's name
  std::vector<Item> items_;
  std::vector<size_t> unobserved_;  // items dropped by weakening (4)
  uint64_t total_budget_ = 0;
  uint64_t steps_ = 0;
  uint64_t proof_steps_ = 0;  // the last re-check shown NOT linearizable took this many
  size_t checks_ = 0;
  size_t undecided_ = 0;
  bool out_of_budget_ = false;
};

// Minimises the violation `original` found in `ops`. See Minimizer.
template <typename MakeModel>
std::optional<MinimalCounterexample> minimize_counterexample(MakeModel&& make_model,
                                                             std::span<const Operation<typename std::invoke_result_t<MakeModel&>::Op>> ops,
                                                             const CheckResult& original,
                                                             const MinimizeOptions& options = {}) {
  Minimizer<std::remove_reference_t<MakeModel>> m(make_model, ops, original, options);
  return m.run();
}

}  // namespace dst::checker
