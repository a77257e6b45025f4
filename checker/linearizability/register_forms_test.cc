// Jepsen's keyed registers ([k v], jepsen.independent) and jepsen-io/etcd's versioned ones
// ([k [version value]]), end to end: random small histories written as Jepsen EDN, imported and
// checked, against a brute force written from the semantics alone (knossos's cas-register and
// jepsen-io/etcd's VersionedRegister: a nil version or read value names nothing). A fixed
// generator: deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "checker/linearizability/imported_check.h"
#include "checker/linearizability/register_model.h"
#include "history/import_jepsen.h"

namespace dst::checker {
namespace {

enum class JepsenFn { kRead, kWrite, kCas };
enum class JepsenEnd { kOk, kFail, kInfo, kNone };

struct JepsenOp {
  JepsenFn fn = JepsenFn::kRead;
  int key = 0;
  int value = -1;  // read: seen (-1 nil); write: written; cas: expected
  int to = 0;      // cas: new value
  int version = -1;  // versioned :ok: seen / made; -1 nil
  int64_t call = 0, ret = 0;
  JepsenEnd end = JepsenEnd::kOk;
};

struct RegisterCell {
  bool nil = true;
  int value = 0;
  int version = 0;
};

// Whether op is legal on c, and then c after it.
bool apply_to_cell(const JepsenOp& op, bool versioned, RegisterCell& c) {
  const bool named = versioned && op.version >= 0;
  switch (op.fn) {
    case JepsenFn::kRead:
      if (named && op.version != c.version) return false;
      if (op.value < 0) return versioned || c.nil;  // versioned: a nil value names nothing
      return !c.nil && c.value == op.value;
    case JepsenFn::kWrite:
      if (named && op.version != c.version + 1) return false;
      c = RegisterCell{false, op.value, c.version + 1};
      return true;
    case JepsenFn::kCas:
      if (named && op.version != c.version + 1) return false;
      if (c.nil || c.value != op.value) return false;
      c = RegisterCell{false, op.to, c.version + 1};
      return true;
  }
  return false;
}

bool completed_ok(const JepsenOp& op) { return op.end == JepsenEnd::kOk; }
bool takes_part(const JepsenOp& op) { return op.end == JepsenEnd::kOk || (op.fn != JepsenFn::kRead && op.end != JepsenEnd::kFail); }
bool register_precedes(const JepsenOp& a, const JepsenOp& b) { return completed_ok(a) && a.ret < b.call; }

bool register_brute_force(const std::vector<JepsenOp>& ops, uint32_t done, bool versioned, std::map<int, RegisterCell>& cells) {
  bool left = false;
  for (size_t i = 0; i < ops.size(); ++i) left |= !(done >> i & 1) && completed_ok(ops[i]);
  if (!left) return true;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (done >> i & 1) continue;
    bool ready = true;
    for (size_t j = 0; j < ops.size() && ready; ++j) ready = j == i || (done >> j & 1) || !register_precedes(ops[j], ops[i]);
    if (!ready) continue;
    const RegisterCell before = cells[ops[i].key];
    if (apply_to_cell(ops[i], versioned, cells[ops[i].key]) && register_brute_force(ops, done | 1u << i, versioned, cells)) return true;
    cells[ops[i].key] = before;
    if (!completed_ok(ops[i]) && register_brute_force(ops, done | 1u << i, versioned, cells)) return true;  // never happened
  }
  return false;
}

bool register_linearizable(std::vector<JepsenOp> ops, bool versioned) {
  ops.erase(std::remove_if(ops.begin(), ops.end(), [](const JepsenOp& o) { return !takes_part(o); }), ops.end());
  std::map<int, RegisterCell> cells;
  return register_brute_force(ops, 0, versioned, cells);
}

struct FormsRng {
  uint64_t s;
  uint32_t below(uint32_t n) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33) % n;
  }
};

std::string edn_int(int v) { return v < 0 ? "nil" : std::to_string(v); }

// The op's :value in an event of this type, in the form asked.
std::string edn_value(const JepsenOp& op, bool invoke, bool keyed, bool versioned) {
  std::string plain;
  if (op.fn == JepsenFn::kRead) plain = invoke ? (versioned ? "[nil nil]" : "nil") : (versioned ? "[" + edn_int(op.version) + " " + edn_int(op.value) + "]" : edn_int(op.value));
  if (op.fn == JepsenFn::kWrite) plain = versioned ? "[" + (invoke ? "nil" : edn_int(op.version)) + " " + edn_int(op.value) + "]" : edn_int(op.value);
  if (op.fn == JepsenFn::kCas) {
    const std::string pair = "[" + edn_int(op.value) + " " + edn_int(op.to) + "]";
    plain = versioned ? "[" + (invoke ? "nil" : edn_int(op.version)) + " " + pair + "]" : pair;
  }
  return keyed ? "[" + std::to_string(op.key) + " " + plain + "]" : plain;
}

