// The kv model on Porcupine's test logs (testdata/porcupine-kv/, a copy of ../shared/testdata): the documented
// verdicts, with and without partitioning where that is feasible, mutations of the -ok files that
// must be caught, and determinism.
#include <gtest/gtest.h>

#include "checker/linearizability/imported_check.h"
#include "checker/linearizability/kv_model.h"
#include "history/import_porcupine.h"

namespace dst::checker {
namespace {

using history::ImportedFn;
using history::ImportedHistory;
using history::ImportedOutcome;

ImportedHistory load(const std::string& name) {
  auto h = history::import_porcupine_kv_file(std::string(DST_TESTDATA_DIR) + "/porcupine-kv/" + name + ".txt");
  EXPECT_TRUE(h.is_ok()) << h.status().to_string();
  return h.is_ok() ? *h : ImportedHistory{};
}

CheckResult check(const ImportedHistory& h, SearchOptions o = {}) {
  auto r = check_imported(h, ImportedModel::kKv, o);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return r.is_ok() ? *r : CheckResult{};
}

TEST(PorcupineKv, DocumentedVerdicts) {
  const std::pair<const char*, Verdict> files[] = {
      {"c01-ok", Verdict::kLinearizable}, {"c01-bad", Verdict::kViolation},
      {"c10-ok", Verdict::kLinearizable}, {"c10-bad", Verdict::kViolation},
      {"c50-ok", Verdict::kLinearizable}, {"c50-bad", Verdict::kViolation},
  };
  for (const auto& [name, expected] : files) {
    const ImportedHistory h = load(name);
    const CheckResult r = check(h);
    EXPECT_EQ(r.verdict, expected) << name << "\n" << format_check_report(h, r);
    EXPECT_EQ(r.counterexample.has_value(), expected == Verdict::kViolation) << name;
  }
}

TEST(PorcupineKv, WithoutPartitioningSmallFiles) {
  for (const char* name : {"c01-ok", "c01-bad", "c10-ok", "c10-bad"}) {
    SearchOptions o;
    o.partition = false;
    o.step_budget = 20'000'000;
    const CheckResult r = check(load(name), o);
    EXPECT_EQ(r.verdict, std::string(name).ends_with("-ok") ? Verdict::kLinearizable : Verdict::kViolation) << name;
  }
}

// The c01 files (one client) are all sequential partitions, replayed instead of searched: the
// search must agree on the verdict, and on a violation on the whole counterexample. (Without
// the greedy rule: its pruning may give up on a prefix before reaching its longest, so the
// search with it can report a shorter one.)
TEST(PorcupineKv, ReplayOfSequentialPartitionsAgreesWithTheSearch) {
  for (const char* name : {"c01-ok", "c01-bad"}) {
    const ImportedHistory h = load(name);
    for (bool partition : {true, false}) {
      SearchOptions replayed, searched;
      replayed.partition = searched.partition = partition;
      searched.replay_sequential = false;
      searched.greedy = false;
      const CheckResult a = check(h, replayed), b = check(h, searched);
      EXPECT_EQ(a.verdict, b.verdict) << name;
      // Replaying takes one step per operation at most; the search also tries candidates.
      EXPECT_LE(a.steps, h.ops.size()) << name;
      EXPECT_LT(a.steps, b.steps) << name;
      ASSERT_EQ(a.counterexample.has_value(), b.counterexample.has_value()) << name;
      if (!a.counterexample) continue;
      EXPECT_EQ(a.counterexample->partition, b.counterexample->partition) << name;
      EXPECT_EQ(a.counterexample->prefix_length, b.counterexample->prefix_length) << name;
      EXPECT_EQ(a.counterexample->state_after_prefix, b.counterexample->state_after_prefix) << name;
      ASSERT_EQ(a.counterexample->prefix_tail.size(), b.counterexample->prefix_tail.size()) << name;
      for (size_t i = 0; i < a.counterexample->prefix_tail.size(); ++i) {
        EXPECT_EQ(a.counterexample->prefix_tail[i].id, b.counterexample->prefix_tail[i].id) << name;
      }
      ASSERT_EQ(a.counterexample->unplaced.size(), b.counterexample->unplaced.size()) << name;
      for (size_t i = 0; i < a.counterexample->unplaced.size(); ++i) {
        EXPECT_EQ(a.counterexample->unplaced[i].id, b.counterexample->unplaced[i].id) << name;
        EXPECT_EQ(a.counterexample->unplaced[i].note, b.counterexample->unplaced[i].note) << name;
      }
    }
  }
}

// Imported histories' times are event positions: the search builds every partition's entry list
// in one pass over them (lay_out_partitions). Spread out, the same times take the per-partition
// sorts instead; both must give the same search, step for step.
TEST(PorcupineKv, EntryListsBuiltAtOnceMatchThePerPartitionSorts) {
  for (const char* name : {"c10-ok", "c10-bad", "c50-bad"}) {
    const ImportedHistory h = load(name);
    KvModel pristine;
    std::pmr::vector<Operation<KvOp>> ops;
    ASSERT_TRUE(kv_operations(h, pristine, ops).is_ok());
    std::vector<Operation<KvOp>> spread(ops.begin(), ops.end());
    for (Operation<KvOp>& op : spread) {
      op.call *= 1'000'000;
      if (op.ret != kNeverReturns) op.ret *= 1'000'000;
    }
    KvModel a = pristine, b = pristine;
    const CheckResult at_once = check_linearizable(a, std::span<const Operation<KvOp>>(ops.data(), ops.size()));
    const CheckResult sorted = check_linearizable(b, std::span<const Operation<KvOp>>(spread));
    EXPECT_EQ(at_once.verdict, sorted.verdict) << name;
    EXPECT_EQ(at_once.steps, sorted.steps) << name;
    ASSERT_EQ(at_once.counterexample.has_value(), sorted.counterexample.has_value()) << name;
    if (at_once.counterexample) {
      EXPECT_EQ(at_once.counterexample->prefix_length, sorted.counterexample->prefix_length) << name;
    }
  }
}

TEST(PorcupineKv, WithoutGreedySameVerdicts) {
  for (const char* name : {"c01-ok", "c01-bad", "c10-ok", "c10-bad"}) {
    SearchOptions o;
    o.greedy = false;
    const CheckResult r = check(load(name), o);
    EXPECT_EQ(r.verdict, std::string(name).ends_with("-ok") ? Verdict::kLinearizable : Verdict::kViolation) << name;
  }
}

TEST(PorcupineKv, Deterministic) {
  for (const char* name : {"c10-ok", "c50-bad"}) {
    const ImportedHistory h = load(name);
    const CheckResult a = check(h);
    const CheckResult b = check(h);
    EXPECT_EQ(a.verdict, b.verdict);
    EXPECT_EQ(a.steps, b.steps);
    EXPECT_EQ(format_check_report(h, a), format_check_report(h, b));
  }
}

TEST(PorcupineKv, BudgetGivesUnknown) {
  SearchOptions o;
  o.step_budget = 1000;
  const CheckResult r = check(load("c50-ok"), o);
  EXPECT_EQ(r.verdict, Verdict::kUnknown);
}

// Mutation: change one get's value (to a value no write produced) -> violation.
TEST(PorcupineKvMutation, ChangedGetValueIsCaught) {
  for (const char* name : {"c01-ok", "c10-ok", "c50-ok"}) {
    const ImportedHistory base = load(name);
    int mutated = 0;
    for (size_t i = 0; i < base.ops.size() && mutated < 5; i += base.ops.size() / 5 + 1) {
      size_t j = i;
      while (j < base.ops.size() && (base.ops[j].fn != ImportedFn::kGet || base.ops[j].outcome != ImportedOutcome::kOk)) ++j;
      if (j == base.ops.size()) break;
      ImportedHistory h = base;
      h.ops[j].result.text += "z";
      const CheckResult r = check(h);
      EXPECT_EQ(r.verdict, Verdict::kViolation) << name << " op " << j;
      ++mutated;
    }
    EXPECT_GT(mutated, 0) << name;
  }
}

// Mutation: a get that saw a non-empty value is moved (invoke and return) before the invocation
// of every other operation on its key -> it would have read "" -> violation.
TEST(PorcupineKvMutation, ResponseMovedBeforeAnotherInvokeIsCaught) {
  for (const char* name : {"c01-ok", "c10-ok", "c50-ok"}) {
    const ImportedHistory base = load(name);
    int mutated = 0;
    for (size_t j = base.ops.size() / 2; j < base.ops.size() && mutated < 3; ++j) {
      const auto& g = base.ops[j];
      if (g.fn != ImportedFn::kGet || g.outcome != ImportedOutcome::kOk || g.result.text.empty()) continue;
      ImportedHistory h = base;
      h.ops[j].invoke_at = -2;
      h.ops[j].return_at = -1;  // returns before any other operation's invoke
      const CheckResult r = check(h);
      EXPECT_EQ(r.verdict, Verdict::kViolation) << name << " op " << j;
      ++mutated;
    }
    EXPECT_GT(mutated, 0) << name;
  }
}

// Mutation: a get inserted after an append's :ok (invoked after the append returned) that still
// reads "" (a stale read) -> violation.
TEST(PorcupineKvMutation, StaleEmptyReadAfterCompletedAppendIsCaught) {
  const ImportedHistory base = load("c10-ok");
  for (size_t j = 0; j < base.ops.size(); ++j) {
    const auto& a = base.ops[j];
    if (a.fn != ImportedFn::kAppend || a.outcome != ImportedOutcome::kOk) continue;
    ImportedHistory h = base;
    history::ImportedOp g;
    g.id = h.ops.size();
    g.fn = ImportedFn::kGet;
    g.key = a.key;
    g.result = history::ImportedValue::string("");
    g.outcome = ImportedOutcome::kOk;
    g.invoke_at = a.return_at + 1;  // invoked after the append returned
    g.return_at = a.return_at + 1;
    h.ops.push_back(g);
    EXPECT_EQ(check(h).verdict, Verdict::kViolation);
    break;
  }
}

}  // namespace
}  // namespace dst::checker

