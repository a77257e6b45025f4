// The lease-keepalive-answered check on hand-made histories: a "gone" answer before the lease's
// promised life ends is a violation; a revoke, a restore, a late answer or a lost grant is not.
#include "checker/suite/lease_keepalive.h"

#include <gtest/gtest.h>

#include "checker/linearizability/etcd_test_builder.h"

namespace dst::checker::suite {
namespace {

using etcd::testing::HistoryBuilder;

etcdserverpb::ApiRequest grant_req(int64_t id, int64_t ttl) {
  etcdserverpb::ApiRequest r;
  r.mutable_lease_grant()->set_id(id);
  r.mutable_lease_grant()->set_ttl(ttl);
  return r;
}
etcdserverpb::ApiResponse grant_resp(int64_t id, int64_t ttl) {
  etcdserverpb::ApiResponse r;
  r.mutable_lease_grant()->set_id(id);
  r.mutable_lease_grant()->set_ttl(ttl);
  r.mutable_lease_grant()->mutable_header()->set_revision(1);
  return r;
}
etcdserverpb::ApiRequest keepalive_req(int64_t id) {
  etcdserverpb::ApiRequest r;
  r.mutable_lease_keep_alive()->set_id(id);
  return r;
}
etcdserverpb::ApiResponse keepalive_resp(int64_t id, int64_t ttl) {
  etcdserverpb::ApiResponse r;
  r.mutable_lease_keep_alive()->set_id(id);
  r.mutable_lease_keep_alive()->set_ttl(ttl);
  return r;
}
etcdserverpb::ApiRequest revoke_req(int64_t id) {
  etcdserverpb::ApiRequest r;
  r.mutable_lease_revoke()->set_id(id);
  return r;
}

// Lease 7 granted at 0 ms for 5 s, kept alive at 3 s (until at least ~8 s on a 0.1 % clock).
HistoryBuilder granted_and_kept() {
  HistoryBuilder b;
  b.op(1, 0, 10, grant_req(7, 5), grant_resp(7, 5));
  b.op(1, 3000, 3010, keepalive_req(7), keepalive_resp(7, 5));
  return b;
}

TEST(LeaseKeepAlive, GoneWhileItMustLiveIsAViolation) {
  HistoryBuilder b = granted_and_kept();
  const size_t gone = b.op(1, 4000, 4010, keepalive_req(7), keepalive_resp(7, 0));
  const KeepAliveReport r = check_keepalives(b.h);
  EXPECT_EQ(r.keepalives, 2u);
  EXPECT_EQ(r.gone_answers, 1u);
  ASSERT_EQ(r.violations_total, 1u);
  const Evidence& e = r.violations.front();
  EXPECT_EQ(e.check, "lease-keepalive-answered");
  EXPECT_EQ(e.rule, "lease-gone-early");
  EXPECT_EQ(e.ops, (std::vector<uint64_t>{1, gone}));  // the refresh that promised, and the answer
  EXPECT_EQ(e.at_ns, 4010 * HistoryBuilder::kMs);
  EXPECT_NE(e.message.find("lease 7"), std::string::npos) << e.message;
}

TEST(LeaseKeepAlive, GoneAfterItsLifeIsFine) {
  HistoryBuilder b = granted_and_kept();
  b.op(1, 9000, 9010, keepalive_req(7), keepalive_resp(7, 0));  // 3 s + 5 s / 1.001 < 9 s
  EXPECT_TRUE(check_keepalives(b.h).ok());
}

TEST(LeaseKeepAlive, ARevokeThatMayHaveHappenedExplainsIt) {
  for (history::Outcome revoke : {history::Outcome::kOk, history::Outcome::kUnknown}) {
    HistoryBuilder b = granted_and_kept();
    if (revoke == history::Outcome::kOk) b.op(2, 3500, 3510, revoke_req(7), {});
    else b.unknown(2, 3500, revoke_req(7));
    b.op(1, 4000, 4010, keepalive_req(7), keepalive_resp(7, 0));
    EXPECT_TRUE(check_keepalives(b.h).ok()) << history::outcome_name(revoke);
  }
  HistoryBuilder refused = granted_and_kept();  // a revoke that certainly failed explains nothing
  refused.failed(2, 3500, 3510, revoke_req(7));
  refused.op(1, 4000, 4010, keepalive_req(7), keepalive_resp(7, 0));
  EXPECT_EQ(check_keepalives(refused.h).violations_total, 1u);
}

TEST(LeaseKeepAlive, ARestoreInBetweenExplainsIt) {
  HistoryBuilder b = granted_and_kept();
  b.h.restores.push_back(history::Restore{3500 * HistoryBuilder::kMs, 3600 * HistoryBuilder::kMs, 1, 0, "s"});
  b.op(1, 4000, 4010, keepalive_req(7), keepalive_resp(7, 0));
  EXPECT_TRUE(check_keepalives(b.h).ok());
}

TEST(LeaseKeepAlive, OnlyAnsweredRefreshesPromise) {
  HistoryBuilder b;
  b.unknown(1, 0, grant_req(7, 5));  // its answer was lost: no TTL was promised to anyone
  b.op(1, 1000, 1010, keepalive_req(7), keepalive_resp(7, 0));
  EXPECT_TRUE(check_keepalives(b.h).ok());
}

TEST(LeaseKeepAlive, AFastClockShortensThePromise) {
  HistoryBuilder b = granted_and_kept();
  b.h.faults.push_back(history::Fault{"clock-drift", "n1 500000ppm", 0, history::kNeverReturned});
  b.op(1, 7000, 7010, keepalive_req(7), keepalive_resp(7, 0));  // 3 s + 5 s / 1.5 = 6.33 s < 7 s
  EXPECT_TRUE(check_keepalives(b.h).ok());
  b.h.faults.clear();
  EXPECT_EQ(check_keepalives(b.h).violations_total, 1u);
}

TEST(LeaseKeepAlive, KeepsTheFirstViolationsAndCountsTheRest) {
  HistoryBuilder b = granted_and_kept();
  for (int i = 0; i < 15; ++i) b.op(3, 4000 + i * 10, 4005 + i * 10, keepalive_req(7), keepalive_resp(7, 0));
  const KeepAliveReport r = check_keepalives(b.h);
  EXPECT_EQ(r.violations_total, 15u);
  EXPECT_EQ(r.violations.size(), kKeepAliveViolationsKept);
}

}  // namespace
}  // namespace dst::checker::suite