std::string to_edn(const std::vector<JepsenOp>& ops, bool keyed, bool versioned) {
  struct Ev {
    int64_t at;
    int kind;  // 0 invoke (first at a tie: a tie is an overlap), 1 completion
    size_t op;
  };
  std::vector<Ev> evs;
  for (size_t i = 0; i < ops.size(); ++i) {
    evs.push_back({ops[i].call, 0, i});
    if (ops[i].end != JepsenEnd::kNone) evs.push_back({ops[i].ret, 1, i});
  }
  std::stable_sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) { return a.at != b.at ? a.at < b.at : a.kind < b.kind; });
  static const char* kFns[] = {":read", ":write", ":cas"};
  static const char* kEnds[] = {":ok", ":fail", ":info"};
  std::string out;
  for (const Ev& e : evs) {
    const JepsenOp& op = ops[e.op];
    const char* type = e.kind == 0 ? ":invoke" : kEnds[static_cast<int>(op.end)];
    out += "{:type " + std::string(type) + ", :f " + kFns[static_cast<int>(op.fn)] +
           ", :value " + edn_value(op, e.kind == 0 || op.end != JepsenEnd::kOk, keyed, versioned) +
           ", :process " + std::to_string(e.op) + ", :time " + std::to_string(e.at) + "}\n";
  }
  return out;
}

JepsenOp random_op(FormsRng& r, int keys, bool versioned) {
  JepsenOp op;
  op.fn = static_cast<JepsenFn>(r.below(3));
  op.key = static_cast<int>(r.below(static_cast<uint32_t>(keys)));
  op.value = op.fn == JepsenFn::kRead ? static_cast<int>(r.below(4)) - 1 : static_cast<int>(r.below(3));
  op.to = static_cast<int>(r.below(3));
  if (versioned && r.below(2) == 0) op.version = static_cast<int>(r.below(4));
  op.call = r.below(20);
  op.ret = op.call + 1 + r.below(8);
  const uint32_t e = r.below(10);
  op.end = e < 7 ? JepsenEnd::kOk : e == 7 ? JepsenEnd::kFail : e == 8 ? JepsenEnd::kInfo : JepsenEnd::kNone;
  if (op.end != JepsenEnd::kOk) op.version = -1;  // only a completion names a version
  return op;
}

// Random values and versions rarely fit together: most versioned histories would be violations.
// So run the operations in call order on real registers and let most of them report what that run
// saw (a read the value and version then, a write the version it made, a cas that could not apply
// fails); the rest keep their random values, which makes some histories violations.
void make_plausible(std::vector<JepsenOp>& ops, FormsRng& r) {
  std::vector<size_t> order(ops.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ops[a].call < ops[b].call; });
  std::map<int, RegisterCell> cells;
  for (const size_t i : order) {
    JepsenOp& op = ops[i];
    RegisterCell& c = cells[op.key];
    const bool honest = r.below(5) != 0;
    if (op.fn == JepsenFn::kRead && honest) {
      op.value = c.nil ? -1 : c.value;
      op.version = op.end == JepsenEnd::kOk && r.below(2) == 0 ? c.version : -1;
    }
    if (op.fn == JepsenFn::kCas && honest && (c.nil || c.value != op.value)) {
      op.end = JepsenEnd::kFail;
      op.version = -1;
    }
    if (op.fn == JepsenFn::kRead || op.end == JepsenEnd::kFail) continue;
    if (op.end != JepsenEnd::kOk && r.below(2) == 0) continue;  // an unknown write that never happened
    if (op.fn == JepsenFn::kCas && (c.nil || c.value != op.value)) continue;
    c = RegisterCell{false, op.fn == JepsenFn::kCas ? op.to : op.value, c.version + 1};
    if (op.end == JepsenEnd::kOk && honest) op.version = r.below(2) == 0 ? c.version : -1;
  }
}

void agree_on_random_histories(int keys, bool versioned) {
  FormsRng r{static_cast<uint64_t>(keys * 2 + versioned)};
  int violations = 0;
  for (int round = 0; round < 1500; ++round) {
    std::vector<JepsenOp> ops(3 + r.below(6));
    for (JepsenOp& op : ops) op = random_op(r, keys, versioned);
    make_plausible(ops, r);
    const std::string text = to_edn(ops, keys > 1 || versioned, versioned);
    SCOPED_TRACE(text);
    auto h = history::import_jepsen(text, "r.edn");
    ASSERT_TRUE(h.is_ok()) << h.status().to_string();
    auto got = check_imported(*h, ImportedModel::kRegister, SearchOptions{}, false);
    ASSERT_TRUE(got.is_ok()) << got.status().to_string();
    const bool want = register_linearizable(ops, versioned);
    ASSERT_EQ(got->verdict, want ? Verdict::kLinearizable : Verdict::kViolation);
    SearchOptions whole;  // --no-partition: keyed registers are still searched key by key
    whole.partition = false;
    auto unpartitioned = check_imported(*h, ImportedModel::kRegister, whole, false);
    ASSERT_TRUE(unpartitioned.is_ok());
    ASSERT_EQ(unpartitioned->verdict, got->verdict);
    if (want) continue;
    ++violations;
    ASSERT_TRUE(explain_imported(*h, ImportedModel::kRegister, SearchOptions{}, 0, *got).is_ok());
    ASSERT_TRUE(got->minimal.has_value());
    ASSERT_FALSE(got->minimal->core.empty());
    // The core, with what may have happened as unknown, is itself not linearizable (the process
    // of each imported operation is its index here).
    std::vector<JepsenOp> core;
    for (const CounterexampleOp& c : got->minimal->core) core.push_back(ops[h->ops[c.id].process]);
    for (const CounterexampleOp& c : got->minimal->may_have_happened) {
      core.push_back(ops[h->ops[c.id].process]);
      core.back().end = JepsenEnd::kInfo;
    }
    EXPECT_FALSE(register_linearizable(core, versioned));
  }
  EXPECT_GT(violations, 200);  // both verdicts are exercised (about 400 to 650 of 1,500)
  EXPECT_LT(violations, 1000);
}

