#include "history/restore_epochs.h"

#include <gtest/gtest.h>

namespace dst::history {
namespace {

Operation put(uint64_t id, int64_t at, const std::string& key, int64_t rev) {
  Operation op;
  op.id = id;
  op.client = 1;
  op.invoke_ns = at;
  op.return_ns = at + 1;
  op.request.mutable_put()->set_key(key);
  op.request.mutable_put()->set_value("v" + std::to_string(id));
  op.outcome = Outcome::kOk;
  op.response.mutable_put()->mutable_header()->set_revision(rev);
  return op;
}

Operation read_at(uint64_t id, int64_t at, int64_t rev, int64_t mod_rev) {
  Operation op;
  op.id = id;
  op.invoke_ns = at;
  op.return_ns = at + 1;
  op.request.mutable_range()->set_key("a");
  op.outcome = Outcome::kOk;
  op.response.mutable_range()->mutable_header()->set_revision(rev);
  auto* kv = op.response.mutable_range()->add_kvs();
  kv->set_key("a");
  kv->set_mod_revision(mod_rev);
  kv->set_create_revision(mod_rev);
  return op;
}

// Puts at revisions 2..5 before the disaster (t=100); the snapshot held revision 3; the cluster
// restored at t=200 with bump 1000 starts at 1003, its first write at 1004.
History sample() {
  History h;
  for (int64_t r = 2; r <= 5; ++r) h.operations.push_back(put(r - 2, 10 * r, "k" + std::to_string(r), r));
  h.operations.push_back(put(4, 300, "a", 1004));
  h.operations.push_back(read_at(5, 400, 1004, 1004));
  h.restores.push_back(Restore{100, 200, 3, 1000, "s1"});
  return h;
}

TEST(RestoreEpochs, OneTimelinePerRestoreWithEveryIdKept) {
  const History h = sample();
  EXPECT_TRUE(revisions_went_back(h).empty());
  for (size_t k = 0; k <= 1; ++k) {
    const RestoreTimeline tl = restore_timeline(h, k);
    ASSERT_EQ(tl.history.operations.size(), 6u);
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(tl.history.operations[i].id, i);
  }
  EXPECT_EQ(restore_timeline(h, 0).label, "before the first disaster");
  EXPECT_EQ(restore_timeline(h, 1).label, "after restore 1 at t=0.000000s (snapshot s1 at revision 3, bump 1000)");
}

TEST(RestoreEpochs, TheFirstTimelineEndsAtTheDisaster) {
  const History t0 = restore_timeline(sample(), 0).history;
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(t0.operations[i].outcome, Outcome::kOk);
  EXPECT_EQ(t0.operations[4].outcome, Outcome::kFailed);  // the restored cluster's
  EXPECT_EQ(t0.operations[5].outcome, Outcome::kFailed);
  EXPECT_TRUE(t0.restores.empty());
}

TEST(RestoreEpochs, WhatFollowedTheSnapshotIsLostAndTheBumpIsMappedBack) {
  const RestoreTimeline t1 = restore_timeline(sample(), 1);
  const History& h = t1.history;
  EXPECT_EQ(h.operations[0].outcome, Outcome::kOk);  // revision 2: in the snapshot
  EXPECT_EQ(h.operations[1].outcome, Outcome::kOk);  // revision 3: the snapshot's own
  EXPECT_EQ(h.operations[2].outcome, Outcome::kFailed);  // revision 4: lost by design
  EXPECT_NE(h.operations[2].response.error().message().find("lost by restore 1"), std::string::npos);
  EXPECT_EQ(h.operations[3].outcome, Outcome::kFailed);
  EXPECT_EQ(h.operations[4].response.put().header().revision(), 4);  // 1004 - 1000
  EXPECT_EQ(h.operations[5].response.range().header().revision(), 4);
  EXPECT_EQ(h.operations[5].response.range().kvs(0).mod_revision(), 4);
  EXPECT_EQ(t1.restored_revision, 3);
  ASSERT_EQ(h.restores.size(), 1u);
  EXPECT_EQ(h.restores[0].revision, 3);  // the marked compaction, in the timeline's revisions
}

TEST(RestoreEpochs, WatchSegmentsOfTheOldClusterAreEmptiedAndTheResumeMapped) {
  History h = sample();
  Watch w;
  w.id = 0;
  WatchSegment before;
  before.created_ns = 5;
  before.request.set_start_revision(2);
  for (int64_t r = 2; r <= 5; ++r) {
    WatchResponse resp;
    resp.at_ns = 10 * r + 1;
    resp.response.mutable_header()->set_revision(r);
    resp.response.add_events()->mutable_kv()->set_mod_revision(r);
    before.responses.push_back(resp);
  }
  WatchSegment after;
  after.created_ns = 250;
  after.request.set_start_revision(6);  // resumed after what it saw: inside the bump
  WatchResponse cancel;
  cancel.at_ns = 251;
  cancel.response.set_canceled(true);
  cancel.response.set_compact_revision(1003);
  cancel.response.mutable_header()->set_revision(1003);
  after.responses.push_back(cancel);
  w.segments = {before, after};
  h.watches.push_back(w);
  const History t1 = restore_timeline(h, 1).history;
  const auto& segs = t1.watches[0].segments;
  EXPECT_TRUE(segs[0].responses.empty());  // judged in timeline 0
  EXPECT_EQ(segs[0].request.start_revision(), 0);  // nothing to resume from
  EXPECT_TRUE(segs[0].broken);
  EXPECT_EQ(segs[1].request.start_revision(), 3);  // inside the bump: as gone as the snapshot's R
  EXPECT_EQ(segs[1].responses[0].response.compact_revision(), 4);  // "from R + 1 on"
  EXPECT_EQ(segs[1].responses[0].response.header().revision(), 3);
  const History t0 = restore_timeline(h, 0).history;
  EXPECT_EQ(t0.watches[0].segments[0].responses.size(), 4u);
  EXPECT_TRUE(t0.watches[0].segments[1].responses.empty());
}

// A revision the restored cluster skipped (between R and R + B) or its first one (R + B), in a
// request, reads as what it selects on the restored cluster.
TEST(RestoreEpochs, SkippedRevisionsInRequestsSelectWhatTheyDidOnTheCluster) {
  History h = sample();
  Operation scan = read_at(6, 500, 1004, 1004);
  scan.request.mutable_range()->set_min_create_revision(500);  // >= 500: only the new revisions
  scan.request.mutable_range()->set_max_mod_revision(1003);    // <= 1003: only the snapshot's
  h.operations.push_back(scan);
  Operation cas = put(7, 600, "a", 1005);
  cas.request.Clear();
  auto* t = cas.request.mutable_txn();
  auto* less = t->add_compare();
  less->set_result(etcdserverpb::Compare::LESS);
  less->set_target(etcdserverpb::Compare::MOD);
  less->set_mod_revision(700);  // < 700: up to R
  auto* eq = t->add_compare();
  eq->set_result(etcdserverpb::Compare::EQUAL);
  eq->set_target(etcdserverpb::Compare::MOD);
  eq->set_mod_revision(700);  // no key has it
  auto* gt = t->add_compare();
  gt->set_result(etcdserverpb::Compare::GREATER);
  gt->set_target(etcdserverpb::Compare::CREATE);
  gt->set_create_revision(1003);  // > 1003: the new revisions
  h.operations.push_back(cas);
  const History t1 = restore_timeline(h, 1).history;
  EXPECT_EQ(t1.operations[6].request.range().min_create_revision(), 4);
  EXPECT_EQ(t1.operations[6].request.range().max_mod_revision(), 3);
  const auto& c = t1.operations[7].request.txn();
  EXPECT_EQ(c.compare(0).mod_revision(), 4);   // x < 4 <=> x <= 3
  EXPECT_EQ(c.compare(1).mod_revision(), -1);  // never equal
  EXPECT_EQ(c.compare(2).create_revision(), 3);  // x > 3 <=> x >= 4
}

TEST(RestoreEpochs, ARestoredClusterAnsweringBelowItsStartIsCaught) {
  History h = sample();
  h.operations[4].response.mutable_put()->mutable_header()->set_revision(3);  // revisions restarted
  const std::vector<RevisionWentBack> back = revisions_went_back(h);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].op, 4u);
  EXPECT_EQ(back[0].floor, 1003);
  EXPECT_NE(back[0].message.find("revisions went back"), std::string::npos);
  // A serializable read may come from a member added after the restore that has not caught up.
  History lagging = sample();
  Operation stale = read_at(6, 500, 1, 0);
  stale.request.mutable_range()->set_serializable(true);
  lagging.operations.push_back(stale);
  EXPECT_TRUE(revisions_went_back(lagging).empty());
}

