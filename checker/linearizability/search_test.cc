// The search under the register/cas model on hand-built histories: every rule in both directions
// (a correct history passes, a minimally broken one fails), unknown outcomes, the budget, and
// determinism. Times are small integers; only their order matters.
#include <gtest/gtest.h>

#include "checker/linearizability/imported_check.h"
#include "checker/linearizability/register_model.h"
#include "history/import_jepsen.h"

namespace dst::checker {
namespace {

using Op = Operation<RegisterOp>;

Op at(int64_t call, int64_t ret, RegisterOp op) {
  static uint64_t next_id = 0;
  return Op{op, call, ret, next_id++};
}
RegisterOp R(int64_t v) { return RegisterOp::read(v); }
RegisterOp Rnil() { return RegisterOp::read(std::nullopt); }
RegisterOp W(int64_t v) { return RegisterOp::write(v); }
RegisterOp C(int64_t a, int64_t b) { return RegisterOp::cas(a, b); }

CheckResult check(const std::vector<Op>& ops, SearchOptions o = {}) {
  RegisterModel m;
  return check_linearizable(m, std::span<const Op>(ops), o);
}
Verdict verdict(const std::vector<Op>& ops, bool greedy = true) {
  SearchOptions o;
  o.greedy = greedy;
  return check(ops, o).verdict;
}

TEST(RegisterSearch, EmptyAndSequential) {
  EXPECT_EQ(verdict({}), Verdict::kLinearizable);
  EXPECT_EQ(verdict({at(0, 1, Rnil()), at(2, 3, W(1)), at(4, 5, R(1))}), Verdict::kLinearizable);
  // Initial value is nil: reading 0 first is wrong.
  EXPECT_EQ(verdict({at(0, 1, R(0))}), Verdict::kViolation);
}

TEST(RegisterSearch, ConcurrentWritesEitherOrder) {
  // w1 and w2 overlap; a later read may see either, but two later reads cannot flip back.
  for (int64_t seen : {1, 2}) {
    EXPECT_EQ(verdict({at(0, 10, W(1)), at(1, 11, W(2)), at(12, 13, R(seen))}), Verdict::kLinearizable);
  }
  EXPECT_EQ(verdict({at(0, 10, W(1)), at(1, 11, W(2)), at(12, 13, R(1)), at(14, 15, R(2))}), Verdict::kViolation);
  EXPECT_EQ(verdict({at(0, 10, W(1)), at(1, 11, W(2)), at(12, 13, R(3))}), Verdict::kViolation);
}

TEST(RegisterSearch, ReadConcurrentWithWriteMaySeeOldOrNew) {
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, 10, W(2)), at(3, 4, R(1)), at(5, 6, R(2))}), Verdict::kLinearizable);
  // ...but not new then old.
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, 10, W(2)), at(3, 4, R(2)), at(5, 6, R(1))}), Verdict::kViolation);
}

TEST(RegisterSearch, StaleRead) {
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, 3, W(2)), at(4, 5, R(2))}), Verdict::kLinearizable);
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, 3, W(2)), at(4, 5, R(1))}), Verdict::kViolation);
}

TEST(RegisterSearch, CasSemantics) {
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, 3, C(1, 2)), at(4, 5, R(2))}), Verdict::kLinearizable);
  // A successful cas needs the expected value.
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, 3, C(3, 2))}), Verdict::kViolation);
  // cas on nil never succeeds.
  EXPECT_EQ(verdict({at(0, 1, C(0, 1))}), Verdict::kViolation);
  // Two successful cas from the same value cannot both happen...
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, 5, C(1, 2)), at(3, 6, C(1, 3))}), Verdict::kViolation);
  // ...unless a write in between restores it.
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, 9, C(1, 2)), at(3, 9, W(1)), at(4, 9, C(1, 3))}), Verdict::kLinearizable);
}

TEST(RegisterSearch, UnknownOutcomeMayHaveHappened) {
  // The write's outcome is unknown; a later read of 5 means it happened.
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, kNeverReturns, W(5)), at(3, 4, R(5))}), Verdict::kLinearizable);
  // ...and it may also never happen.
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, kNeverReturns, W(5)), at(3, 4, R(1))}), Verdict::kLinearizable);
  // It may take effect late, after reads that did not see it.
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, kNeverReturns, W(5)), at(3, 4, R(1)), at(10, 11, R(5))}),
            Verdict::kLinearizable);
  // But not before its invocation.
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, 3, R(5)), at(4, kNeverReturns, W(5))}), Verdict::kViolation);
  // And it takes effect at most once: 5, then 1, then 5 again needs a second write of 5.
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, kNeverReturns, W(5)), at(3, 4, R(5)), at(5, 6, W(1)), at(7, 8, R(5))}),
            Verdict::kViolation);
}