TEST(JepsenRegisterForms, KeyedAgreesWithBruteForce) { agree_on_random_histories(3, false); }
TEST(JepsenRegisterForms, VersionedAgreesWithBruteForce) { agree_on_random_histories(2, true); }
TEST(JepsenRegisterForms, OneRegisterAgreesWithBruteForce) { agree_on_random_histories(1, false); }

// One key's stale read: the violation, its partition and its core name that key only.
TEST(JepsenRegisterForms, AViolationNamesItsKey) {
  auto h = history::import_jepsen(
      "INFO  jepsen.util - 0\t:invoke\t:write\t[7 1]\n"
      "INFO  jepsen.util - 0\t:ok\t:write\t[7 1]\n"
      "INFO  jepsen.util - 1\t:invoke\t:write\t[\"k\" 2]\n"
      "INFO  jepsen.util - 1\t:ok\t:write\t[\"k\" 2]\n"
      "INFO  jepsen.util - 0\t:invoke\t:read\t[7 nil]\n"
      "INFO  jepsen.util - 0\t:ok\t:read\t[7 1]\n"
      "INFO  jepsen.util - 1\t:invoke\t:read\t[\"k\" nil]\n"
      "INFO  jepsen.util - 1\t:ok\t:read\t[\"k\" nil]\n",
      "k.log");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  auto r = check_imported(*h, ImportedModel::kRegister);
  ASSERT_TRUE(r.is_ok());
  ASSERT_EQ(r->verdict, Verdict::kViolation);
  EXPECT_EQ(r->counterexample->partition, "key \"k\"");
  ASSERT_TRUE(explain_imported(*h, ImportedModel::kRegister, SearchOptions{}, 0, *r).is_ok());
  const std::string text = format_explanation(*h, *r);
  EXPECT_NE(text.find("in key \"k\" cannot be ordered"), std::string::npos) << text;
  EXPECT_NE(text.find("read -> nil   [line 7-8"), std::string::npos) << text;
  EXPECT_EQ(text.find("line 5-6"), std::string::npos) << text;  // key 7's read
}

// jepsen-io/etcd's register as its EDN history writes it: a write that says it made version 2
// when it was the key's first is impossible; read [nil nil] (a missing key) matches anything.
TEST(JepsenRegisterForms, VersionsAreChecked) {
  const std::string head =
      "{:type :invoke, :f :read, :value [3 [nil nil]], :process 0, :time 1, :index 0}\n"
      "{:type :ok, :f :read, :value [3 [nil nil]], :process 0, :time 2, :index 1}\n"
      "{:type :invoke, :f :write, :value [3 [nil 4]], :process 1, :time 3, :index 2}\n";
  auto check = [&](const std::string& tail) {
    auto h = history::import_jepsen(head + tail, "v.edn");
    EXPECT_TRUE(h.is_ok()) << h.status().to_string();
    if (!h.is_ok()) return Verdict::kUnknown;
    auto r = check_imported(*h, ImportedModel::kRegister);
    EXPECT_TRUE(r.is_ok());
    return r.is_ok() ? r->verdict : Verdict::kUnknown;
  };
  EXPECT_EQ(check("{:type :ok, :f :write, :value [3 [1 4]], :process 1, :time 4, :index 3}\n"
                  "{:type :invoke, :f :cas, :value [3 [nil [4 5]]], :process 1, :time 5, :index 4}\n"
                  "{:type :ok, :f :cas, :value [3 [2 [4 5]]], :process 1, :time 6, :index 5}\n"
                  "{:type :invoke, :f :read, :value [3 [nil nil]], :process 0, :time 7, :index 6}\n"
                  "{:type :ok, :f :read, :value [3 [2 5]], :process 0, :time 8, :index 7}\n"),
            Verdict::kLinearizable);
  EXPECT_EQ(check("{:type :ok, :f :write, :value [3 [2 4]], :process 1, :time 4, :index 3}\n"), Verdict::kViolation);
  EXPECT_EQ(check("{:type :ok, :f :write, :value [3 [1 4]], :process 1, :time 4, :index 3}\n"
                  "{:type :invoke, :f :read, :value [3 [nil nil]], :process 0, :time 7, :index 6}\n"
                  "{:type :ok, :f :read, :value [3 [0 4]], :process 0, :time 8, :index 7}\n"),
            Verdict::kViolation);
}

}  // namespace
}  // namespace dst::checker
