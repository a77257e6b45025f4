// etcd 3.4's server flags as dst shell and scenarios read them (etcdmain/config.go, embed/etcd.go).
#include "client/etcdctl/etcd_server_flags.h"

#include <gtest/gtest.h>

#include <limits>

namespace dst::etcdctl {
namespace {

Result<node::ServerOptions> apply(std::vector<std::pair<std::string, std::string>> given) {
  node::ServerOptions o;
  Status s = apply_etcd_server_flags(EtcdServerFlags{std::move(given)}, o);
  if (!s.is_ok()) return s;
  return o;
}

std::string error(std::vector<std::pair<std::string, std::string>> given) {
  Result<node::ServerOptions> r = apply(std::move(given));
  return r.is_ok() ? "(accepted)" : r.status().message();
}

TEST(EtcdServerFlags, NoFlagsLeaveTheMemberAsItWas) {
  Result<node::ServerOptions> r = apply({});
  ASSERT_TRUE(r.is_ok());
  const node::ServerOptions defaults;
  EXPECT_EQ(r->api.quota_bytes, defaults.api.quota_bytes);
  EXPECT_EQ(r->api.max_txn_ops, 128u);
  EXPECT_EQ(r->api.max_request_bytes, 1572864u);
  EXPECT_EQ(r->snapshot_every, defaults.snapshot_every);
  EXPECT_FALSE(r->api.auto_compaction.enabled());
}

TEST(EtcdServerFlags, QuotaZeroIsEtcdsDefaultAndNegativeTurnsItOff) {
  EXPECT_EQ(apply({{"quota-backend-bytes", "0"}})->api.quota_bytes, uint64_t{2} << 30);
  EXPECT_EQ(apply({{"quota-backend-bytes", "-1"}})->api.quota_bytes, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(apply({{"quota-backend-bytes", "16384"}})->api.quota_bytes, 16384u);
  EXPECT_EQ(apply({{"quota-backend-bytes", "0x4000"}})->api.quota_bytes, 16384u);  // Go's base-0 integers
  EXPECT_EQ(error({{"quota-backend-bytes", "16k"}}),
            "--quota-backend-bytes: expected an integer (0: etcd's 2 GiB, negative: no quota), got \"16k\"");
  EXPECT_EQ(error({{"quota-backend-bytes", "2199023255553"}}), "--quota-backend-bytes: at most 1099511627776, got 2199023255553");
}

TEST(EtcdServerFlags, LimitsAcceptZeroAndRefuseNegativeOrHuge) {
  EXPECT_EQ(apply({{"max-txn-ops", "0"}})->api.max_txn_ops, 0u);
  EXPECT_EQ(apply({{"max-txn-ops", "2"}})->api.max_txn_ops, 2u);
  EXPECT_EQ(apply({{"max-request-bytes", "4096"}})->api.max_request_bytes, 4096u);
  EXPECT_EQ(error({{"max-txn-ops", "-1"}}), "--max-txn-ops: expected a non-negative integer, got \"-1\"");
  EXPECT_EQ(error({{"max-txn-ops", "100001"}}), "--max-txn-ops: at most 100000, got 100001");
  EXPECT_EQ(error({{"max-request-bytes", ""}}), "--max-request-bytes: expected a non-negative integer, got \"\"");
  EXPECT_EQ(error({{"max-request-bytes", "99999999999999999999"}}),
            "--max-request-bytes: expected a non-negative integer, got \"99999999999999999999\"");
}

TEST(EtcdServerFlags, SnapshotCountZeroIsEtcdsDefault) {
  EXPECT_EQ(apply({{"snapshot-count", "0"}})->snapshot_every, 100'000u);
  EXPECT_EQ(apply({{"snapshot-count", "50"}})->snapshot_every, 50u);
  EXPECT_EQ(error({{"snapshot-count", "10000001"}}), "--snapshot-count: at most 10000000, got 10000001");
}

TEST(EtcdServerFlags, PeriodicRetentionIsHoursOrADuration) {
  Result<node::AutoCompaction> hours = parse_auto_compaction("periodic", "2");
  ASSERT_TRUE(hours.is_ok());
  EXPECT_EQ(hours->mode, node::AutoCompaction::Mode::kPeriodic);
  EXPECT_EQ(hours->period, sim::seconds(7200));
  EXPECT_EQ(parse_auto_compaction("periodic", "30m")->period, sim::seconds(1800));
  EXPECT_EQ(parse_auto_compaction("periodic", "1h30m")->period, sim::seconds(5400));
  EXPECT_EQ(parse_auto_compaction("periodic", "300ms")->period, sim::milliseconds(300));
  EXPECT_FALSE(parse_auto_compaction("periodic", "0")->enabled());
  EXPECT_FALSE(parse_auto_compaction("periodic", "0s")->enabled());
  EXPECT_EQ(parse_auto_compaction("periodic", "1000")->period, sim::seconds(1000 * 3600));
  EXPECT_EQ(parse_auto_compaction("periodic", "1001").status().message(),
            "--auto-compaction-retention: a periodic retention of at most 1000h, got 1001");
}

TEST(EtcdServerFlags, RevisionRetentionIsACountAndADurationReadsAsNanoseconds) {
  Result<node::AutoCompaction> r = parse_auto_compaction("revision", "1000");
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->mode, node::AutoCompaction::Mode::kRevision);
  EXPECT_EQ(r->revisions, 1000);
  // etcd's parseCompactionRetention returns a time.Duration, which the revision compactor reads
  // as int64: "5m" keeps 300,000,000,000 revisions.
  EXPECT_EQ(parse_auto_compaction("revision", "5m")->revisions, int64_t{300'000'000'000});
}

TEST(EtcdServerFlags, BadModeOrRetentionIsNamed) {
  EXPECT_EQ(parse_auto_compaction("hourly", "1").status().message(),
            "--auto-compaction-mode: expected periodic or revision, got \"hourly\"");
  EXPECT_EQ(parse_auto_compaction("periodic", "5x").status().message(),
            "--auto-compaction-retention: error parsing CompactionRetention: time: unknown unit \"x\" in duration \"5x\"");
  EXPECT_EQ(parse_auto_compaction("periodic", "-5m").status().message(),
            "--auto-compaction-retention: expected a retention of 0 or more, got \"-5m\"");
  EXPECT_EQ(parse_auto_compaction("periodic", "0x10").status().message(),
            "--auto-compaction-retention: error parsing CompactionRetention: time: unknown unit \"x\" in duration \"0x10\"");
  EXPECT_EQ(error({{"auto-compaction-retention", "1"}, {"auto-compaction-mode", "revision"}}), "(accepted)");
  EXPECT_EQ(apply({{"auto-compaction-retention", "1"}, {"auto-compaction-mode", "revision"}})->api.auto_compaction.revisions, 1);
  EXPECT_EQ(error({{"max-txns", "1"}}), "--max-txns: not a server flag dst knows");
}

}  // namespace
}  // namespace dst::etcdctl
