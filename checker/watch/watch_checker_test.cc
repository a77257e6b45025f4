// Hand-built histories for every watch guarantee, both directions: the correct history passes, and
// breaking exactly one thing in it fails naming that guarantee (and only it).
#include "checker/watch/watch_checker.h"

#include <gtest/gtest.h>

#include "checker/watch/history_builder.h"

namespace dst::checker::watch {
namespace {

using testing::HistoryBuilder;
using testing::watch_request;

// Only guarantee `g` is named (the report is printed when not, to see what was found instead).
::testing::AssertionResult only(const Report& report, Guarantee g) {
  for (size_t i = 0; i < kGuaranteeCount; ++i) {
    const bool expected = i == static_cast<size_t>(g);
    if ((report.violations_by_guarantee[i] > 0) != expected)
      return ::testing::AssertionFailure() << "expected only " << guarantee_name(g) << ", got:\n" << report.to_string();
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult passes(const Report& report) {
  if (report.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << report.to_string();
}

// Revisions: 2 put a=1, 3 put b=1, 4 txn{a=2, c=1}, 5 del b, 6 put a=3, 7 txn{b=2, del c}.
// Watch 0 over [a, d) with prev_kv from revision 1: responses 0 created, 1 [2..3], 2 [4..5],
// 3 progress 5, 4 [6..7].
class WatchCheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    b.put("a", "1");
    b.put("b", "1");
    b.txn({{"a", "2"}, {"c", "1"}});
    b.del("b");
    b.put("a", "3");
    b.txn({{"b", "2"}, {"c", "", true}});
    ASSERT_EQ(b.revision(), 7);
    w = b.watch(watch_request("a", "d", 1, true));
    b.created(w, 7);
  }
  void deliver_all() {
    b.deliver(w, 2, 3);
    b.deliver(w, 4, 5);
    b.progress(w, 5);
    b.deliver(w, 6, 7);
  }
  google::protobuf::RepeatedPtrField<mvccpb::Event>& events(size_t response, size_t segment = 0) {
    return *b.segment(w, segment).responses.at(response).response.mutable_events();
  }
  Report run() { return check(b.history()); }

  HistoryBuilder b;
  size_t w = 0;
};

TEST_F(WatchCheckerTest, CorrectHistoryPasses) {
  deliver_all();
  const Report r = run();
  EXPECT_TRUE(passes(r));
  EXPECT_EQ(r.revisions_known, 6u);
  EXPECT_EQ(r.revisions_complete, 6u);
  EXPECT_EQ(r.events, 8u);
}

TEST_F(WatchCheckerTest, DroppedEventBreaksReliable) {
  deliver_all();
  events(1).DeleteSubrange(1, 1);  // b=1 @3; the watch goes on with revision 4
  EXPECT_TRUE(only(run(), Guarantee::kReliable));
}

TEST_F(WatchCheckerTest, DroppedEventOfADeliveredRevisionBreaksReliable) {
  deliver_all();
  events(2).DeleteSubrange(1, 1);  // c=1 @4 while a=2 @4 arrived
  EXPECT_TRUE(only(run(), Guarantee::kReliable));
}

TEST_F(WatchCheckerTest, DuplicatedEventBreaksUnique) {
  deliver_all();
  *events(2).Add() = events(1).Get(0);
  EXPECT_TRUE(only(run(), Guarantee::kUnique));
}

TEST_F(WatchCheckerTest, SwappedEventsBreakOrdered) {
  deliver_all();
  events(1).SwapElements(0, 1);
  EXPECT_TRUE(only(run(), Guarantee::kOrdered));
}

TEST_F(WatchCheckerTest, RevisionSplitAcrossResponsesBreaksAtomic) {
  b.deliver(w, 2, 3);
  b.respond(w, {b.matching(b.segment(w, 0).request, 4, 4)[0]});
  b.respond(w, {b.matching(b.segment(w, 0).request, 4, 4)[1]});
  b.deliver(w, 5, 7);
  EXPECT_TRUE(only(run(), Guarantee::kAtomic));
}

TEST_F(WatchCheckerTest, FragmentsOfOneResponseAreNotASplit) {
  b.deliver(w, 2, 3);
  b.respond(w, {b.matching(b.segment(w, 0).request, 4, 4)[0]});
  b.segment(w, 0).responses.back().response.set_fragment(true);
  b.respond(w, {b.matching(b.segment(w, 0).request, 4, 4)[1]});
  b.deliver(w, 5, 7);
  EXPECT_TRUE(passes(run()));
}

TEST_F(WatchCheckerTest, ProgressAheadOfAnUndeliveredEventBreaksBookmarkable) {
  b.deliver(w, 2, 3);
  b.progress(w, 4);  // revision 4 (a=2, c=1) not delivered yet
  b.deliver(w, 4, 7);
  EXPECT_TRUE(only(run(), Guarantee::kBookmarkable));
}

TEST_F(WatchCheckerTest, ProgressAheadOfAnEventNeverDeliveredBreaksBookmarkable) {
  b.deliver(w, 2, 5);
  b.progress(w, 7);  // etcd #15220: progress while the watcher was still catching up
  EXPECT_TRUE(only(run(), Guarantee::kBookmarkable));
}

TEST_F(WatchCheckerTest, StreamWideProgressAtTheDeliveredRevisionPasses) {
  b.deliver(w, 2, 5);
  b.progress(w, 5, -1);
  b.progress(w, 5, 0);
  b.deliver(w, 6, 7);
  b.progress(w, 7, -1);
  EXPECT_TRUE(passes(run()));
}

TEST_F(WatchCheckerTest, CorrectResumePasses) {
  b.deliver(w, 2, 3);
  b.resume(w, 4);
  b.created(w, 7);
  b.deliver(w, 4, 7);
  EXPECT_TRUE(passes(run()));
}

TEST_F(WatchCheckerTest, ResumeAfterProgressFromTheProgressRevisionPasses) {
  b.deliver(w, 2, 5);
  b.progress(w, 5);
  b.resume(w, 6);
  b.deliver(w, 6, 7);
  EXPECT_TRUE(passes(run()));
}

TEST_F(WatchCheckerTest, ResumeFromTooHighARevisionBreaksResumable) {
  b.deliver(w, 2, 3);
  b.resume(w, 5);  // skips revision 4
  b.created(w, 7);
  b.deliver(w, 5, 7);
  EXPECT_TRUE(only(run(), Guarantee::kResumable));
}

TEST_F(WatchCheckerTest, ResumedSegmentSkippingItsFirstEventBreaksResumable) {
  b.deliver(w, 2, 3);
  b.resume(w, 4);
  b.created(w, 7);
  b.deliver(w, 5, 7);  // the server started at 5 although asked for 4
  EXPECT_TRUE(only(run(), Guarantee::kResumable));
}

TEST_F(WatchCheckerTest, ResumeFromTooLowARevisionBreaksUnique) {
  b.deliver(w, 2, 3);
  b.resume(w, 3);
  b.deliver(w, 3, 7);  // b=1 @3 again
  EXPECT_TRUE(only(run(), Guarantee::kUnique));
}

TEST_F(WatchCheckerTest, WrongPrevKvValueBreaksPrevKv) {
  deliver_all();
  events(2).Mutable(0)->mutable_prev_kv()->set_value("1x");  // a=2 @4, prev a=1 @2
  EXPECT_TRUE(only(run(), Guarantee::kPrevKv));
}

TEST_F(WatchCheckerTest, MissingPrevKvBreaksPrevKv) {
  deliver_all();
  events(2).Mutable(2)->clear_prev_kv();  // delete b @5 existed at 4
  EXPECT_TRUE(only(run(), Guarantee::kPrevKv));
}

TEST_F(WatchCheckerTest, PrevKvForANewKeyBreaksPrevKv) {
  deliver_all();
  *events(2).Mutable(1)->mutable_prev_kv() = events(1).Get(0).kv();  // c=1 @4 is a creation
  EXPECT_TRUE(only(run(), Guarantee::kPrevKv));
}

TEST_F(WatchCheckerTest, PrevKvUnaskedBreaksPrevKv) {
  b.history().watches.clear();
  w = b.watch(watch_request("a", "d", 2, false));
  b.deliver(w, 2, 7);
  EXPECT_TRUE(passes(run()));
  *events(0).Mutable(2)->mutable_prev_kv() = events(0).Get(0).kv();
  EXPECT_TRUE(only(run(), Guarantee::kPrevKv));
}

TEST_F(WatchCheckerTest, UpdateMarkedAsCreationBreaksIsCreate) {
  deliver_all();
  auto* kv = events(2).Mutable(0)->mutable_kv();  // a=2 @4 updates a
  kv->set_create_revision(4);
  kv->set_version(1);
  EXPECT_TRUE(only(run(), Guarantee::kIsCreate));
}

TEST_F(WatchCheckerTest, CreationNotMarkedBreaksIsCreate) {
  deliver_all();
  auto* kv = events(2).Mutable(1)->mutable_kv();  // c=1 @4 creates c
  kv->set_create_revision(2);
  kv->set_version(2);
  EXPECT_TRUE(only(run(), Guarantee::kIsCreate));
}

TEST_F(WatchCheckerTest, RecreatedKeyIsACreation) {
  deliver_all();
  b.put("c", "again");  // 8: c was deleted at 7
  b.deliver(w, 8, 8);
  EXPECT_EQ(events(5).Get(0).kv().create_revision(), 8);
  EXPECT_TRUE(passes(run()));
  events(5).Mutable(0)->mutable_kv()->set_create_revision(4);
  events(5).Mutable(0)->mutable_kv()->set_version(2);
  EXPECT_TRUE(only(run(), Guarantee::kIsCreate));
}

TEST_F(WatchCheckerTest, KeyOutsideTheRangeBreaksFilter) {
  b.put("z", "1");  // 8
  deliver_all();
  mvccpb::Event z = b.events_at(8)[0];
  z.clear_prev_kv();
  *events(4).Add() = z;
  EXPECT_TRUE(only(run(), Guarantee::kFilter));
}

TEST_F(WatchCheckerTest, NoPutAndNoDeleteFiltersAreRespected) {
  auto req = watch_request("a", "d", 2, false);
  req.add_filters(etcdserverpb::WatchCreateRequest::NOPUT);
  const size_t deletes = b.watch(req);
  b.deliver(deletes, 2, 7);
  req.clear_filters();
  req.add_filters(etcdserverpb::WatchCreateRequest::NODELETE);
  const size_t puts = b.watch(req);
  b.deliver(puts, 2, 7);
  deliver_all();
  EXPECT_TRUE(passes(run()));
  ASSERT_EQ(b.segment(deletes, 0).responses[0].response.events_size(), 2);

  auto put_event = b.segment(puts, 0).responses[0].response.events(0);
  *b.segment(deletes, 0).responses[0].response.mutable_events()->Add() = put_event;  // a=1 @2 after @7
  const Report r = run();
  EXPECT_GT(r.violations_by_guarantee[static_cast<size_t>(Guarantee::kFilter)], 0u) << r.to_string();
}

TEST_F(WatchCheckerTest, PutToANoPutWatchBreaksFilter) {
  auto req = watch_request("a", "d", 2, false);
  req.add_filters(etcdserverpb::WatchCreateRequest::NOPUT);
  const size_t deletes = b.watch(req);
  ASSERT_EQ(b.deliver(deletes, 2, 4), SIZE_MAX);                            // no deletes yet
  b.respond(deletes, b.matching(watch_request("a", "d", 2, false), 2, 2));  // a=1 @2 is a PUT
  b.deliver(deletes, 3, 7);
  w = deletes;
  EXPECT_TRUE(only(run(), Guarantee::kFilter));
}

TEST_F(WatchCheckerTest, EventBelowTheStartRevisionBreaksFilter) {
  b.history().watches.clear();
  w = b.watch(watch_request("a", "d", 4, true));
  b.deliver(w, 4, 7);
  EXPECT_TRUE(passes(run()));
  b.history().watches.clear();
  w = b.watch(watch_request("a", "d", 4, true));
  b.deliver(w, 3, 7);
  EXPECT_TRUE(only(run(), Guarantee::kFilter));
}

TEST_F(WatchCheckerTest, WatchFromNowStartsAfterTheCreationRevision) {
  b.history().watches.clear();
  w = b.watch(watch_request("a", "d", 0, true));
  b.created(w, 5);
  b.deliver(w, 6, 7);
  EXPECT_TRUE(passes(run()));
  b.history().watches.clear();
  w = b.watch(watch_request("a", "d", 0, true));
  b.created(w, 5);
  b.deliver(w, 7, 7);  // lost a=3 @6
  EXPECT_TRUE(only(run(), Guarantee::kReliable));
}

TEST_F(WatchCheckerTest, TwoWatchesDisagreeingAboutARevisionBreakConsistent) {
  deliver_all();
  b.put("b", "secret", 0, history::Outcome::kUnknown);  // 8: known only to the watches
  b.deliver(w, 8, 8);
  const size_t other = b.watch(watch_request("b", "", 8, false));
  b.deliver(other, 8, 8);
  EXPECT_TRUE(passes(run()));
  b.segment(other, 0).responses[0].response.mutable_events(0)->mutable_kv()->set_value("other");
  EXPECT_TRUE(only(run(), Guarantee::kConsistent));
}

TEST_F(WatchCheckerTest, WatchEventAtAWritesRevisionForAnotherKeyBreaksConsistent) {
  deliver_all();
  mvccpb::Event fake = events(4).Get(0);  // a=3 @6 (a put of one key: one event)
  fake.mutable_kv()->set_key("b");
  fake.clear_prev_kv();
  fake.mutable_kv()->set_create_revision(6);
  fake.mutable_kv()->set_version(1);
  events(4).Add()->CopyFrom(fake);
  const Report r = run();
  EXPECT_GT(r.violations_by_guarantee[static_cast<size_t>(Guarantee::kConsistent)], 0u) << r.to_string();
}

TEST_F(WatchCheckerTest, UnknownOutcomeWriteSeenByOneWatchIsOwedToTheOthers) {
  b.put("a", "u", 0, history::Outcome::kUnknown);  // 8
  b.put("a", "v");                                 // 9
  deliver_all();
  b.deliver(w, 8, 9);
  const size_t other = b.watch(watch_request("a", "", 7, true));
  b.deliver(other, 7, 9);
  EXPECT_TRUE(passes(run()));
  auto& evs = *b.segment(other, 0).responses[0].response.mutable_events();
  ASSERT_EQ(evs.Get(0).kv().mod_revision(), 8);
  evs.DeleteSubrange(0, 1);
  EXPECT_TRUE(only(run(), Guarantee::kReliable));
}

TEST_F(WatchCheckerTest, RangeDeleteKeysLearnedFromAWatch) {
  b.put("c", "2");        // 8
  b.del_range("a", "c");  // 9: deletes a and b, keys unknown from the response
  b.put("b", "3");        // 10: a creation, which only the range delete's keys tell
  deliver_all();
  b.deliver(w, 8, 10);
  EXPECT_TRUE(passes(run()));
  auto& evs = *b.segment(w, 0).responses.back().response.mutable_events();
  ASSERT_EQ(evs.size(), 4);
  evs.Mutable(3)->mutable_kv()->set_create_revision(3);  // b=3 @10 claimed as an update
  evs.Mutable(3)->mutable_kv()->set_version(3);
  EXPECT_TRUE(only(run(), Guarantee::kIsCreate));
}

TEST_F(WatchCheckerTest, RevisionNobodySawMakesKeyStatesUnknownNotWrong) {
  b.put("z", "1", 0, history::Outcome::kUnknown);  // 8: applied, but no source tells of it
  b.put("a", "4");                                 // 9
  deliver_all();
  b.deliver(w, 8, 9);
  EXPECT_TRUE(passes(run()));
  // a's state before 9 is unknown to the truth (revision 8 might have changed it): no prev_kv
  // verdict either way, rather than a guess.
  events(5).Mutable(0)->mutable_prev_kv()->set_value("guess");
  EXPECT_TRUE(passes(run()));
  // ... until a source fills the gap: here the write's response, which says revision 8 was its put.
  history::Operation& op = b.history().operations[b.history().operations.size() - 2];
  op.outcome = history::Outcome::kOk;
  op.return_ns = op.invoke_ns + 1;
  op.response.mutable_put()->mutable_header()->set_revision(8);
  EXPECT_TRUE(only(run(), Guarantee::kPrevKv));
}

// etcd omits prev_kv when the revision before the event is compacted: a watch started at the
// compaction revision gets its first events without it. Anywhere else it is still required.
TEST_F(WatchCheckerTest, PrevKvMayBeMissingOnlyWhereItsRevisionIsCompacted) {
  b.compact(6);
  b.history().watches.clear();
  w = b.watch(watch_request("a", "d", 6, true));
  b.created(w, 7);
  b.deliver(w, 6, 7);
  events(1).Mutable(0)->clear_prev_kv();  // put a=3 @6: its prev (a=2 @4) is compacted
  EXPECT_TRUE(passes(run()));
  events(1).Mutable(2)->clear_prev_kv();  // del c @7: its prev (c=1 @4) is readable at 6
  EXPECT_TRUE(only(run(), Guarantee::kPrevKv));
}

TEST_F(WatchCheckerTest, CompactionCancelAtOrBelowTheNeededRevisionIsWrong) {
  b.compact(5);
  b.history().watches.clear();
  w = b.watch(watch_request("a", "d", 3, false));
  b.created(w, 7);
  b.cancel(w, 5);
  EXPECT_TRUE(passes(run()));

  b.history().watches.clear();
  w = b.watch(watch_request("a", "d", 5, false));  // revision 5 is kept by a compaction at 5
  b.created(w, 7);
  b.cancel(w, 5);
  EXPECT_TRUE(only(run(), Guarantee::kCompaction));

  b.history().watches.clear();
  w = b.watch(watch_request("a", "d", 3, false));
  b.created(w, 7);
  b.cancel(w, 6);  // nobody compacted at 6
  EXPECT_TRUE(only(run(), Guarantee::kCompaction));
}

TEST_F(WatchCheckerTest, ReportNamesTheWatchClientMemberAndEvents) {
  deliver_all();
  events(1).DeleteSubrange(1, 1);
  const Report r = run();
  ASSERT_EQ(r.violations.size(), 1u);
  const Violation& v = r.violations[0];
  EXPECT_EQ(v.watch_id, 0u);
  EXPECT_EQ(v.client, 1u);
  EXPECT_EQ(v.member, 1u);
  const std::string text = r.to_string();
  EXPECT_NE(text.find("reliable"), std::string::npos) << text;
  EXPECT_NE(text.find("'b'='1' @3"), std::string::npos) << text;
  EXPECT_LT(std::count(text.begin(), text.end(), '\n'), 10) << text;
}

}  // namespace
}  // namespace dst::checker::watch