TEST(RestoreEpochs, TwoRestoresChainTheirMappings) {
  History h = sample();
  // A second snapshot at revision 1005 (timeline revision 5), a disaster at 500, restore at 600
  // with bump 10: the next write is at 1016, which reads as 6.
  h.operations.push_back(put(6, 450, "b", 1005));
  h.operations.push_back(put(7, 700, "c", 1016));
  h.restores.push_back(Restore{500, 600, 1005, 10, "s2"});
  const RestoreTimeline tl2 = restore_timeline(h, 2);
  const History& t2 = tl2.history;
  EXPECT_EQ(t2.operations[6].response.put().header().revision(), 5);
  EXPECT_EQ(t2.operations[6].outcome, Outcome::kOk);
  EXPECT_EQ(t2.operations[7].response.put().header().revision(), 6);
  EXPECT_EQ(t2.operations[2].outcome, Outcome::kFailed);  // lost by the first restore
  EXPECT_EQ(tl2.restored_revision, 5);
}

// A snapshot taken from a restored cluster before any write is at R1 + B1 exactly; a watch start
// inside the second restore's gap must read as compacted at the first one's R, not R + 1.
TEST(RestoreEpochs, AStartInsideAChainedGapStaysCompacted) {
  History h = sample();                                 // R1 = 3, B1 = 1000
  h.restores.push_back(Restore{500, 600, 1003, 1000, "s2"});  // R2 = R1 + B1
  Watch w;
  WatchSegment seg;
  seg.created_ns = 700;
  seg.request.set_start_revision(1500);  // inside (1003, 2003): compacted on the cluster
  WatchResponse cancel;
  cancel.at_ns = 701;
  cancel.response.set_canceled(true);
  cancel.response.set_compact_revision(2003);
  cancel.response.mutable_header()->set_revision(2003);
  seg.responses.push_back(cancel);
  w.segments.push_back(seg);
  h.watches.push_back(w);
  const History t2 = restore_timeline(h, 2).history;
  EXPECT_EQ(t2.watches[0].segments[0].request.start_revision(), 3);
  EXPECT_EQ(t2.watches[0].segments[0].responses[0].response.compact_revision(), 4);
  EXPECT_EQ(t2.watches[0].segments[0].responses[0].response.header().revision(), 3);
}

// A lease grant answered at exactly the snapshot's revision may have been applied after the
// snapshot was read: in or out of the restored cluster, both are right.
TEST(RestoreEpochs, AChangeWithoutARevisionAtTheCutBecomesUnknown) {
  History h = sample();
  Operation grant;
  grant.id = 6;
  grant.invoke_ns = 35;
  grant.return_ns = 36;
  grant.request.mutable_lease_grant()->set_ttl(10);
  grant.outcome = Outcome::kOk;
  grant.response.mutable_lease_grant()->mutable_header()->set_revision(3);
  h.operations.push_back(grant);
  EXPECT_EQ(restore_timeline(h, 0).history.operations[6].outcome, Outcome::kOk);
  EXPECT_EQ(restore_timeline(h, 1).history.operations[6].outcome, Outcome::kUnknown);
}

}  // namespace
}  // namespace dst::history