TEST(RegisterSearch, UnknownCasMustHaveHappened) {
  EXPECT_EQ(verdict({at(0, 1, W(1)), at(2, kNeverReturns, C(1, 7)), at(3, 4, R(7))}), Verdict::kLinearizable);
  EXPECT_EQ(verdict({at(0, 1, W(2)), at(2, kNeverReturns, C(1, 7)), at(3, 4, R(7))}), Verdict::kViolation);
}

TEST(RegisterSearch, GreedyAndPlainAgree) {
  std::vector<std::vector<Op>> cases = {
      {at(0, 10, W(1)), at(1, 11, W(2)), at(2, 12, R(1)), at(3, 13, R(2)), at(14, 15, R(2))},
      {at(0, 10, W(1)), at(1, 11, W(2)), at(2, 12, R(2)), at(3, 13, R(1)), at(14, 15, R(2))},
      {at(0, 5, W(1)), at(1, 6, C(1, 2)), at(2, 7, W(1)), at(3, 8, R(1)), at(9, 10, R(2))},
  };
  for (const auto& c : cases) EXPECT_EQ(verdict(c, true), verdict(c, false));
}

// Sequential histories are replayed, not searched; the search must agree. Also the near misses
// that are not sequential: a tie between a return and the next call, an unknown outcome.
TEST(RegisterSearch, SequentialReplayAgreesWithTheSearch) {
  const std::vector<std::vector<Op>> histories = {
      {at(0, 1, W(1)), at(2, 3, C(1, 2)), at(4, 5, R(2))},
      {at(0, 1, W(1)), at(2, 3, C(2, 3)), at(4, 5, R(1))},  // a cas recorded as done must apply
      {at(0, 1, W(1)), at(2, 3, W(2)), at(4, 5, R(1))},     // stale read
      {at(0, 1, W(1)), at(1, 3, W(2)), at(3, 5, R(1))},     // ties: concurrent, so legal
      {at(0, 1, W(1)), at(2, kNeverReturns, W(2)), at(4, 5, R(1))},  // unknown: maybe never
      {at(0, 1, Rnil()), at(2, 3, R(0))},
  };
  const Verdict expected[] = {Verdict::kLinearizable, Verdict::kViolation,    Verdict::kViolation,
                              Verdict::kLinearizable, Verdict::kLinearizable, Verdict::kViolation};
  for (size_t i = 0; i < histories.size(); ++i) {
    SearchOptions searched;
    searched.replay_sequential = false;
    const CheckResult a = check(histories[i]), b = check(histories[i], searched);
    EXPECT_EQ(a.verdict, expected[i]) << "history " << i;
    EXPECT_EQ(b.verdict, expected[i]) << "history " << i;
    ASSERT_EQ(a.counterexample.has_value(), b.counterexample.has_value());
    if (!a.counterexample) continue;
    EXPECT_EQ(a.counterexample->prefix_length, b.counterexample->prefix_length) << "history " << i;
    EXPECT_EQ(a.counterexample->state_after_prefix, b.counterexample->state_after_prefix) << "history " << i;
    ASSERT_EQ(a.counterexample->unplaced.size(), 1u) << "history " << i;
    ASSERT_EQ(b.counterexample->unplaced.size(), 1u) << "history " << i;
    EXPECT_EQ(a.counterexample->unplaced[0].id, b.counterexample->unplaced[0].id) << "history " << i;
    EXPECT_EQ(a.counterexample->unplaced[0].note, b.counterexample->unplaced[0].note) << "history " << i;
  }
}

// Many overlapping writes of distinct values, each read back: hard for a search without memo.
std::vector<Op> hard_history(int writers) {
  std::vector<Op> ops;
  for (int i = 0; i < writers; ++i) ops.push_back(at(i, 1000 + i, W(i)));
  for (int i = 0; i < writers; ++i) ops.push_back(at(500 + i, 2000 + i, R(i)));
  ops.push_back(at(3000, 3001, R(writers + 1)));  // impossible: forces the full search
  return ops;
}

