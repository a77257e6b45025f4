// The search's reduction of interchangeable unknown operations (search.h, same_effect): on random
// register histories full of timed-out writes and compare-and-sets of few values, the register
// model with same_effect and the same model without it must give the same verdict every time, and
// the reduction must never cost steps on the way to a violation's proof.
#include <gtest/gtest.h>

#include "checker/linearizability/register_model.h"
#include "checker/linearizability/search.h"
#include "sim/rng.h"

namespace dst::checker {
namespace {

using Op = Operation<RegisterOp>;

// RegisterModel without same_effect: every unknown operation is its own choice.
class PlainRegister {
 public:
  using State = RegisterState;
  using Op = RegisterOp;
  State initial_state() const { return m_.initial_state(); }
  std::optional<State> step(const State& s, const Op& op) const { return m_.step(s, op); }
  uint64_t hash_state(const State& s) const { return m_.hash_state(s); }
  bool is_read_only(const Op& op) const { return m_.is_read_only(op); }
  uint32_t partition_count() const { return 1; }
  uint32_t partition_of(const Op&) const { return 0; }
  std::string partition_name(uint32_t) const { return "register"; }
  std::string describe_op(const Op& op) const { return m_.describe_op(op); }
  std::string describe_state(const State& s) const { return m_.describe_state(s); }
  bool resources_exhausted() const { return false; }

 private:
  RegisterModel m_;
};
static_assert(Model<PlainRegister>);

// Clients one operation at a time; a third of the writes and cas time out; reads see a value
// drawn from the few there are, so some histories are linearizable and most are not.
std::vector<Op> random_history(sim::Rng& rng, size_t n, int values) {
  std::vector<Op> ops;
  std::vector<int64_t> free_at(4, 0);
  for (size_t i = 0; i < n; ++i) {
    const size_t c = rng.uniform_u64(free_at.size());
    const int64_t call = free_at[c] + rng.uniform_int(0, 3);
    const int64_t ret = call + rng.uniform_int(1, 12);
    free_at[c] = ret + 1;
    const int64_t v = rng.uniform_int(0, values - 1), w = rng.uniform_int(0, values - 1);
    const uint64_t kind = rng.uniform_u64(3);
    RegisterOp op = kind == 0 ? (rng.bernoulli(0.1) ? RegisterOp::read(std::nullopt) : RegisterOp::read(v))
                    : kind == 1 ? RegisterOp::write(v)
                                : RegisterOp::cas(v, w);
    const bool unknown = kind != 0 && rng.bernoulli(0.35);
    ops.push_back(Op{op, call, unknown ? kNeverReturns : ret, i});
  }
  std::sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.call < b.call; });
  return ops;
}

TEST(InterchangeableUnknowns, SameVerdictsWithAndWithoutTheReduction) {
  sim::Rng rng(2025);
  size_t linearizable = 0, violations = 0;
  uint64_t steps_with = 0, steps_without = 0;
  for (int round = 0; round < 600; ++round) {
    const std::vector<Op> h = random_history(rng, 8 + rng.uniform_u64(14), 2 + static_cast<int>(rng.uniform_u64(3)));
    for (bool greedy : {true, false}) {
      SearchOptions o;
      o.greedy = greedy;
      RegisterModel with;
      PlainRegister without;
      const CheckResult a = check_linearizable(with, std::span<const Op>(h), o);
      const CheckResult b = check_linearizable(without, std::span<const Op>(h), o);
      ASSERT_EQ(a.verdict, b.verdict) << "round " << round << " greedy " << greedy;
      ASSERT_NE(a.verdict, Verdict::kUnknown);
      if (a.verdict == Verdict::kViolation) {
        EXPECT_LE(a.steps, b.steps) << "round " << round;  // a proof explores a subset
        steps_with += a.steps;
        steps_without += b.steps;
      }
      (a.verdict == Verdict::kLinearizable ? linearizable : violations) += 1;
    }
  }
  // Both kinds occur, and the reduction pays on the proofs.
  EXPECT_GT(linearizable, 100u);
  EXPECT_GT(violations, 100u);
  EXPECT_LT(steps_with, steps_without);
}

// A dozen timed-out writes of two values before an impossible read: without the reduction the
// proof visits every subset of them; with it, only how many of each value took effect.
TEST(InterchangeableUnknowns, TimedOutWritesOfFewValuesAreCheap) {
  std::vector<Op> h;
  for (uint64_t i = 0; i < 14; ++i) h.push_back(Op{RegisterOp::write(static_cast<int64_t>(i % 2)), 0, kNeverReturns, i});
  h.push_back(Op{RegisterOp::write(5), 1, 2, 14});
  h.push_back(Op{RegisterOp::read(7), 3, 4, 15});  // nothing writes 7
  RegisterModel with;
  PlainRegister without;
  const CheckResult a = check_linearizable(with, std::span<const Op>(h));
  const CheckResult b = check_linearizable(without, std::span<const Op>(h));
  EXPECT_EQ(a.verdict, Verdict::kViolation);
  EXPECT_EQ(b.verdict, Verdict::kViolation);
  EXPECT_LT(a.steps * 100, b.steps) << a.steps << " vs " << b.steps;
}

}  // namespace
}  // namespace dst::checker
