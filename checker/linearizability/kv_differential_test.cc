// The kv model's search against a brute force on small random histories (a fixed generator:
// deterministic). The brute force tries every order of the operations that real time allows, each
// operation of unknown outcome taking effect or not, with values as plain strings. The search
// must agree with it with and without partitions, the greedy rule and the replay of sequential
// partitions, and with times dense (entry lists built in one pass) or spread (sorted per partition).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "checker/linearizability/kv_model.h"
#include "checker/linearizability/search.h"

namespace dst::checker {
namespace {

using Kind = KvOp::Kind;

struct PlainOp {
  Kind kind;
  std::string key;
  std::string value;  // a get's value seen; a put's or append's argument
  int64_t call;
  int64_t ret;  // kNeverReturns: unknown outcome
};

// a must come before b: a returned before b was called (a tie is an overlap).
bool precedes(const PlainOp& a, const PlainOp& b) { return a.ret != kNeverReturns && a.ret < b.call; }

// Whether the operations not in `done` can follow, from the values in `kv`.
bool brute_force(const std::vector<PlainOp>& ops, uint32_t done, std::map<std::string, std::string>& kv) {
  bool all_definite_done = true;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!(done >> i & 1) && ops[i].ret != kNeverReturns) all_definite_done = false;
  }
  if (all_definite_done) return true;  // the unknown ones left never happened
  for (size_t i = 0; i < ops.size(); ++i) {
    if (done >> i & 1) continue;
    bool ready = true;
    for (size_t j = 0; j < ops.size() && ready; ++j) {
      if (j != i && !(done >> j & 1) && precedes(ops[j], ops[i])) ready = false;
    }
    if (!ready) continue;
    const PlainOp& op = ops[i];
    std::string& v = kv[op.key];
    const std::string before = v;
    if (op.kind == Kind::kGet && v != op.value) continue;
    if (op.kind == Kind::kPut) v = op.value;
    if (op.kind == Kind::kAppend) v += op.value;
    if (brute_force(ops, done | (1u << i), kv)) return true;
    kv[op.key] = before;
    // An unknown operation may also never happen: marked done without effect.
    if (op.ret == kNeverReturns && brute_force(ops, done | (1u << i), kv)) return true;
  }
  return false;
}

bool linearizable_by_brute_force(const std::vector<PlainOp>& ops) {
  std::map<std::string, std::string> kv;
  return brute_force(ops, 0, kv);
}

Verdict search(const std::vector<PlainOp>& ops, const SearchOptions& o, int64_t time_scale) {
  KvModel model;
  std::vector<Operation<KvOp>> converted;
  for (size_t i = 0; i < ops.size(); ++i) {
    const PlainOp& p = ops[i];
    converted.push_back(Operation<KvOp>{model.make(p.kind, p.key, p.value), p.call * time_scale,
                                        p.ret == kNeverReturns ? kNeverReturns : p.ret * time_scale, i});
  }
  model.seal();
  return check_linearizable(model, std::span<const Operation<KvOp>>(converted), o).verdict;
}

TEST(KvDifferential, SearchAgreesWithBruteForceOnRandomHistories) {
  uint64_t state = 20261201;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % n;
  };
  size_t linearizable = 0, violations = 0;
  for (int round = 0; round < 20000; ++round) {
    // Operations on one or two keys with intervals that overlap now and then; values from a
    // real order (each takes effect at a point inside its interval), then some gets corrupted.
    const size_t n = 2 + next(7);
    std::vector<PlainOp> ops;
    std::vector<int64_t> at;  // the point where it takes effect; -1: never (unknown outcome)
    for (size_t i = 0; i < n; ++i) {
      PlainOp op;
      const uint64_t k = next(10);
      op.kind = k < 4 ? Kind::kGet : k < 6 ? Kind::kPut : Kind::kAppend;
      op.key = next(4) == 0 ? "b" : "a";
      if (op.kind == Kind::kPut) op.value = "p" + std::to_string(i);
      if (op.kind == Kind::kAppend) op.value = "x" + std::to_string(i) + "y";
      if (op.kind == Kind::kAppend && next(12) == 0) op.value = "";  // an empty append changes nothing
      op.call = static_cast<int64_t>(next(24));
      op.ret = op.call + 1 + static_cast<int64_t>(next(8));
      int64_t point = op.call + static_cast<int64_t>(next(static_cast<uint64_t>(op.ret - op.call)));
      if (op.kind != Kind::kGet && next(8) == 0) {  // unknown outcome: took effect or not
        op.ret = kNeverReturns;
        if (next(2) == 0) point = -1;
      }
      ops.push_back(op);
      at.push_back(point);
    }
    std::vector<size_t> order;
    for (size_t i = 0; i < n; ++i) {
      if (at[i] >= 0) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return at[a] < at[b]; });
    std::map<std::string, std::string> kv;
    for (size_t i : order) {
      PlainOp& op = ops[i];
      if (op.kind == Kind::kGet) op.value = kv[op.key];
      if (op.kind == Kind::kPut) kv[op.key] = op.value;
      if (op.kind == Kind::kAppend) kv[op.key] += op.value;
    }
    if (next(3) == 0) {  // corrupt a get: another state's value, or ""
      for (size_t i = 0; i < n; ++i) {
        if (ops[i].kind != Kind::kGet) continue;
        ops[i].value = next(2) == 0 ? "" : "x" + std::to_string(next(n)) + "y";
        break;
      }
    }

    const bool expected = linearizable_by_brute_force(ops);
    (expected ? linearizable : violations) += 1;
    for (int combo = 0; combo < 16; ++combo) {
      SearchOptions o;
      o.partition = combo & 1;
      o.greedy = combo & 2;
      o.replay_sequential = combo & 4;
      const int64_t time_scale = combo & 8 ? 1'000'000 : 1;  // spread: the per-partition sorts
      const Verdict v = search(ops, o, time_scale);
      ASSERT_EQ(v, expected ? Verdict::kLinearizable : Verdict::kViolation)
          << "round " << round << ", partition " << o.partition << ", greedy " << o.greedy << ", replay "
          << o.replay_sequential << ", time scale " << time_scale;
    }
  }
  std::printf("kv differential: %zu linearizable, %zu not\n", linearizable, violations);
  // Both kinds of history are exercised.
  EXPECT_GT(linearizable, 8000u);
  EXPECT_GT(violations, 2000u);
}

}  // namespace
}  // namespace dst::checker
