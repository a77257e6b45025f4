// Counterexample minimisation (minimize.h): hand-built register histories whose minimal core is
// worked out by hand, random small histories whose reported core must re-check as NOT
// linearizable and be 1-minimal, linearizable histories left alone, the budgets, and Porcupine's
// kv logs (the core is small, NOT linearizable, and 1-minimal by trying every single weakening).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "checker/linearizability/imported_check.h"
#include "checker/linearizability/kv_model.h"
#include "checker/linearizability/minimize.h"
#include "checker/linearizability/register_model.h"
#include "history/import_porcupine.h"

namespace dst::checker {
namespace {

using Op = Operation<RegisterOp>;

// Ids are positions in the history, so expected cores are written as lists of positions.
struct Builder {
  std::vector<Op> ops;
  Builder& add(int64_t call, int64_t ret, RegisterOp op) {
    ops.push_back(Op{op, call, ret, ops.size()});
    return *this;
  }
};
constexpr int64_t kNever = kNeverReturns;
RegisterOp R(int64_t v) { return RegisterOp::read(v); }
RegisterOp Rnil() { return RegisterOp::read(std::nullopt); }
RegisterOp W(int64_t v) { return RegisterOp::write(v); }
RegisterOp C(int64_t a, int64_t b) { return RegisterOp::cas(a, b); }

auto make_register = [] { return RegisterModel{}; };

CheckResult check_register(const std::vector<Op>& ops, uint64_t budget = limits::kCheckerStepsDefault) {
  RegisterModel m;
  SearchOptions o;
  o.step_budget = budget;
  return check_linearizable(m, std::span<const Op>(ops), o);
}

std::optional<MinimalCounterexample> minimize_register(const std::vector<Op>& ops, const CheckResult& r,
                                                       MinimizeOptions o = {}) {
  return minimize_counterexample(make_register, std::span<const Op>(ops), r, o);
}

std::vector<uint64_t> ids(const std::vector<CounterexampleOp>& ops) {
  std::vector<uint64_t> v;
  for (const CounterexampleOp& op : ops) v.push_back(op.id);
  return v;
}

// The history a minimal counterexample stands for: its core as recorded, its may-have-happened
// operations with unknown outcome; `weaken_id`, if set, is weakened the way the minimiser weakens
// (read-only: dropped; else unknown outcome).
template <typename O, typename M>
std::vector<Operation<O>> rebuild(const std::vector<Operation<O>>& all, const MinimalCounterexample& m, const M& model,
                                  std::optional<uint64_t> weaken_id = std::nullopt) {
  std::map<uint64_t, const Operation<O>*> by_id;
  for (const Operation<O>& op : all) by_id[op.id] = &op;
  std::vector<Operation<O>> h;
  for (const CounterexampleOp& c : m.core) {
    const Operation<O>& op = *by_id.at(c.id);
    EXPECT_EQ(c.call, op.call);  // reported as recorded
    EXPECT_EQ(c.ret, op.ret);
    EXPECT_NE(op.ret, kNeverReturns);
    if (weaken_id == c.id && model.is_read_only(op.op)) continue;
    h.push_back(op);
    if (weaken_id == c.id) h.back().ret = kNeverReturns;
  }
  for (const CounterexampleOp& c : m.may_have_happened) {
    const Operation<O>& op = *by_id.at(c.id);
    EXPECT_FALSE(model.is_read_only(op.op)) << c.what;  // those are dropped, never kept unknown
    h.push_back(op);
    h.back().ret = kNeverReturns;
  }
  std::stable_sort(h.begin(), h.end(), [](const auto& a, const auto& b) { return a.call < b.call; });
  return h;
}

// Weakening (4): no operation the weakened history keeps needs the state `w` leaves.
template <typename O, typename M>
void expect_nothing_reads(const std::vector<Operation<O>>& all, const MinimalCounterexample& m, const M& model,
                          const Operation<O>& w, const std::string& what) {
  if constexpr (requires { model.effect_value(w.op); }) {
    const auto written = model.effect_value(w.op);
    ASSERT_TRUE(written.has_value()) << what << ": id " << w.id << " left out as unobserved but writes nothing";
    for (const auto* kept : {&m.core, &m.may_have_happened}) {
      for (const CounterexampleOp& c : *kept) {
        for (const Operation<O>& op : all) {
          if (op.id == c.id) EXPECT_NE(model.observed_value(op.op), written) << what << ": id " << c.id << " reads id " << w.id;
        }
      }
    }
  } else {
    ADD_FAILURE() << what << ": id " << w.id << " left out as unobserved by a model that cannot tell";
  }
}

// The minimal counterexample stands for a sound weakening of `all`, checked independently of the
// minimiser's bookkeeping: every operation it leaves out is read-only (1), called after the cut
// (3) or in another partition (0); the core returned by the cut; the may-have-happened operations
// were called by it.
template <typename O, typename M>
void expect_sound_weakening(const std::vector<Operation<O>>& all, const MinimalCounterexample& m, const M& model,
                            const std::string& what) {
  std::map<uint64_t, int> role;  // 1 core, 2 may have happened
  for (const CounterexampleOp& c : m.core) role[c.id] = 1;
  for (const CounterexampleOp& c : m.may_have_happened) role[c.id] = 2;
  EXPECT_EQ(role.size(), m.core.size() + m.may_have_happened.size()) << what;  // no operation twice
  for (const Operation<O>& op : all) {
    const bool here = std::string(model.partition_name(model.partition_of(op.op))) == m.partition;
    const auto it = role.find(op.id);
    if (it == role.end()) {
      const bool unobserved = std::find(m.unobserved.begin(), m.unobserved.end(), op.id) != m.unobserved.end();
      if (unobserved) expect_nothing_reads(all, m, model, op, what);
      EXPECT_TRUE(model.is_read_only(op.op) || op.call > m.cut_time || !here || unobserved) << what << ": id " << op.id;
    } else {
      EXPECT_TRUE(here) << what << ": id " << op.id;
      if (it->second == 1) EXPECT_LE(op.ret, m.cut_time) << what << ": id " << op.id;
      else EXPECT_LE(op.call, m.cut_time) << what << ": id " << op.id;
    }
  }
}

// The core re-checks as NOT linearizable, and weakening any one of its operations makes it
// linearizable (decided, not merely unknown).
template <typename O, typename MakeModel>
void expect_minimal_core(const std::vector<Operation<O>>& all, const MinimalCounterexample& m, MakeModel make,
                         const std::string& what) {
  const auto probe = make();
  expect_sound_weakening(all, m, probe, what);
  SearchOptions o;
  o.step_budget = 200'000'000;
  {
    auto model = make();
    const auto h = rebuild(all, m, probe);
    EXPECT_EQ(check_linearizable(model, std::span<const Operation<O>>(h), o).verdict, Verdict::kViolation) << what;
  }
  for (const CounterexampleOp& c : m.core) {
    auto model = make();
    const auto h = rebuild(all, m, probe, c.id);
    EXPECT_EQ(check_linearizable(model, std::span<const Operation<O>>(h), o).verdict, Verdict::kLinearizable)
        << what << ": weakening " << c.what << " (id " << c.id << ")";
  }
}

// write 1, write 2, then a read of 1 starting after both returned: every one is needed (without
// write 1 nothing wrote 1, without write 2 the read is fine, without the read nothing is wrong),
// and weakening write 1 lets it happen after write 2.
TEST(Minimize, ReadOfOverwrittenValueNeedsAllThree) {
  const std::vector<Op> ops = Builder().add(0, 1, W(1)).add(2, 3, W(2)).add(4, 5, R(1)).ops;
  const CheckResult r = check_register(ops);
  ASSERT_EQ(r.verdict, Verdict::kViolation);
  const auto m = minimize_register(ops, r);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(ids(m->core), (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_TRUE(m->may_have_happened.empty());
  EXPECT_EQ(m->weakened, 0u);
  EXPECT_TRUE(m->one_minimal) << m->cut_short;
  EXPECT_EQ(m->cut_time, 5);
  EXPECT_EQ(m->core[2].what, "read -> 1");
  expect_minimal_core(ops, *m, make_register, "w1 w2 r1");
}

// w1, w2, w3 in sequence, then read 1. Either of w2 and w3 suffices to overwrite 1: the chunks
// (w1 w2), (w3 r) both fail to weaken, then singly w1 is needed, w2 can be weakened (w3 still
// overwrites), w3 then is needed, and the read. w2 stays in the history as "may have happened":
// weakening is sound, dropping a write is not.
TEST(Minimize, OneOfTwoOverwritesIsEnough) {
  const std::vector<Op> ops = Builder().add(0, 1, W(1)).add(2, 3, W(2)).add(4, 5, W(3)).add(6, 7, R(1)).ops;
  const CheckResult r = check_register(ops);
  ASSERT_EQ(r.verdict, Verdict::kViolation);
  const auto m = minimize_register(ops, r);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(ids(m->core), (std::vector<uint64_t>{0, 2, 3}));
  // Nothing reads 2 or 3: without both the read of 1 is fine, without write 2 alone it is not.
  EXPECT_TRUE(m->may_have_happened.empty());
  EXPECT_EQ(m->unobserved, (std::vector<uint64_t>{1}));
  EXPECT_EQ(m->weakened, 0u);
  EXPECT_TRUE(m->one_minimal) << m->cut_short;
  expect_minimal_core(ops, *m, make_register, "w1 w2 w3 r1");
}

// A violation early in a long history: the time cut removes everything called after the read of 1
// returned, reads dropped and writes unknown included; the later (legal) traffic is not mentioned.
TEST(Minimize, TimeCutLeavesOutLaterOperations) {
  Builder b;
  b.add(0, 1, W(1)).add(2, 3, W(2)).add(4, 6, R(1));
  b.add(5, kNever, W(9));  // running at the cut, unknown outcome: may have happened, not a core op
  for (int64_t k = 0; k < 40; ++k) {
    const int64_t t = 10 + 4 * k;
    b.add(t, t + 1, W(100 + k)).add(t + 2, t + 3, R(100 + k));
  }
  const CheckResult r = check_register(b.ops);
  ASSERT_EQ(r.verdict, Verdict::kViolation);
  const auto m = minimize_register(b.ops, r);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(ids(m->core), (std::vector<uint64_t>{0, 1, 2}));
  // write 9 was running at the cut, but nothing reads 9: weakening (4) leaves it out. (write 2 is
  // not read either, yet without it the read of 1 is not stale: that weakening is refused.)
  EXPECT_TRUE(m->may_have_happened.empty());
  EXPECT_EQ(m->unobserved, (std::vector<uint64_t>{3}));
  EXPECT_EQ(m->weakened, 0u);
  EXPECT_EQ(m->cut_time, 6);
  EXPECT_EQ(m->partition_ops, b.ops.size());
  EXPECT_TRUE(m->one_minimal);
  expect_minimal_core(b.ops, *m, make_register, "early violation");
}

// A long run whose every write was read, then a write lost after it was acknowledged: dropping
// the reads in chunks leaves the writes unread, and weakening (4) drops them all in one re-check.
// The default budget (about twice the decision) finds the three operations, 1-minimal.
TEST(Minimize, LostWriteAfterALongRunIsThreeOperations) {
  Builder b;
  for (int64_t k = 0; k < 60; ++k) b.add(4 * k, 4 * k + 1, W(10 + k)).add(4 * k + 2, 4 * k + 3, R(10 + k));
  b.add(300, 301, W(500)).add(302, 303, W(501)).add(304, 305, R(500));
  const CheckResult r = check_register(b.ops);
  ASSERT_EQ(r.verdict, Verdict::kViolation);
  const auto m = minimize_register(b.ops, r);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(ids(m->core), (std::vector<uint64_t>{120, 121, 122}));
  EXPECT_TRUE(m->one_minimal) << m->cut_short;
  EXPECT_GE(m->unobserved.size(), 50u);
  expect_minimal_core(b.ops, *m, make_register, "lost write");
}

// An unknown write that must have happened for one read and must not have for a later one: the
// core is the three definite operations; the unknown write is stated, not a core member.
TEST(Minimize, UnknownWriteStaysAsMayHaveHappened) {
  const std::vector<Op> ops =
      Builder().add(0, 1, W(1)).add(2, kNever, W(2)).add(4, 5, R(2)).add(6, 7, R(1)).add(8, kNever, Rnil()).ops;
  const CheckResult r = check_register(ops);
  ASSERT_EQ(r.verdict, Verdict::kViolation);
  const auto m = minimize_register(ops, r);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(ids(m->core), (std::vector<uint64_t>{0, 2, 3}));
  EXPECT_EQ(ids(m->may_have_happened), (std::vector<uint64_t>{1}));
  EXPECT_EQ(m->weakened, 0u);
  EXPECT_TRUE(m->one_minimal);
  expect_minimal_core(ops, *m, make_register, "unknown write");
}

// Concurrent noise around a cas conflict: two cas 0 -> x both succeed after write 0. Reads
// and writes of other values that do not matter are weakened away.
TEST(Minimize, DoubleCasAmongNoise) {
  Builder b;
  b.add(0, 1, W(0));
  b.add(2, 5, Rnil());       // after write 0 returned: nil can no longer be read
  b.add(10, 11, C(0, 1));
  b.add(10, 12, R(0));       // concurrent with the first cas: may read before it
  b.add(13, 14, C(0, 2));    // but 0 is gone by now (nothing writes 0 again)
  b.add(15, 16, R(2));
  const CheckResult r = check_register(b.ops);
  ASSERT_EQ(r.verdict, Verdict::kViolation);
  const auto m = minimize_register(b.ops, r);
  ASSERT_TRUE(m.has_value());
  // The read of nil at 2..5 after write 0 returned at 1 is itself a violation with write 0: the
  // smallest cut (t=5) finds it first.
  EXPECT_EQ(ids(m->core), (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(m->cut_time, 5);
  expect_minimal_core(b.ops, *m, make_register, "nil after write");

  // Without that read: w0, cas 0->1, cas 0->2 in sequence; the reads are dropped.
  std::vector<Op> ops2;
  for (const Op& op : b.ops) {
    if (op.id != 1) ops2.push_back(op);
  }
  const CheckResult r2 = check_register(ops2);
  ASSERT_EQ(r2.verdict, Verdict::kViolation);
  const auto m2 = minimize_register(ops2, r2);
  ASSERT_TRUE(m2.has_value());
  // Write 0 need not even have happened for sure: with it unknown, two cas from 0 still cannot
  // both succeed (one write of 0). The read of 0 is dropped (it may precede the first cas).
  EXPECT_EQ(ids(m2->core), (std::vector<uint64_t>{2, 4}));
  EXPECT_EQ(ids(m2->may_have_happened), (std::vector<uint64_t>{0}));
  EXPECT_EQ(m2->weakened, 1u);
  EXPECT_EQ(m2->cut_time, 14);
  EXPECT_TRUE(m2->one_minimal);
  expect_minimal_core(ops2, *m2, make_register, "double cas");
}

TEST(Minimize, LinearizableHistoryIsLeftAlone) {
  const std::vector<Op> ops = Builder().add(0, 1, W(1)).add(2, 5, W(2)).add(3, 4, R(1)).add(6, 7, R(2)).ops;
  const CheckResult r = check_register(ops);
  ASSERT_EQ(r.verdict, Verdict::kLinearizable);
  EXPECT_FALSE(minimize_register(ops, r).has_value());
  // Unknown verdicts are no violation either.
  const std::vector<Op> bad = Builder().add(0, 1, W(1)).add(2, 3, W(2)).add(4, 5, R(1)).ops;
  CheckResult unknown;
  unknown.verdict = Verdict::kUnknown;
  EXPECT_FALSE(minimize_register(bad, unknown).has_value());
}

// The total budget runs out during the cut search: the result is what was shown so far (still NOT
// linearizable, re-checked here), marked as not 1-minimal. With a per-check budget too small to
// confirm the violation there is nothing to report.
TEST(Minimize, BudgetsCutItShort) {
  Builder b;
  b.add(0, 1, W(1)).add(2, 3, W(2)).add(4, 5, R(1));
  for (int64_t k = 0; k < 200; ++k) b.add(10 + 2 * k, 11 + 2 * k, k % 2 ? R(2) : W(2));
  b.add(1000, 1001, R(1));  // a second violation late
  const CheckResult r = check_register(b.ops);
  ASSERT_EQ(r.verdict, Verdict::kViolation);
  ASSERT_GE(r.steps, 2u);
  // Starved budgets: nothing weakened is shown, yet the original check proved the partition, so
  // the result is the partition as it was (every definite operation up to the last return),
  // marked as not 1-minimal, and it still re-checks as NOT linearizable.
  MinimizeOptions o;
  for (const auto& [total, one] : {std::pair<uint64_t, uint64_t>{1, 0}, {0, 1}}) {
    o.steps_budget = total;
    o.check_steps_budget = one;
    const auto starved = minimize_register(b.ops, r, o);
    ASSERT_TRUE(starved.has_value());
    EXPECT_FALSE(starved->one_minimal);
    EXPECT_GT(starved->core.size(), 100u);
    RegisterModel model;
    EXPECT_EQ(check_register(rebuild(b.ops, *starved, model)).verdict, Verdict::kViolation);
  }
  o.check_steps_budget = 0;

  // The default budgets suffice; then one about the size of the original check, which runs out.
  const auto full = minimize_register(b.ops, r);
  ASSERT_TRUE(full.has_value());
  EXPECT_TRUE(full->one_minimal);
  EXPECT_EQ(ids(full->core), (std::vector<uint64_t>{0, 1, 2}));
  o.check_steps_budget = 0;
  o.steps_budget = r.steps + 3;  // out during the cut search
  const auto m = minimize_register(b.ops, r, o);
  ASSERT_TRUE(m.has_value());
  EXPECT_FALSE(m->one_minimal);
  EXPECT_NE(m->cut_short.find("budget"), std::string::npos) << m->cut_short;
  EXPECT_LE(m->steps, o.steps_budget + 2 * b.ops.size());  // a check may overshoot its budget by a scan
  EXPECT_GE(m->core.size(), 3u);
  RegisterModel model;
  const std::vector<Op> h = rebuild(b.ops, *m, model);
  EXPECT_EQ(check_register(h).verdict, Verdict::kViolation);
}

// Random small register histories (a fixed generator: deterministic): every violation's core
// re-checks as NOT linearizable and is 1-minimal; the minimiser never reports a linearizable one.
TEST(Minimize, RandomRegisterHistories) {
  uint64_t state = 12345;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % n;
  };
  size_t violations = 0, core_total = 0, weakened_total = 0;
  for (int round = 0; round < 300; ++round) {
    Builder b;
    const size_t n = 3 + next(14);
    for (size_t i = 0; i < n; ++i) {
      const int64_t call = static_cast<int64_t>(next(30));
      const int64_t ret = next(6) == 0 ? kNever : call + 1 + static_cast<int64_t>(next(6));
      const uint64_t kind = next(5);
      const int64_t v = static_cast<int64_t>(next(3));
      b.add(call, ret, kind <= 1 ? W(v) : kind == 2 ? C(v, static_cast<int64_t>(next(3))) : next(6) == 0 ? Rnil() : R(v));
    }
    const CheckResult r = check_register(b.ops);
    ASSERT_NE(r.verdict, Verdict::kUnknown);
    MinimizeOptions thorough;  // the default budget is `dst check`'s quick one; this is about the result
    thorough.steps_budget = 5'000'000;
    const auto m = minimize_register(b.ops, r, thorough);
    ASSERT_EQ(m.has_value(), r.verdict == Verdict::kViolation) << round;
    if (!m) continue;
    ++violations;
    core_total += m->core.size();
    weakened_total += m->weakened;
    EXPECT_TRUE(m->one_minimal) << round;
    EXPECT_LE(m->core.size(), n);
    expect_minimal_core(b.ops, *m, make_register, "round " + std::to_string(round));
  }
  std::printf("random register histories: %zu violations, %zu core operations, %zu weakened writes\n", violations,
              core_total, weakened_total);
  EXPECT_GT(violations, 50u);  // the generator does produce violations to minimise
}

// --- Porcupine's kv logs -------------------------------------------------------------------

history::ImportedHistory load(const std::string& name) {
  auto h = history::import_porcupine_kv_file(std::string(DST_TESTDATA_DIR) + "/porcupine-kv/" + name + ".txt");
  EXPECT_TRUE(h.is_ok()) << h.status().to_string();
  return h.is_ok() ? *h : history::ImportedHistory{};
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

TEST(MinimizeKv, BadLogsHaveSmallMinimalCores) {
  for (const char* name : {"c01-bad", "c10-bad", "c50-bad"}) {
    const history::ImportedHistory h = load(name);
    auto t0 = std::chrono::steady_clock::now();
    auto plain = check_imported(h, ImportedModel::kKv, {}, false);
    const double check_ms = ms_since(t0);
    ASSERT_TRUE(plain.is_ok());
    ASSERT_EQ(plain->verdict, Verdict::kViolation);
    EXPECT_FALSE(plain->minimal.has_value());
    t0 = std::chrono::steady_clock::now();
    auto r = check_imported(h, ImportedModel::kKv);
    const double both_ms = ms_since(t0);
    ASSERT_TRUE(r.is_ok());
    ASSERT_TRUE(r->minimal.has_value()) << name;
    const MinimalCounterexample& m = *r->minimal;
    std::printf("%s: core of %zu operation(s) (+%zu may have happened, %zu weakened) from %zu in %s; %zu re-checks, "
                "%llu steps (the check took %llu); check %.1f ms, check + minimise %.1f ms\n",
                name, m.core.size(), m.may_have_happened.size(), m.weakened, m.partition_ops, m.partition.c_str(),
                m.checks, static_cast<unsigned long long>(m.steps), static_cast<unsigned long long>(r->steps), check_ms,
                both_ms);
    EXPECT_TRUE(m.one_minimal) << name << ": " << m.cut_short;
    EXPECT_GE(m.core.size(), 1u);
    EXPECT_LE(m.core.size(), 10u) << name;
    EXPECT_EQ(m.partition, r->counterexample->partition);
    // The same prefix counterexample as without minimisation.
    EXPECT_EQ(r->counterexample->prefix_length, plain->counterexample->prefix_length);
    // Re-check it from scratch: the core NOT linearizable, each single weakening linearizable.
    KvModel pristine;
    std::pmr::vector<Operation<KvOp>> ops;
    ASSERT_TRUE(kv_operations(h, pristine, ops).is_ok());
    const std::vector<Operation<KvOp>> all(ops.begin(), ops.end());
    expect_minimal_core(all, m, [&pristine] { return pristine; }, name);
    // The report leads with the core.
    const std::string report = format_check_report(h, *r);
    const size_t at = report.find("these " + std::to_string(m.core.size()) + " operation(s) in " + m.partition +
                                  " cannot be ordered (1-minimal: weakening any one of them makes the rest "
                                  "linearizable):\n");
    EXPECT_NE(at, std::string::npos) << report;
    EXPECT_LT(at, report.find("counterexample in")) << report;
    for (const CounterexampleOp& op : m.core) {
      EXPECT_NE(report.find("    " + op.what + "   [line " + std::to_string(h.ops[op.id].invoke_line)),
                std::string::npos)
          << report;
    }
  }
}

// A check run without partitioning names no key; the minimiser finds the failing key with a
// partitioned check and reduces within it, to the same core as after a partitioned check.
TEST(MinimizeKv, UnpartitionedCheckIsMinimisedPerKey) {
  const history::ImportedHistory h = load("c10-bad");
  SearchOptions o;
  o.partition = false;
  auto whole = check_imported(h, ImportedModel::kKv, o);
  auto parts = check_imported(h, ImportedModel::kKv);
  ASSERT_TRUE(whole.is_ok() && parts.is_ok());
  ASSERT_EQ(whole->verdict, Verdict::kViolation);
  EXPECT_EQ(whole->counterexample->partition, "all operations");
  ASSERT_TRUE(whole->minimal.has_value() && parts->minimal.has_value());
  EXPECT_EQ(whole->minimal->partition, parts->minimal->partition);
  EXPECT_EQ(ids(whole->minimal->core), ids(parts->minimal->core));
  EXPECT_TRUE(whole->minimal->one_minimal) << whole->minimal->cut_short;
}

// The minimisation alone on c50-bad, the biggest log, timed over a few runs (printed, not
// asserted: machines differ); the step count is deterministic and bounded by the budget.
TEST(MinimizeKv, C50MinimisationTime) {
  const history::ImportedHistory h = load("c50-bad");
  KvModel pristine;
  std::pmr::vector<Operation<KvOp>> ops;
  ASSERT_TRUE(kv_operations(h, pristine, ops).is_ok());
  KvModel searched = pristine;
  const CheckResult r = check_linearizable(searched, std::span<const Operation<KvOp>>(ops));
  ASSERT_EQ(r.verdict, Verdict::kViolation);
  std::vector<double> ms;
  std::optional<MinimalCounterexample> m;
  for (int run = 0; run < 15; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    m = minimize_counterexample([&pristine] { return pristine; }, std::span<const Operation<KvOp>>(ops), r);
    ms.push_back(ms_since(t0));
    ASSERT_TRUE(m.has_value());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("c50-bad minimisation alone: min %.2f ms, median %.2f ms over %zu runs; %zu re-checks, %llu steps\n",
              ms.front(), ms[ms.size() / 2], ms.size(), m->checks, static_cast<unsigned long long>(m->steps));
  EXPECT_LE(m->steps, std::max(limits::kMinimizeStepsFloor, limits::kMinimizeStepsFactor * r.steps + limits::kMinimizeStepsPerOp * ops.size()) + ops.size());
}

TEST(MinimizeKv, OkLogsHaveNoCore) {
  for (const char* name : {"c01-ok", "c10-ok"}) {
    auto r = check_imported(load(name), ImportedModel::kKv);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r->verdict, Verdict::kLinearizable);
    EXPECT_FALSE(r->minimal.has_value());
    EXPECT_EQ(format_check_report(load(name), *r).find("cannot be ordered"), std::string::npos);
  }
}

TEST(MinimizeKv, Deterministic) {
  const history::ImportedHistory h = load("c10-bad");
  auto a = check_imported(h, ImportedModel::kKv);
  auto b = check_imported(h, ImportedModel::kKv);
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  EXPECT_EQ(format_check_report(h, *a), format_check_report(h, *b));
}

}  // namespace
}  // namespace dst::checker
