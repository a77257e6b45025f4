// The etcd checker on hand-built histories: each rule both ways, a correct history that passes and
// a minimally broken one that fails naming the rule.
#include "checker/linearizability/etcd_checker.h"

#include <gtest/gtest.h>

#include "checker/linearizability/etcd_test_builder.h"

namespace dst::checker::etcd {
namespace {

using namespace testing;  // NOLINT
using history::Outcome;

EtcdVerdict check(const history::History& h) {
  auto r = check_etcd(h);
  EXPECT_TRUE(r.is_ok());
  return std::move(r).value();
}

bool has_rule(const EtcdVerdict& v, const std::string& rule) {
  for (const auto& x : v.violations)
    if (x.rule == rule) return true;
  return false;
}

std::string all(const EtcdVerdict& v) {
  std::string s = v.summary();
  for (size_t i = 1; i < v.violations.size(); ++i) s += "\n" + v.violations[i].to_string();
  for (const auto& k : v.skipped) s += "\nskipped: " + k;
  return s;
}

#define EXPECT_LINEARIZABLE(v) EXPECT_EQ((v).verdict, Verdict::kLinearizable) << all(v)
#define EXPECT_RULE(v, rule)                                 \
  do {                                                       \
    EXPECT_EQ((v).verdict, Verdict::kViolation) << all(v);   \
    EXPECT_TRUE(has_rule((v), rule)) << rule << "\n" << all(v); \
  } while (0)

// put a=v1 @2, put b=v2 @3, get a, cas a (mod 2 -> v3) @4, get a; a watch sees 2..4.
HistoryBuilder base(bool with_watch = true) {
  HistoryBuilder b;
  b.op(1, 0, 10, put_req("k/a", "v1"), put_resp(2));
  b.op(2, 20, 30, put_req("k/b", "v2"), put_resp(3));
  b.op(1, 40, 50, get_req("k/a"), range_resp(3, {kv("k/a", "v1", 2, 2, 1)}));
  b.op(2, 40, 55, cas_req("k/a", 2, "v3"), cas_ok(4));
  b.op(3, 60, 70, get_req("k/a"), range_resp(4, {kv("k/a", "v3", 2, 4, 2)}));
  if (with_watch) {
    size_t w = b.watch("k/", "k0", 1);
    b.events(w, 9, 2, {put_event(kv("k/a", "v1", 2, 2, 1))});
    b.events(w, 29, 3, {put_event(kv("k/b", "v2", 3, 3, 1))});
    b.events(w, 54, 4, {put_event(kv("k/a", "v3", 2, 4, 2))});
  }
  return b;
}

TEST(EtcdChecker, CorrectHistoriesPass) {
  EXPECT_LINEARIZABLE(check(base(true).h));
  EXPECT_LINEARIZABLE(check(base(false).h));
  HistoryBuilder empty;
  EXPECT_LINEARIZABLE(check(empty.h));
}

TEST(EtcdChecker, StaleLinearizableRead) {
  HistoryBuilder b = base();
  b.op(4, 80, 90, get_req("k/a"), range_resp(3, {kv("k/a", "v1", 2, 2, 1)}));
  EXPECT_RULE(check(b.h), "stale-read");
  // The same read served serializably may be stale.
  HistoryBuilder ok = base();
  ok.op(4, 80, 90, get_req("k/a", "", 0, true), range_resp(3, {kv("k/a", "v1", 2, 2, 1)}));
  EXPECT_LINEARIZABLE(check(ok.h));
}

TEST(EtcdChecker, ReadResultDiffersFromTheStateAtItsRevision) {
  HistoryBuilder b = base();
  b.h.operations[4].response = range_resp(4, {kv("k/a", "v1", 2, 2, 1)});  // old value, fresh revision
  EXPECT_RULE(check(b.h), "read-result");
  HistoryBuilder c = base();
  c.h.operations[4].response = range_resp(4, {});  // key missing
  EXPECT_RULE(check(c.h), "read-result");
}

TEST(EtcdChecker, ReadValueNeverWritten) {
  HistoryBuilder b = base();
  b.op(4, 80, 90, get_req("k/c"), range_resp(5, {kv("k/c", "zz", 5, 5, 1)}));
  EXPECT_RULE(check(b.h), "value-never-written");
}

TEST(EtcdChecker, TwoAcknowledgedWritesWithOneRevision) {
  HistoryBuilder b = base(false);
  b.h.operations[1].response = put_resp(2);
  EXPECT_RULE(check(b.h), "duplicate-revision");
}

TEST(EtcdChecker, RealTimeInversionOfWrites) {
  HistoryBuilder ok;
  ok.op(1, 0, 10, put_req("a", "1"), put_resp(2));
  ok.op(2, 20, 30, put_req("b", "2"), put_resp(3));
  EXPECT_LINEARIZABLE(check(ok.h));
  HistoryBuilder bad;
  bad.op(1, 0, 10, put_req("a", "1"), put_resp(3));
  bad.op(2, 20, 30, put_req("b", "2"), put_resp(2));
  EXPECT_RULE(check(bad.h), "real-time");
  // Concurrent writes may take either order.
  HistoryBuilder conc;
  conc.op(1, 0, 30, put_req("a", "1"), put_resp(3));
  conc.op(2, 5, 20, put_req("b", "2"), put_resp(2));
  EXPECT_LINEARIZABLE(check(conc.h));
}

TEST(EtcdChecker, TxnSucceededFlag) {
  HistoryBuilder b = base();
  b.h.operations[3].request = cas_req("k/a", 99, "v3");  // the compare is false on the state, yet it succeeded
  EXPECT_RULE(check(b.h), "txn-succeeded");
  // A failed cas whose compare was false passes; one whose compare was true does not.
  HistoryBuilder f = base();
  f.op(4, 80, 90, cas_req("k/a", 2, "v9"), cas_failed(4, {kv("k/a", "v3", 2, 4, 2)}));
  EXPECT_LINEARIZABLE(check(f.h));
  HistoryBuilder g = base();
  g.op(4, 80, 90, cas_req("k/a", 4, "v9"), cas_failed(4, {kv("k/a", "v3", 2, 4, 2)}));
  EXPECT_RULE(check(g.h), "txn-succeeded");
}

TEST(EtcdChecker, PrevKv) {
  const mvccpb::KeyValue prev = kv("k/a", "v3", 2, 4, 2);
  HistoryBuilder ok = base();
  ok.op(4, 80, 90, put_req("k/a", "v4", 0, true), put_resp(5, &prev));
  EXPECT_LINEARIZABLE(check(ok.h));
  const mvccpb::KeyValue wrong = kv("k/a", "v3", 2, 4, 7);  // wrong version
  HistoryBuilder bad = base();
  bad.op(4, 80, 90, put_req("k/a", "v4", 0, true), put_resp(5, &wrong));
  EXPECT_RULE(check(bad.h), "write-response");
}

TEST(EtcdChecker, LostAcknowledgedWrite) {
  // The watch covered 2..6 and never saw revision 5's put.
  HistoryBuilder b = base();
  b.op(4, 80, 90, put_req("k/c", "v5"), put_resp(5));
  b.op(4, 100, 110, put_req("k/d", "v6"), put_resp(6));
  b.events(0, 105, 6, {put_event(kv("k/d", "v6", 6, 6, 1))});
  EXPECT_RULE(check(b.h), "lost-write");
  HistoryBuilder ok = base();
  ok.op(4, 80, 90, put_req("k/c", "v5"), put_resp(5));
  ok.op(4, 100, 110, put_req("k/d", "v6"), put_resp(6));
  ok.events(0, 95, 5, {put_event(kv("k/c", "v5", 5, 5, 1))});
  ok.events(0, 105, 6, {put_event(kv("k/d", "v6", 6, 6, 1))});
  EXPECT_LINEARIZABLE(check(ok.h));
  // A later read shows the older value.
  HistoryBuilder c = base();
  c.op(4, 80, 90, put_req("k/a", "v9"), put_resp(5));
  c.op(5, 100, 110, get_req("k/a"), range_resp(5, {kv("k/a", "v3", 2, 4, 2)}));
  EXPECT_RULE(check(c.h), "read-result");
}

TEST(EtcdChecker, UnknownWriteRevealedByAWatch) {
  HistoryBuilder ok = base();
  ok.unknown(4, 80, put_req("k/c", "u1"));
  ok.events(0, 95, 5, {put_event(kv("k/c", "u1", 5, 5, 1))});
  ok.op(5, 100, 110, get_req("k/c"), range_resp(5, {kv("k/c", "u1", 5, 5, 1)}));
  EXPECT_LINEARIZABLE(check(ok.h));
  // Observed before it was sent.
  HistoryBuilder early = base();
  early.unknown(4, 100, put_req("k/c", "u1"));
  early.events(0, 95, 5, {put_event(kv("k/c", "u1", 5, 5, 1))});
  EXPECT_RULE(check(early.h), "unknown-write-too-early");
  // Ordered before a write that completed before it was sent.
  HistoryBuilder before = base(false);
  before.op(4, 80, 90, put_req("k/d", "v6"), put_resp(6));
  before.unknown(5, 100, put_req("k/c", "u1"));
  before.op(6, 120, 130, get_req("k/c"), range_resp(6, {kv("k/c", "u1", 5, 5, 1)}));
  EXPECT_RULE(check(before.h), "unknown-write-too-early");
  // Never observed: it did not happen, fine.
  HistoryBuilder never = base();
  never.unknown(4, 80, put_req("k/c", "u1"));
  EXPECT_LINEARIZABLE(check(never.h));
}

TEST(EtcdChecker, FailedWriteThatAppears) {
  HistoryBuilder b = base();
  b.failed(4, 80, 90, put_req("k/c", "f1"));
  b.events(0, 95, 5, {put_event(kv("k/c", "f1", 5, 5, 1))});
  EXPECT_RULE(check(b.h), "failed-write-visible");
  HistoryBuilder ok = base();
  ok.failed(4, 80, 90, put_req("k/c", "f1"));
  EXPECT_LINEARIZABLE(check(ok.h));
}

// Revision 5 is seen by nobody; a keys-only read at 6 shows k/c made at 5.
HistoryBuilder gap_history(bool second_candidate) {
  HistoryBuilder b = base();
  b.unknown(4, 80, put_req("k/c", "u1"));
  if (second_candidate) b.unknown(6, 82, put_req("k/c", "u2"));
  b.op(5, 100, 110, put_req("k/d", "v6"), put_resp(6));
  etcdserverpb::ApiRequest q = get_req("k/c");
  q.mutable_range()->set_keys_only(true);
  mvccpb::KeyValue k = kv("k/c", "", 5, 5, 1);
  b.op(5, 120, 130, q, range_resp(6, {k}));
  return b;
}

TEST(EtcdChecker, GapExplainedByAnUnknownWrite) {
  auto v = check(gap_history(false).h);
  EXPECT_LINEARIZABLE(v);
  EXPECT_EQ(v.stats.gaps, 1u);
  EXPECT_EQ(v.stats.gaps_explained, 1u);
  EXPECT_EQ(v.stats.revisions_by_unknown_write, 1u);
  // Two candidates: the search takes the first, and the read agrees with it.
  auto u = check(gap_history(true).h);
  EXPECT_LINEARIZABLE(u);
  EXPECT_EQ(u.stats.gaps_explained, 0u);
  EXPECT_EQ(u.stats.revisions_searched, 1u);
  EXPECT_EQ(u.stats.combinations_tried, 1u);
  // The gap's only explanation contradicts the read: k/c absent at 6.
  HistoryBuilder bad = gap_history(false);
  bad.h.operations.back().response = range_resp(6, {});
  EXPECT_RULE(check(bad.h), "read-result");
}

// `gaps` revisions made by unknown-outcome puts of k/c (seen by nobody directly), each followed by
// an acknowledged put of k/d and a keys-only read of k/c that shows the gap's put.
HistoryBuilder many_gaps(int gaps) {
  HistoryBuilder b = base(false);
  for (int i = 0; i < gaps; ++i) {
    const int64_t gap = 5 + 2 * i, t = 100 + 10 * i;
    b.unknown(4, t, put_req("k/c", "u" + std::to_string(i)));
    b.op(5, t + 1, t + 2, put_req("k/d", "v" + std::to_string(i)), put_resp(gap + 1));
    etcdserverpb::ApiRequest q = get_req("k/c");
    q.mutable_range()->set_keys_only(true);
    b.op(6, t + 3, t + 4, q, range_resp(gap + 1, {kv("k/c", "", 5, gap, i + 1)}));
  }
  return b;
}

// Judging a gap's candidate against the reads of its key stops at the first read that saw a later
// write: scanning every later read made the check quadratic in the history's length (a 1 M-operation
// run spent 26 M of its 31 M steps there).
TEST(EtcdChecker, GapCandidatesCostLinearSteps) {
  const EtcdVerdict small = check(many_gaps(100).h), large = check(many_gaps(1000).h);
  EXPECT_LINEARIZABLE(small);
  EXPECT_LINEARIZABLE(large);
  EXPECT_EQ(large.stats.gaps, 1000u);
  EXPECT_EQ(large.stats.gaps_explained, 1000u);
  // Ten times the history, about ten times the steps (quadratic would be a hundred).
  EXPECT_LT(large.stats.steps, 15 * small.stats.steps) << small.stats.steps << " -> " << large.stats.steps;
}

// txn if(version(k) > 0 for each k) then put key=value else put key=value, acknowledged at rev:
// its `succeeded` tells whether the keys existed, without showing a value or a revision.
std::pair<etcdserverpb::ApiRequest, etcdserverpb::ApiResponse> exists_txn(const std::vector<std::string>& keys,
                                                                          const std::string& key,
                                                                          const std::string& value, int64_t rev,
                                                                          bool succeeded) {
  etcdserverpb::ApiRequest r;
  for (const std::string& k : keys) {
    auto* c = r.mutable_txn()->add_compare();
    c->set_key(k);
    c->set_target(etcdserverpb::Compare::VERSION);
    c->set_result(etcdserverpb::Compare::GREATER);
    c->set_version(0);
  }
  for (auto* branch : {r.mutable_txn()->mutable_success(), r.mutable_txn()->mutable_failure()}) {
    auto* p = branch->Add()->mutable_request_put();
    p->set_key(key);
    p->set_value(value);
  }
  etcdserverpb::ApiResponse resp;
  resp.mutable_txn()->mutable_header()->set_revision(rev);
  resp.mutable_txn()->set_succeeded(succeeded);
  resp.mutable_txn()->add_responses()->mutable_response_put()->mutable_header()->set_revision(rev);
  return {r, resp};
}

// Revision 5 is seen by nobody; two unknown-outcome puts, of k/c and of k/e, could have made it.
// Only a txn's compares at 6 tell which.
HistoryBuilder two_candidates(const std::vector<std::string>& existing) {
  HistoryBuilder b = base();
  b.unknown(4, 80, put_req("k/c", "u1"));
  b.unknown(6, 82, put_req("k/e", "u2"));
  auto [q, r] = exists_txn(existing, "k/x", "v6", 6, true);
  b.op(5, 100, 110, q, r);
  return b;
}

TEST(EtcdChecker, SearchBacktracksOverAGapsCandidates) {
  // The first candidate (k/c) contradicts the txn: the search comes back and takes k/e.
  auto v = check(two_candidates({"k/e"}).h);
  EXPECT_LINEARIZABLE(v);
  EXPECT_EQ(v.stats.revisions_searched, 1u);
  EXPECT_EQ(v.stats.combinations_tried, 2u);
  EXPECT_EQ(v.stats.revisions_by_unknown_write, 1u);
  // Both keys made before 6: no single write did that, whichever is chosen.
  auto bad = check(two_candidates({"k/c", "k/e"}).h);
  EXPECT_RULE(bad, "txn-succeeded");
  EXPECT_EQ(bad.stats.combinations_tried, 2u);
  EXPECT_NE(bad.violations.front().to_string().find("every choice of writers"), std::string::npos) << all(bad);
}

TEST(EtcdChecker, SearchOverSeveralGapsFindsTheOnlyConsistentAssignment) {
  // Revisions 5 and 6 unseen; three unknown puts; a txn at 8 shows that k/e and k/f exist.
  HistoryBuilder b = base();
  b.unknown(4, 80, put_req("k/c", "u1"));
  b.unknown(6, 81, put_req("k/e", "u2"));
  b.unknown(7, 82, put_req("k/f", "u3"));
  b.op(5, 100, 110, put_req("k/d", "v7"), put_resp(7));
  auto [q, r] = exists_txn({"k/e", "k/f"}, "k/x", "v8", 8, true);
  b.op(5, 120, 130, q, r);
  auto v = check(b.h);
  EXPECT_LINEARIZABLE(v);
  EXPECT_EQ(v.stats.revisions_searched, 2u);
  // (5, 6) = (c, e) and (c, f) fail at 8, (e, c) fails, (e, f) passes.
  EXPECT_EQ(v.stats.combinations_tried, 4u);
  // A later read that saw k/e created at 6 pins revision 6 (and rules k/e out at 5): only 5 is
  // searched, (c, e) fails and (f, e) passes.
  etcdserverpb::ApiRequest keys = get_req("k/e");
  keys.mutable_range()->set_keys_only(true);
  b.op(5, 140, 150, keys, range_resp(8, {kv("k/e", "", 6, 6, 1)}));
  auto pinned = check(b.h);
  EXPECT_LINEARIZABLE(pinned);
  EXPECT_EQ(pinned.stats.revisions_searched, 1u);
  EXPECT_EQ(pinned.stats.combinations_tried, 2u);
}

// Six unseen revisions and seven unknown-outcome writes: six puts nobody saw and a delete of k/b,
// which a watch starting at revision 11 sees there. Whatever fills the gaps, the delete must be
// left for 11. The search tries writes that a later deletion may need last, so its first
// assignment passes; in plain order it would take the delete at 5 and then try every order of
// the puts (720) before giving it up.
TEST(EtcdChecker, SearchKeepsTheWriteALaterDeletionNeedsForIt) {
  HistoryBuilder b = base();
  b.unknown(9, 80, del_req("k/b"));
  for (int i = 0; i < 6; ++i) b.unknown(10 + static_cast<uint32_t>(i), 81 + i, put_req("k/p" + std::to_string(i), "u" + std::to_string(i)));
  const size_t w = b.watch("k/b", "", 11, 90);
  b.events(w, 100, 11, {delete_event("k/b", 11)});
  auto v = check(b.h);
  EXPECT_LINEARIZABLE(v);
  EXPECT_EQ(v.stats.revisions_searched, 6u);  // each gap: the puts left and the delete
  EXPECT_EQ(v.stats.combinations_tried, 1u);
  EXPECT_EQ(v.stats.revisions_by_unknown_write, 7u);
}

// Four unseen revisions (7..10), four unknown deletes of keys that existed, and a read at 10
// that no choice can fix. Deleting x then y leaves the state y then x leaves: the search explores each
// such state once (choices_pruned counts the repeats it skipped) and still tries every other
// order before it reports the violation.
TEST(EtcdChecker, SearchPrunesAStateItExploredInAnotherOrder) {
  HistoryBuilder b;
  const std::vector<std::string> keys = {"k/w", "k/x", "k/y", "k/z"};
  for (size_t i = 0; i < keys.size(); ++i)
    b.op(1, 10 * static_cast<int64_t>(i), 10 * static_cast<int64_t>(i) + 5, put_req(keys[i], "v" + std::to_string(i)),
         put_resp(2 + static_cast<int64_t>(i)));
  b.op(1, 40, 45, put_req("k/a", "va"), put_resp(6));
  for (size_t i = 0; i < keys.size(); ++i) b.unknown(10 + static_cast<uint32_t>(i), 50, del_req(keys[i]));
  b.op(2, 100, 110, get_req("k/a"), range_resp(10, {kv("k/a", "bogus", 6, 6, 1)}));
  auto v = check(b.h);
  EXPECT_RULE(v, "read-result");
  EXPECT_EQ(v.stats.choices_pruned, 6u);
  EXPECT_EQ(v.stats.combinations_tried, 12u);  // 4! = 24 orders without the memo
}

TEST(EtcdChecker, RevisionNothingCanHaveMade) {
  // Revision 5 is unseen, the state is certain, and there is no unknown-outcome write at all.
  HistoryBuilder b = base();
  b.op(5, 100, 110, put_req("k/d", "v6"), put_resp(6));
  EXPECT_RULE(check(b.h), "future-revision");
  // One unknown write, but sent after revision 6 was seen: it cannot have made 5.
  HistoryBuilder late = base();
  late.unknown(4, 115, put_req("k/c", "u1"));
  late.op(5, 100, 110, put_req("k/d", "v6"), put_resp(6));
  EXPECT_RULE(check(late.h), "future-revision");
  // Unknown writes of a key read unchanged from before the gap (set aside without being executed)
  // still cannot have made it, and the report still counts them.
  HistoryBuilder stale = base(false);
  stale.unknown(4, 80, put_req("k/b", "u1"));
  stale.unknown(6, 81, cas_req("k/b", 3, "u2"));
  stale.op(5, 100, 110, put_req("k/d", "v6"), put_resp(6));
  stale.op(7, 120, 130, get_req("k/b"), range_resp(6, {kv("k/b", "v2", 3, 3, 1)}));
  const EtcdVerdict v = check(stale.h);
  EXPECT_RULE(v, "future-revision");
  EXPECT_NE(all(v).find("2 unknown-outcome write(s) sent before that"), std::string::npos) << all(v);
}

// Many unknown writes whose key every later read shows unchanged since before each gap: the gaps
// set them aside instead of trying each one (gaps x writes steps before).
TEST(EtcdChecker, GapsSetAsideWritesTheirReadsRefute) {
  auto history = [](int writes) {
    HistoryBuilder b = many_gaps(50);
    for (int i = 0; i < writes; ++i) b.unknown(7, 90, put_req("k/b", "w" + std::to_string(i)));
    b.op(8, 700, 710, get_req("k/b"), range_resp(104, {kv("k/b", "v2", 3, 3, 1)}));
    return b;
  };
  const EtcdVerdict few = check(history(10).h), many = check(history(1000).h);
  EXPECT_LINEARIZABLE(few);
  EXPECT_LINEARIZABLE(many);
  EXPECT_EQ(many.stats.gaps_explained, 50u);
  // 990 more writes, 50 gaps: trying each would add about 50 x 990 x 3 steps.
  EXPECT_LT(many.stats.steps, few.stats.steps + 20'000) << few.stats.steps << " -> " << many.stats.steps;
}

TEST(EtcdChecker, DeletesAndLeases) {
  HistoryBuilder b = base();
  b.op(4, 80, 90, del_req("k/", "k0"), del_resp(5, 2));
  b.events(0, 85, 5, {delete_event("k/a", 5), delete_event("k/b", 5)});
  b.op(4, 100, 110, get_req("k/", "k0"), range_resp(5, {}));
  EXPECT_LINEARIZABLE(check(b.h));
  HistoryBuilder cnt = base();
  cnt.op(4, 80, 90, del_req("k/", "k0"), del_resp(5, 1));  // two keys existed
  EXPECT_RULE(check(cnt.h), "write-response");
  // A lease's keys deleted by its expiry, seen only by the watch.
  HistoryBuilder l = base();
  l.op(4, 80, 90, put_req("k/l", "lv", 77), put_resp(5));
  l.events(0, 85, 5, {put_event(kv("k/l", "lv", 5, 5, 1, 77))});
  l.events(0, 200, 6, {delete_event("k/l", 6)});
  l.op(4, 210, 220, get_req("k/l"), range_resp(6, {}));
  EXPECT_LINEARIZABLE(check(l.h));
  // A delete nobody issued of a key without a lease.
  HistoryBuilder x = base();
  x.events(0, 200, 5, {delete_event("k/b", 5)});
  EXPECT_RULE(check(x.h), "unexplained-event");
  // A revoke answered, yet its key survives.
  HistoryBuilder r = l;
  r.h.watches[0].segments[0].responses.pop_back();
  r.h.operations.pop_back();
  etcdserverpb::ApiRequest rv;
  rv.mutable_lease_revoke()->set_id(77);
  etcdserverpb::ApiResponse rr;
  rr.mutable_lease_revoke()->mutable_header()->set_revision(5);
  r.op(5, 150, 160, rv, rr);
  EXPECT_RULE(check(r.h), "lease");
}

// Lease 77 granted (TTL 10 s) at 80 ms, k/l attached at revision 5; revision 6 deletes k/l, seen
// by the watch at `deleted_ms` and by a read right after. Nothing but the lease's expiry (or the
// revoke some variants add) explains revision 6.
HistoryBuilder lease_history(int64_t deleted_ms) {
  HistoryBuilder b = base();
  etcdserverpb::ApiRequest g;
  g.mutable_lease_grant()->set_ttl(10);
  etcdserverpb::ApiResponse gr;
  gr.mutable_lease_grant()->mutable_header()->set_revision(4);
  gr.mutable_lease_grant()->set_id(77);
  gr.mutable_lease_grant()->set_ttl(10);
  b.op(4, 80, 90, g, gr);
  b.op(4, 100, 110, put_req("k/l", "lv", 77), put_resp(5));
  b.events(0, 105, 5, {put_event(kv("k/l", "lv", 5, 5, 1, 77))});
  b.events(0, deleted_ms, 6, {delete_event("k/l", 6)});
  b.op(5, deleted_ms + 10, deleted_ms + 20, get_req("k/l"), range_resp(6, {}));
  return b;
}

etcdserverpb::ApiRequest revoke_req(int64_t lease) {
  etcdserverpb::ApiRequest r;
  r.mutable_lease_revoke()->set_id(lease);
  return r;
}

TEST(EtcdChecker, LeaseExpiredBeforeItsTtlRanOut) {
  // 3 s after a 10 s grant: early. No drift recorded counts as 0.1%: not before 80 ms + 9.99 s.
  HistoryBuilder early = lease_history(3000);
  EtcdVerdict v = check(early.h);
  EXPECT_RULE(v, "lease-expired-early");
  ASSERT_FALSE(v.violations.empty());
  EXPECT_NE(v.violations[0].message.find("lease 77 (TTL 10s) expired at revision 6"), std::string::npos)
      << v.violations[0].message;
  EXPECT_LINEARIZABLE(check(lease_history(10100).h));  // after 80 ms + 10 s / 1.001
  EXPECT_RULE(check(lease_history(10000).h), "lease-expired-early");
  // The fastest clock runs 20% fast (as scenarios record it): the leader may expire at
  // 80 ms + 10 s / 1.2 = 8.413 s.
  HistoryBuilder fast = lease_history(8500);
  fast.h.faults.push_back(history::Fault{"clock-drift", "n2 200000ppm", 0, history::kNeverReturned});
  fast.h.faults.push_back(history::Fault{"clock-drift", "n1 -100000ppm", 0, history::kNeverReturned});
  EXPECT_LINEARIZABLE(check(fast.h));
  EXPECT_RULE(check(lease_history(8500).h), "lease-expired-early");
  HistoryBuilder too_fast = lease_history(8300);
  too_fast.h.faults = fast.h.faults;
  EXPECT_RULE(check(too_fast.h), "lease-expired-early");
  // A drift the checker cannot read counts as the simulator's 50%: 80 ms + 6.667 s.
  HistoryBuilder unreadable = lease_history(7000);
  unreadable.h.faults.push_back(history::Fault{"clock-drift", "n2 fast", 0, history::kNeverReturned});
  EXPECT_LINEARIZABLE(check(unreadable.h));
  // Seen only by a read, no watch event (the deletion is a gap the expiry explains): still early.
  HistoryBuilder read_only = lease_history(3000);
  read_only.h.watches[0].segments[0].responses.pop_back();
  EXPECT_RULE(check(read_only.h), "lease-expired-early");
}

TEST(EtcdChecker, LeaseRevokesAndKeepAlivesAgainstEarlyExpiry) {
  // A revoke whose answer was lost, sent before the deletion was seen, explains it: not an expiry.
  HistoryBuilder lost = lease_history(3000);
  lost.unknown(6, 2900, revoke_req(77));
  EXPECT_LINEARIZABLE(check(lost.h));
  // An acknowledged revoke at revision 6.
  HistoryBuilder acked = lease_history(3000);
  etcdserverpb::ApiResponse rr;
  rr.mutable_lease_revoke()->mutable_header()->set_revision(6);
  acked.op(6, 2900, 2950, revoke_req(77), rr);
  EXPECT_LINEARIZABLE(check(acked.h));
  // A revoke sent only after the deletion was seen cannot have made it.
  HistoryBuilder late = lease_history(3000);
  late.unknown(6, 3005, revoke_req(77));
  EXPECT_RULE(check(late.h), "lease-expired-early");
  // A keep-alive answered with TTL 10 at 9 s restarts the clock: 12 s is early, 19.1 s is not.
  for (int64_t deleted_ms : {12000, 19100}) {
    HistoryBuilder kept = lease_history(deleted_ms);
    etcdserverpb::ApiRequest k;
    k.mutable_lease_keep_alive()->set_id(77);
    etcdserverpb::ApiResponse kr;
    kr.mutable_lease_keep_alive()->set_id(77);
    kr.mutable_lease_keep_alive()->set_ttl(10);
    kept.op(6, 9000, 9010, k, kr);
    if (deleted_ms == 12000) EXPECT_RULE(check(kept.h), "lease-expired-early");
    else EXPECT_LINEARIZABLE(check(kept.h));
    // Answered TTL 0, the keep-alive found the lease gone: it renewed nothing.
    kept.h.operations.back().response.mutable_lease_keep_alive()->set_ttl(0);
    EXPECT_LINEARIZABLE(check(kept.h));
  }
}

TEST(EtcdChecker, Compaction) {
  HistoryBuilder b = base();
  etcdserverpb::ApiRequest c;
  c.mutable_compaction()->set_revision(4);
  etcdserverpb::ApiResponse cr;
  cr.mutable_compaction()->mutable_header()->set_revision(4);
  b.op(6, 80, 90, c, cr);
  b.op(4, 100, 110, get_req("k/a", "", 4), range_resp(4, {kv("k/a", "v3", 2, 4, 2)}));
  EXPECT_LINEARIZABLE(check(b.h));
  HistoryBuilder bad = b;
  bad.op(4, 120, 130, get_req("k/a", "", 3), range_resp(4, {kv("k/a", "v1", 2, 2, 1)}));
  EXPECT_RULE(check(bad.h), "compaction");
  HistoryBuilder again = b;
  again.op(6, 120, 130, c, cr);
  EXPECT_RULE(check(again.h), "compaction");
}

TEST(EtcdChecker, PastRevisionReads) {
  HistoryBuilder b = base();
  b.op(4, 80, 90, get_req("k/", "k0", 3), range_resp(4, {kv("k/a", "v1", 2, 2, 1), kv("k/b", "v2", 3, 3, 1)}));
  EXPECT_LINEARIZABLE(check(b.h));
  HistoryBuilder bad = base();
  bad.op(4, 80, 90, get_req("k/", "k0", 3), range_resp(4, {kv("k/a", "v3", 2, 4, 2), kv("k/b", "v2", 3, 3, 1)}));
  EXPECT_RULE(check(bad.h), "read-result");
}

TEST(EtcdChecker, BudgetGivesUnknown) {
  EtcdCheckOptions o;
  o.step_budget = 3;
  auto v = check_etcd(base().h, o);
  ASSERT_TRUE(v.is_ok());
  EXPECT_EQ(v->verdict, Verdict::kUnknown);
  EXPECT_NE(v->unknown_reason.find("budget"), std::string::npos);
}

}  // namespace
}  // namespace dst::checker::etcd