TEST(RegisterSearch, BudgetExhaustionIsUnknown) {
  SearchOptions o;
  o.step_budget = 100;
  const CheckResult r = check(hard_history(12), o);
  EXPECT_EQ(r.verdict, Verdict::kUnknown);
  EXPECT_LE(r.steps, 100u + 64);
  EXPECT_FALSE(r.unknown_reason.empty());
  EXPECT_FALSE(r.counterexample.has_value());
}

TEST(RegisterSearch, DeterministicStepsAndCounterexample) {
  const std::vector<Op> ops = hard_history(8);
  const CheckResult a = check(ops);
  const CheckResult b = check(ops);
  EXPECT_EQ(a.verdict, Verdict::kViolation);
  EXPECT_EQ(a.steps, b.steps);
  ASSERT_TRUE(a.counterexample && b.counterexample);
  EXPECT_EQ(a.counterexample->prefix_length, b.counterexample->prefix_length);
  ASSERT_EQ(a.counterexample->unplaced.size(), b.counterexample->unplaced.size());
  for (size_t i = 0; i < a.counterexample->unplaced.size(); ++i) {
    EXPECT_EQ(a.counterexample->unplaced[i].id, b.counterexample->unplaced[i].id);
  }
}

TEST(RegisterSearch, CounterexampleNamesTheStaleRead) {
  const std::vector<Op> ops = {at(0, 1, W(1)), at(2, 3, W(2)), at(4, 5, R(1))};
  const CheckResult r = check(ops);
  ASSERT_EQ(r.verdict, Verdict::kViolation);
  ASSERT_TRUE(r.counterexample);
  EXPECT_EQ(r.counterexample->prefix_length, 2u);
  EXPECT_EQ(r.counterexample->state_after_prefix, "2");
  ASSERT_EQ(r.counterexample->unplaced.size(), 1u);
  EXPECT_EQ(r.counterexample->unplaced[0].id, ops[2].id);
  EXPECT_EQ(r.counterexample->unplaced[0].what, "read -> 1");
}

// Jepsen text end to end: :fail is a no-op, :info may or may not have happened.
const char* kJepsenOk =
    "{:type :invoke, :f :write, :value 1, :process 0, :time 10}\n"
    "{:type :ok, :f :write, :value 1, :process 0, :time 20}\n"
    "{:type :invoke, :f :cas, :value [2 3], :process 1, :time 30}\n"
    "{:type :fail, :f :cas, :value [2 3], :process 1, :time 40}\n"
    "{:type :invoke, :f :write, :value 4, :process 2, :time 50}\n"
    "{:type :info, :f :write, :value 4, :process 2, :time 60}\n"
    "{:type :invoke, :f :read, :value nil, :process 0, :time 70}\n"
    "{:type :ok, :f :read, :value 4, :process 0, :time 80}\n"
    "{:process :nemesis, :type :info, :f :start, :value nil}\n"
    "{:type :invoke, :f :cas, :value [4 5], :process 1, :time 90}\n"
    "{:type :ok, :f :cas, :value [4 5], :process 1, :time 95}\n"
    "{:type :invoke, :f :read, :value nil, :process 0, :time 100}\n"
    "{:type :ok, :f :read, :value 5, :process 0, :time 110}\n";

TEST(JepsenRegister, FailIsNoOpInfoMayHappen) {
  auto h = history::import_jepsen(kJepsenOk, "ok.edn");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  auto r = check_imported(*h, ImportedModel::kRegister);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->verdict, Verdict::kLinearizable);
  // If the failed cas [2 3] had counted, or the read had seen 3, it would not be linearizable.
  std::string bad = kJepsenOk;
  bad.replace(bad.find(":value 5, :process 0, :time 110"), 8, ":value 3");
  auto hb = history::import_jepsen(bad, "bad.edn");
  ASSERT_TRUE(hb.is_ok()) << hb.status().to_string();
  auto rb = check_imported(*hb, ImportedModel::kRegister);
  ASSERT_TRUE(rb.is_ok());
  EXPECT_EQ(rb->verdict, Verdict::kViolation);
  const std::string report = format_check_report(*hb, *rb);
  EXPECT_NE(report.find("line 12-13"), std::string::npos) << report;
}

TEST(JepsenRegister, WrongModelIsBadInput) {
  auto h = history::import_jepsen(kJepsenOk, "ok.edn");
  ASSERT_TRUE(h.is_ok());
  auto r = check_imported(*h, ImportedModel::kKv);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("ok.edn:1:"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace dst::checker