namespace dst::checker {
namespace {

// Hand-built: keys on both sides of the 7-byte packing, an append whose argument is also some
// get's whole value (stored apart from the interned values), and an empty append (read-only).
TEST(KvModelInterning, AppendArgumentsLongAndShortKeys) {
  using K = KvOp::Kind;
  auto run = [](bool swap_reads) {
    KvModel m;
    const std::string long_key = "a-key-longer-than-seven-bytes";
    std::vector<Operation<KvOp>> ops;
    auto add = [&](K kind, const std::string& key, const std::string& value, int64_t call, int64_t ret) {
      ops.push_back(Operation<KvOp>{m.make(kind, key, value), call, ret, ops.size()});
    };
    add(K::kGet, "k", "", 0, 1);
    add(K::kAppend, "k", "xy", 2, 3);            // "xy" is also a get's value below
    add(K::kAppend, long_key, "xy", 4, 5);
    add(K::kAppend, long_key, "", 6, 7);         // empty append: leaves "xy"
    add(K::kGet, long_key, swap_reads ? "xyxy" : "xy", 8, 9);
    add(K::kAppend, "k", "xy", 10, 11);
    add(K::kGet, "k", swap_reads ? "xy" : "xyxy", 12, 13);
    add(K::kPut, "kk", "xy", 14, 15);
    add(K::kGet, "kk", "xy", 16, 17);
    m.seal();
    return check_linearizable(m, std::span<const Operation<KvOp>>(ops)).verdict;
  };
  EXPECT_EQ(run(false), Verdict::kLinearizable);
  EXPECT_EQ(run(true), Verdict::kViolation);
}

// An append's result is interned from the hashes of its parts, a get's value from its bytes: the
// two must meet for every split of every length (the hash works in 8-byte chunks), and a value
// that differs in one byte must not. Keys of every length from 0 to 9 (packed up to 7).
TEST(KvModelInterning, AppendResultsEqualReadValuesOfEveryLength) {
  using K = KvOp::Kind;
  const std::string text = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";  // 46 bytes
  for (size_t length = 0; length <= text.size(); ++length) {
    for (bool corrupt : {false, true}) {
      if (corrupt && length == 0) continue;
      KvModel m;
      std::vector<Operation<KvOp>> ops;
      int64_t t = 0;
      auto add = [&](K kind, const std::string& key, const std::string& value) {
        ops.push_back(Operation<KvOp>{m.make(kind, key, value), t, t + 1, ops.size()});
        t += 2;
      };
      std::string seen = text.substr(0, length);
      if (corrupt) seen[length / 2] ^= 1;
      // Key i: put the first `split` bytes, append the rest (twice split in three for some), read.
      for (size_t split = 0; split <= length; ++split) {
        const std::string key(split % 10, 'k');
        add(K::kPut, key, text.substr(0, split));
        if (split % 3 == 0 && split + 2 <= length) {
          add(K::kAppend, key, text.substr(split, 2));
          add(K::kAppend, key, text.substr(split + 2, length - split - 2));
        } else {
          add(K::kAppend, key, text.substr(split, length - split));
        }
        add(K::kGet, key, seen);
      }
      m.seal();
      const Verdict v = check_linearizable(m, std::span<const Operation<KvOp>>(ops)).verdict;
      EXPECT_EQ(v, corrupt ? Verdict::kViolation : Verdict::kLinearizable) << "length " << length;
    }
  }
}

// may_become_legal prunes a get whose value cannot grow out of the key's current one: it must
// tell a prefix from a near miss at every length and at every place of the difference (the
// quick test looks at the last eight bytes, the memo remembers long pairs).
TEST(KvModelPruning, GetValueExtendsTheCurrentValueOrNot) {
  using K = KvOp::Kind;
  const std::string text = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";
  for (size_t now_length : {1, 3, 7, 8, 9, 16, 17, 30}) {
    for (size_t differ_at = 0; differ_at <= now_length; ++differ_at) {
      KvModel m;
      const std::string now = text.substr(0, now_length);
      std::string seen = text;  // the get's value: `now` and more, unless changed below
      if (differ_at < now_length) seen[differ_at] ^= 1;
      const KvOp put = m.make(K::kPut, "k", now);
      const KvOp get = m.make(K::kGet, "k", seen);
      m.seal();
      m.set_partitioned(true);
      const auto state = m.step(m.initial_state(), put);
      ASSERT_TRUE(state.has_value());
      auto no_window = [] { return std::span<const KvOp* const>(); };
      // Asked twice: the second answer may come from the memo.
      for (int ask = 0; ask < 2; ++ask) {
        EXPECT_EQ(m.may_become_legal(*state, &get, no_window), differ_at == now_length)
            << "now " << now_length << " bytes, differing at " << differ_at;
      }
    }
  }
}

// Regression (found in review): StringPool::rehash used to put strings from store() (append
// arguments) into the look-up table, so after the value pool grew, appending "x b y" to ""
// could return the argument's id instead of the id a get of "x b y" interned: a linearizable
// history reported as a violation. Key "a" backtracks enough to grow the pool first.
TEST(KvModelInterning, StoredArgumentsStayOutOfTheLookUpTableAfterGrowth) {
  kv_detail::StringPool pool(std::pmr::get_default_resource());
  const uint32_t stored = pool.store("x b y");
  for (int i = 0; i < 500; ++i) pool.intern("value " + std::to_string(i));  // several rehashes
  const uint32_t interned = pool.intern("x b y");
  EXPECT_NE(interned, stored);
  EXPECT_EQ(pool.intern("x b y"), interned);
  EXPECT_EQ(pool.view(interned), "x b y");

  std::string text;
  for (int p = 0; p < 7; ++p) {
    text += "{:process " + std::to_string(p) + ", :type :invoke, :f :append, :key \"a\", :value \"x " +
            std::to_string(p) + " y\"}\n";
  }
  for (int p = 0; p < 7; ++p) {
    text += "{:process " + std::to_string(p) + ", :type :ok, :f :append, :key \"a\", :value \"x " +
            std::to_string(p) + " y\"}\n";
  }
  text +=
      "{:process 20, :type :invoke, :f :get, :key \"a\", :value nil}\n"
      "{:process 20, :type :ok, :f :get, :key \"a\", :value \"x 6 yx 5 yx 4 yx 3 yx 2 yx 1 yx 0 y\"}\n"
      "{:process 21, :type :invoke, :f :append, :key \"b\", :value \"x b y\"}\n"
      "{:process 21, :type :ok, :f :append, :key \"b\", :value \"x b y\"}\n"
      "{:process 21, :type :invoke, :f :get, :key \"b\", :value nil}\n"
      "{:process 21, :type :ok, :f :get, :key \"b\", :value \"x b y\"}\n";
  auto h = history::import_porcupine_kv(text, "grow.txt");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  for (bool partition : {true, false}) {
    SearchOptions o;
    o.partition = partition;
    const CheckResult r = check(*h, o);
    EXPECT_EQ(r.verdict, Verdict::kLinearizable) << "partition " << partition << "\n" << format_check_report(*h, r);
  }
}

// Reports name operations with their values quoted; a long value (an append chain) is cut in the
// middle and its length given.
TEST(KvModelReport, DescribesOperationsAndCutsLongValues) {
  using K = KvOp::Kind;
  KvModel m;
  const std::string long_value = std::string(30, 'a') + std::string(30, 'z');
  const KvOp get = m.make(K::kGet, "k", "x 1 y");
  const KvOp put = m.make(K::kPut, "k", long_value);
  const KvOp append = m.make(K::kAppend, "a-long-key", "");
  m.seal();
  EXPECT_EQ(m.describe_op(get), "get(\"k\") -> \"x 1 y\"");
  EXPECT_EQ(m.describe_op(put),
            "put(\"k\", \"" + std::string(16, 'a') + "..." + std::string(24, 'z') + "\" (60 bytes))");
  EXPECT_EQ(m.describe_op(append), "append(\"a-long-key\", \"\")");
}

}  // namespace
}  // namespace dst::checker
