// Hand-built histories for every kube check, both directions: the correct history passes, and
// breaking exactly one thing in it fails naming that check (and only the checks that one break
// really violates). etcd's side is written with the watch checker's HistoryBuilder; the informers
// are written by hand.
#include "checker/kube/kube_checker.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "checker/watch/history_builder.h"

namespace dst::checker::kube {
namespace {

using history::KubeWatchEvent;
using Type = KubeWatchEvent::Type;
using watch::testing::HistoryBuilder;

constexpr int64_t kMs = 1'000'000;
const std::string kPrefix = "/registry/pods/";
std::string key(const std::string& name) { return kPrefix + name; }

history::KubeObject obj(const std::string& name, const std::string& value, int64_t rv) {
  return history::KubeObject{key(name), value, rv};
}

std::set<std::string> named(const Report& r) {
  std::set<std::string> names;
  for (size_t c = 0; c < kCheckCount; ++c)
    if (r.violations_by_check[c] > 0) names.insert(check_name(static_cast<Check>(c)));
  return names;
}

// Exactly these checks are named (the report is printed when not, to see what was found instead).
::testing::AssertionResult fails_with(const Report& r, const std::set<std::string>& expected) {
  if (named(r) == expected) return ::testing::AssertionSuccess();
  std::string want;
  for (const auto& n : expected) want += n + " ";
  return ::testing::AssertionFailure() << "expected violations of: " << want << "\ngot:\n" << r.to_string();
}

::testing::AssertionResult passes(const Report& r) {
  if (r.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r.to_string();
}

// etcd (revision: change): 2 a=a1, 3 b=b1, 4 /other/x=x1, 5 a=a2, 6 txn{c=c1, delete b},
// 7 delete a, 8 b=b2.
// Informer 0 on the prefix: step 0 LIST rv 0 -> 3 {a1, b1}; step 1 WATCH from 3:
//   #0 MODIFIED a=a2@5, #1 ADDED c=c1@6, #2 DELETED b=b1@6, #3 BOOKMARK 6, #4 DELETED a=a2@7,
//   #5 ADDED b=b2@8, #6 BOOKMARK 8; its controller processed every change; final store rv 8 {b2, c1}.
class KubeCheckerTest : public ::testing::Test {
 public:
  void SetUp() override {
    b.put(key("a"), "a1");
    b.put(key("b"), "b1");
    list_ns = b.now_ns() + 100;  // after revision 3 returned, before revision 4 was sent
    b.put("/other/x", "x1");
    b.put(key("a"), "a2");
    b.txn({{key("c"), "c1"}, {key("b"), "", true}});
    b.del(key("a"));
    b.put(key("b"), "b2");
    ASSERT_EQ(b.revision(), 8);
    at_ns = 100 * kMs;

    history::Informer& inf = informer();
    inf.lists.push_back(list(0, 0, 3, {obj("a", "a1", 2), obj("b", "b1", 3)}, list_ns));
    history::KubeWatch w;
    w.step = 1;
    w.apiserver = 1;
    w.created_ns = list_ns + 1000;
    w.from_rv = 3;
    event(w, Type::kModified, "a", "a2", 5);
    event(w, Type::kAdded, "c", "c1", 6);
    event(w, Type::kDeleted, "b", "b1", 6);
    bookmark(w, 6);
    event(w, Type::kDeleted, "a", "a2", 7);
    event(w, Type::kAdded, "b", "b2", 8);
    bookmark(w, 8);
    w.end = "stopped";
    w.ended_ns = next_ns();
    inf.watches.push_back(std::move(w));
    processed(inf, "a", 3, 2);
    processed(inf, "b", 3, 3);
    processed(inf, "a", 5, 5);
    processed(inf, "c", 6, 6);
    processed(inf, "b", 6, 0);
    processed(inf, "a", 7, 0);
    processed(inf, "b", 8, 8);
    inf.finished = true;
    inf.final_ns = next_ns();
    inf.final_rv = 8;
    inf.final_objects = {obj("b", "b2", 8), obj("c", "c1", 6)};
  }

  int64_t next_ns() { return at_ns += kMs; }
  history::Informer& informer(size_t i = 0) {
    auto& infs = b.history().informers;
    while (infs.size() <= i) {
      history::Informer inf;
      inf.id = infs.size();
      inf.client = 10 + static_cast<uint32_t>(inf.id);
      inf.prefix = kPrefix;
      infs.push_back(std::move(inf));
    }
    return infs[i];
  }
  history::KubeWatch& watch0() { return informer().watches.at(0); }
  std::vector<KubeWatchEvent>& events0() { return watch0().events; }

  history::KubeList list(uint64_t step, int64_t requested, int64_t rv, std::vector<history::KubeObject> objects,
                         int64_t invoke_ns) {
    history::KubeList l;
    l.step = step;
    l.apiserver = 1;
    l.invoke_ns = invoke_ns;
    l.return_ns = invoke_ns + 500;
    l.requested_rv = requested;
    l.ok = true;
    l.resource_version = rv;
    l.objects = std::move(objects);
    return l;
  }
  void event(history::KubeWatch& w, Type type, const std::string& name, const std::string& value, int64_t rv) {
    KubeWatchEvent e;
    e.type = type;
    e.at_ns = next_ns();
    e.object = obj(name, value, rv);
    w.events.push_back(std::move(e));
  }
  void bookmark(history::KubeWatch& w, int64_t rv) {
    KubeWatchEvent e;
    e.type = Type::kBookmark;
    e.at_ns = next_ns();
    e.object.resource_version = rv;
    w.events.push_back(std::move(e));
  }
  void processed(history::Informer& inf, const std::string& name, int64_t informer_rv, int64_t object_rv) {
    inf.processed.push_back(history::KubeProcessed{next_ns(), key(name), informer_rv, object_rv > 0, object_rv});
  }
  Report run() { return check(b.history()); }

  HistoryBuilder b;
  int64_t list_ns = 0;
  int64_t at_ns = 0;
};

TEST_F(KubeCheckerTest, CorrectHistoryPasses) {
  const Report r = run();
  EXPECT_TRUE(passes(r));
  EXPECT_EQ(r.informers, 1u);
  EXPECT_EQ(r.lists, 1u);
  EXPECT_EQ(r.events, 5u);
  EXPECT_EQ(r.bookmarks, 2u);
  for (size_t c = 0; c < kCheckCount; ++c) {
    EXPECT_GT(r.tallies[c].checked, 0u) << check_name(static_cast<Check>(c));
    EXPECT_EQ(r.tallies[c].skipped, 0u) << check_name(static_cast<Check>(c));
  }
  EXPECT_EQ(r.tallies[static_cast<size_t>(Check::kWatchEvents)].checked, 5u);
}

TEST_F(KubeCheckerTest, NoInformersNoChecks) {
  b.history().informers.clear();
  const Report r = run();
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.informers, 0u);
}

// --- list-rv -----------------------------------------------------------------------------------

TEST_F(KubeCheckerTest, ListNotOlderThanRequestedPasses) {
  informer(1).lists.push_back(list(0, 8, 8, {obj("b", "b2", 8), obj("c", "c1", 6)}, next_ns()));
  EXPECT_TRUE(passes(run()));
}

TEST_F(KubeCheckerTest, ListOlderThanRequestedFailsListRv) {
  informer(1).lists.push_back(list(0, 8, 7, {obj("c", "c1", 6)}, next_ns()));
  const Report r = run();
  EXPECT_TRUE(fails_with(r, {"list-rv"}));
  ASSERT_FALSE(r.violations.empty());
  EXPECT_NE(r.violations[0].to_string().find("not older than 8 was answered at the older 7"), std::string::npos)
      << r.to_string();
}

TEST_F(KubeCheckerTest, ConsistentListBelowAKnownRevisionFailsListRv) {
  // Sent after revision 8 returned, answered with revision 5's (correct) objects.
  informer(1).lists.push_back(list(0, 0, 5, {obj("a", "a2", 5), obj("b", "b1", 3)}, next_ns()));
  EXPECT_TRUE(fails_with(run(), {"list-rv"}));
}

// --- list-state --------------------------------------------------------------------------------

TEST_F(KubeCheckerTest, ListWithStaleContentsFailsListState) {
  // At revision 5 a is a2; the answer still has a1 (a cache that had not caught up, labelled 5).
  informer(1).lists.push_back(list(0, 5, 5, {obj("a", "a1", 2), obj("b", "b1", 3)}, next_ns()));
  const Report r = run();
  EXPECT_TRUE(fails_with(r, {"list-state"}));
  ASSERT_FALSE(r.violations.empty());
  const std::string text = r.violations[0].to_string();
  EXPECT_NE(text.find("different '/registry/pods/a': seen '/registry/pods/a'='a1' rv 2; etcd: 'a2' rv 5"),
            std::string::npos)
      << text;
}

TEST_F(KubeCheckerTest, ListMissingAnObjectFailsListState) {
  informer(1).lists.push_back(list(0, 6, 6, {obj("a", "a2", 5)}, next_ns()));  // c=c1@6 missing
  EXPECT_TRUE(fails_with(run(), {"list-state"}));
}

// --- watch-events ------------------------------------------------------------------------------

TEST_F(KubeCheckerTest, WatchMissingOneEventFailsWatchEvents) {
  events0().erase(events0().begin());  // MODIFIED a=a2@5; the stream goes on with revision 6
  const Report r = run();
  EXPECT_TRUE(fails_with(r, {"watch-events"}));
  ASSERT_FALSE(r.violations.empty());
  const std::string text = r.violations[0].to_string();
  EXPECT_NE(text.find("expected: PUT '/registry/pods/a'='a2' @5"), std::string::npos) << text;
  EXPECT_NE(text.find("seen:     #0 ADDED '/registry/pods/c'='c1' rv 6"), std::string::npos) << text;
}

TEST_F(KubeCheckerTest, WatchEndingInsideATxnPasses) {
  // The stream may end any time, even between the two events of revision 6.
  events0().resize(2);
  informer().finished = false;
  EXPECT_TRUE(passes(run()));
}

TEST_F(KubeCheckerTest, DuplicateEventFailsWatchEvents) {
  events0().insert(events0().begin() + 5, events0()[4]);  // DELETED a@7 twice
  // The informer's resourceVersion also went back: the same key again at the same revision.
  EXPECT_TRUE(fails_with(run(), {"watch-events", "never-back"}));
}

TEST_F(KubeCheckerTest, TxnEventsInAnyKeyOrderPass) {
  std::swap(events0()[1], events0()[2]);  // DELETED b@6 before ADDED c@6
  EXPECT_TRUE(passes(run()));
}

TEST_F(KubeCheckerTest, OutOfOrderEventsFailWatchEvents) {
  std::swap(events0()[4], events0()[5]);  // ADDED b@8 before DELETED a@7
  const Report r = run();
  EXPECT_TRUE(fails_with(r, {"watch-events", "never-back"}));
  bool out_of_order = false;
  for (const auto& v : r.violations) out_of_order |= v.what.find("out of order") != std::string::npos;
  EXPECT_TRUE(out_of_order) << r.to_string();
}

TEST_F(KubeCheckerTest, WrongEventTypeFailsWatchEvents) {
  events0()[0].type = Type::kAdded;  // a existed before revision 5: MODIFIED
  EXPECT_TRUE(fails_with(run(), {"watch-events"}));
}

TEST_F(KubeCheckerTest, WrongDeletedValueFailsWatchEvents) {
  events0()[4].object.value = "a1";  // a's last value before its deletion at 7 was a2
  EXPECT_TRUE(fails_with(run(), {"watch-events"}));
}

TEST_F(KubeCheckerTest, EventEtcdNeverMadeFailsWatchEvents) {
  // Revision 4 changed only /other/x: nothing under the prefix.
  KubeWatchEvent e = events0()[0];
  e.object = obj("z", "z1", 4);
  e.type = Type::kAdded;
  events0().insert(events0().begin(), e);
  EXPECT_TRUE(fails_with(run(), {"watch-events"}));
}

TEST_F(KubeCheckerTest, WatchFromAboveTheInformersRvFailsWatchEvents) {
  // After its LIST at 3 the informer watches from 5 (Kubernetes' exclusive resourceVersion taken
  // as etcd's inclusive start): a=a2@5 never reaches it.
  watch0().from_rv = 5;
  events0().erase(events0().begin());
  const Report r = run();
  EXPECT_TRUE(fails_with(r, {"watch-events"}));
  ASSERT_FALSE(r.violations.empty());
  EXPECT_NE(r.violations[0].what.find("held rv 3 but watched from rv 5"), std::string::npos) << r.to_string();
}

// --- watch-bookmark ----------------------------------------------------------------------------

TEST_F(KubeCheckerTest, BookmarkBeforeAnEventItCoversFailsWatchBookmark) {
  std::swap(events0()[5], events0()[6]);  // BOOKMARK 8 before ADDED b@8
  const Report r = run();
  // The bookmark also gave the informer rv 8, so the event at 8 after it goes back.
  EXPECT_TRUE(fails_with(r, {"watch-bookmark", "never-back"}));
}

TEST_F(KubeCheckerTest, BookmarkSkippingAnEventFailsWatchBookmark) {
  events0().erase(events0().begin() + 1);  // ADDED c@6 never comes; BOOKMARK 6 says all of 6 came
  const Report r = run();
  EXPECT_TRUE(fails_with(r, {"watch-bookmark"}));
}

// --- never-back --------------------------------------------------------------------------------

TEST_F(KubeCheckerTest, WatchStartedBelowTheInformersRvFailsNeverBack) {
  history::KubeWatch w;
  w.step = 2;
  w.apiserver = 2;
  w.created_ns = next_ns();
  w.from_rv = 6;  // the informer had 8
  informer().watches.push_back(std::move(w));
  EXPECT_TRUE(fails_with(run(), {"never-back"}));
}

TEST_F(KubeCheckerTest, ListAnsweredBelowTheInformersRvFailsNeverBack) {
  // After its watch reached 8 the informer re-lists "not older than 8" and gets 7: the answer
  // breaks its request too.
  informer().lists.push_back(list(2, 8, 7, {obj("c", "c1", 6)}, next_ns()));
  EXPECT_TRUE(fails_with(run(), {"list-rv", "never-back"}));
}

TEST_F(KubeCheckerTest, RelistAtTheInformersRvPasses) {
  informer().lists.push_back(list(2, 8, 8, {obj("b", "b2", 8), obj("c", "c1", 6)}, next_ns()));
  history::KubeWatch w;
  w.step = 3;
  w.apiserver = 2;
  w.created_ns = next_ns();
  w.from_rv = 8;
  informer().watches.push_back(std::move(w));
  EXPECT_TRUE(passes(run()));
}

// --- informer-convergence ----------------------------------------------------------------------

TEST_F(KubeCheckerTest, FinalStoreDivergedFailsConvergence) {
  informer().final_objects[0].value = "b1";
  const Report r = run();
  EXPECT_TRUE(fails_with(r, {"informer-convergence"}));
  ASSERT_FALSE(r.violations.empty());
  EXPECT_NE(r.violations[0].what.find("final store differs"), std::string::npos) << r.to_string();
}

TEST_F(KubeCheckerTest, InformerStaleAtTheEndFailsConvergence) {
  informer().final_rv = 7;
  informer().final_objects = {obj("c", "c1", 6)};  // right for 7, but etcd went on to 8
  const Report r = run();
  EXPECT_TRUE(fails_with(r, {"informer-convergence"}));
  ASSERT_FALSE(r.violations.empty());
  EXPECT_NE(r.violations[0].what.find("stale at the end"), std::string::npos) << r.to_string();
}

// --- workqueue ---------------------------------------------------------------------------------

TEST_F(KubeCheckerTest, KeyNeverProcessedAfterItsLastChangeFailsWorkqueue) {
  informer().processed.pop_back();  // b=b2@8
  const Report r = run();
  EXPECT_TRUE(fails_with(r, {"workqueue"}));
  ASSERT_FALSE(r.violations.empty());
  EXPECT_NE(r.violations[0].what.find("'/registry/pods/b' last changed at rv 8"), std::string::npos) << r.to_string();
}

TEST_F(KubeCheckerTest, KeyGoneBeforeTheFirstListNeedsNoProcessing) {
  // d lived and died before the informer's first LIST: nobody told its controller.
  HistoryBuilder fresh;
  fresh.put(key("d"), "d1");
  fresh.del(key("d"));
  fresh.history().informers = b.history().informers;
  b = std::move(fresh);
  history::Informer& inf = informer();
  inf.lists = {list(0, 0, 3, {}, b.now_ns() + 100)};
  inf.watches.clear();
  inf.processed.clear();
  inf.final_rv = 3;
  inf.final_objects.clear();
  EXPECT_TRUE(passes(run()));
}

// --- what the truth does not know --------------------------------------------------------------

TEST_F(KubeCheckerTest, UnknownOutcomeWriteIsNotAViolation) {
  // A put of d with an unknown outcome took effect at revision 9; no write response and no etcd
  // watch shows it, so the truth cannot say what revision 9 holds. The informer saw it.
  b.put(key("d"), "d1", 0, history::Outcome::kUnknown, /*applied=*/true);
  history::Informer& inf = informer();
  inf.watches[0].events.pop_back();  // the bookmark at 8; the stream goes on
  event(inf.watches[0], Type::kAdded, "d", "d1", 9);
  bookmark(inf.watches[0], 9);
  inf.lists.push_back(list(2, 9, 9, {obj("b", "b2", 8), obj("c", "c1", 6), obj("d", "d1", 9)}, next_ns()));
  processed(inf, "d", 9, 9);
  inf.final_rv = 9;
  inf.final_objects = {obj("b", "b2", 8), obj("c", "c1", 6), obj("d", "d1", 9)};
  const Report r = run();
  EXPECT_TRUE(passes(r));
  EXPECT_GT(r.tallies[static_cast<size_t>(Check::kWatchEvents)].skipped, 0u) << r.to_string();
  EXPECT_GT(r.tallies[static_cast<size_t>(Check::kListState)].skipped, 0u) << r.to_string();
  EXPECT_GT(r.tallies[static_cast<size_t>(Check::kInformerConvergence)].skipped, 0u) << r.to_string();
}

TEST_F(KubeCheckerTest, UnknownOutcomeWriteElsewhereKeepsThePrefixKnown) {
  // The unknown write at 9 could only touch /other/y: revision 9 changed nothing under the prefix,
  // so an ADDED d@9 is an event etcd never made.
  b.put("/other/y", "y1", 0, history::Outcome::kUnknown, /*applied=*/true);
  history::Informer& inf = informer();
  inf.watches[0].events.pop_back();
  event(inf.watches[0], Type::kAdded, "d", "d1", 9);
  EXPECT_TRUE(fails_with(run(), {"watch-events"}));
}

TEST_F(KubeCheckerTest, PrefixWatchShowsWhatAnUnknownWriteDid) {
  // Like UnknownOutcomeWriteIsNotAViolation, but an etcd watch over the whole prefix delivered
  // revision 9: the truth knows it again, and a wrong value at 9 is a violation.
  const size_t w = b.watch(watch::testing::watch_request(kPrefix, "/registry/pods0", 2, true));
  b.put(key("d"), "d1", 0, history::Outcome::kUnknown, /*applied=*/true);
  b.deliver(w, 2, 9);
  history::Informer& inf = informer();
  inf.watches[0].events.pop_back();
  event(inf.watches[0], Type::kAdded, "d", "d-wrong", 9);
  inf.finished = false;  // its end is not this test's business
  const Report r = run();
  EXPECT_TRUE(fails_with(r, {"watch-events"}));
}

// The unknown put of d took effect at 9; an ok range over the whole prefix at 9 shows it (its kvs
// in this order), so a LIST at 9 without d is judged (and wrong).
void read_of_the_prefix_shows_what_an_unknown_write_did(KubeCheckerTest& t, std::vector<std::string> names) {
  t.b.put(key("d"), "d1", 0, history::Outcome::kUnknown, /*applied=*/true);
  history::Operation op;
  op.id = t.b.history().operations.size();
  op.client = 200;
  op.member = 1;
  op.invoke_ns = t.next_ns();
  op.return_ns = t.next_ns();
  op.outcome = history::Outcome::kOk;
  op.request.mutable_range()->set_key(kPrefix);
  op.request.mutable_range()->set_range_end("/registry/pods0");
  auto* range = op.response.mutable_range();
  range->mutable_header()->set_revision(9);
  const std::map<std::string, std::pair<std::string, int64_t>> state{{"b", {"b2", 8}}, {"c", {"c1", 6}}, {"d", {"d1", 9}}};
  for (const auto& name : names) {
    auto* kv = range->add_kvs();
    kv->set_key(key(name));
    kv->set_value(state.at(name).first);
    kv->set_mod_revision(state.at(name).second);
  }
  t.b.history().operations.push_back(std::move(op));
  t.informer(1).lists.push_back(t.list(0, 9, 9, {obj("b", "b2", 8), obj("c", "c1", 6)}, t.next_ns()));
  const Report r = t.run();
  EXPECT_TRUE(fails_with(r, {"list-state"}));
  EXPECT_EQ(r.tallies[static_cast<size_t>(Check::kListState)].skipped, 0u) << r.to_string();
}

TEST_F(KubeCheckerTest, ReadOfThePrefixShowsWhatAnUnknownWriteDid) {
  read_of_the_prefix_shows_what_an_unknown_write_did(*this, {"b", "c", "d"});
}

// etcd answers in key order, and the checker finds a prefix's keys in a read by search; a read out
// of order (a member's bug, or another tool's history) is walked whole and says the same.
TEST_F(KubeCheckerTest, ReadOfThePrefixOutOfKeyOrderSaysTheSame) {
  read_of_the_prefix_shows_what_an_unknown_write_did(*this, {"d", "b", "c"});
}

TEST_F(KubeCheckerTest, LeasedKeysAreUnknownWhereTheTruthHasGaps) {
  // e was put with a lease; revision 10 is unknown (an unknown-outcome write elsewhere, or the
  // lease's expiry): e may be gone there, so a LIST at 10 without it is not judged.
  b.put("/registry/leased/e", "e1", /*lease=*/77);                           // 9
  b.put("/other/y", "y1", 0, history::Outcome::kUnknown, /*applied=*/true);  // 10
  history::Informer& inf = informer(1);
  inf.prefix = "/registry/leased/";
  inf.lists.push_back(list(0, 10, 10, {}, next_ns()));
  const Report r = run();
  EXPECT_TRUE(passes(r));
  EXPECT_EQ(r.tallies[static_cast<size_t>(Check::kListState)].skipped, 1u) << r.to_string();
}

TEST_F(KubeCheckerTest, LeasedKeysAreKnownWhereTheTruthHasNoGap) {
  b.put("/registry/leased/e", "e1", /*lease=*/77);  // 9
  history::Informer& inf = informer(1);
  inf.prefix = "/registry/leased/";
  inf.lists.push_back(list(0, 9, 9, {}, next_ns()));
  EXPECT_TRUE(fails_with(run(), {"list-state"}));
}

}  // namespace
}  // namespace dst::checker::kube
