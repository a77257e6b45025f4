// The lessor over a real backend and KvStore (SQLite on the simulated disk), run in a node fiber:
// grant/revoke with etcd's errors, keys following puts and deletes, revoke as one revision,
// recovery after close and after a crash, and the leader-only expiry.
#include "node/lease/lessor.h"

#include <gtest/gtest.h>

#include "base/limits.h"
#include "node/lease/lease_record.h"
#include "node/lease/lease_test_util.h"

namespace dst::lease {
namespace {

using testing::del;
using testing::describe;
using testing::kSecond;
using testing::live_keys;
using testing::Member;
using testing::open_member;
using testing::open_member_in_fiber;
using testing::put;
using testing::World;

using Ids = std::vector<int64_t>;
using Keys = std::vector<std::string>;

TEST(Lessor, GrantAndRevokeWithEtcdsErrors) {
  World w;
  ASSERT_TRUE(w.run([&] {
    Member m = open_member_in_fiber(w);
    Lessor& l = *m.lessor;
    auto granted = l.grant(7, 60, 0);
    ASSERT_TRUE(granted.is_ok());
    EXPECT_EQ(*granted, 60);
    EXPECT_TRUE(l.exists(7));
    EXPECT_EQ(l.grant(7, 30, 0).status().message(), "etcdserver: lease already exists");
    EXPECT_EQ(l.grant(0, 30, 0).status().message(), "etcdserver: requested lease not found");
    ASSERT_TRUE(l.grant(3, 30, 0).is_ok());
    EXPECT_EQ(l.leases(), (Ids{3, 7}));
    EXPECT_TRUE(l.revoke(7).is_ok());
    EXPECT_FALSE(l.exists(7));
    EXPECT_EQ(l.revoke(7).message(), "etcdserver: requested lease not found");
    EXPECT_EQ(l.leases(), (Ids{3}));
    // The record is in the backend's "lease" bucket under the 8-byte big-endian id.
    auto stored = m.backend->get(kLeaseBucket, encode_lease_key(3));
    ASSERT_TRUE(stored.is_ok());
    ASSERT_TRUE(stored->has_value());
    leasepb::Lease record;
    ASSERT_TRUE(record.ParseFromString(**stored));
    EXPECT_EQ(record.id(), 3);
    EXPECT_EQ(record.ttl(), 30);
    EXPECT_EQ(encode_lease_key(3), std::string("\0\0\0\0\0\0\0\x03", 8));
    auto gone = m.backend->get(kLeaseBucket, encode_lease_key(7));
    ASSERT_TRUE(gone.is_ok());
    EXPECT_FALSE(gone->has_value());
    l.check_invariants();
  }));
}

TEST(Lessor, TtlIsRaisedToTheMinimumAndBoundedByTheMaximum) {
  World w;
  ASSERT_TRUE(w.run([&] {
    Member m = open_member_in_fiber(w, LessorOptions{.min_ttl_seconds = 5});
    Lessor& l = *m.lessor;
    EXPECT_EQ(*l.grant(1, 1, 0), 5);
    EXPECT_EQ(*l.grant(2, 0, 0), 5);
    EXPECT_EQ(*l.grant(3, -4, 0), 5);
    EXPECT_EQ(*l.grant(4, 6, 0), 6);
    EXPECT_EQ(*l.grant(5, limits::kLeaseTtlSecondsMax, 0), limits::kLeaseTtlSecondsMax);
    EXPECT_EQ(l.grant(6, limits::kLeaseTtlSecondsMax + 1, 0).status().message(), "etcdserver: too large lease TTL");
    EXPECT_FALSE(l.exists(6));
    EXPECT_EQ(l.time_to_live(1, 0, false).granted_ttl_seconds, 5);
    // The maximum TTL on a primary saturates at "never" instead of overflowing.
    l.promote(10 * kSecond, 0);
    EXPECT_EQ(l.expiry_of(5), 10 * kSecond + limits::kLeaseTtlSecondsMax * kSecond);
    l.check_invariants();
  }));
}

TEST(Lessor, RevokeDeletesEveryAttachedKeyInOneRevision) {
  World w;
  ASSERT_TRUE(w.run([&] {
    Member m = open_member_in_fiber(w);
    Lessor& l = *m.lessor;
    ASSERT_TRUE(l.grant(1, 10, 0).is_ok());
    ASSERT_TRUE(l.grant(2, 10, 0).is_ok());
    for (const char* k : {"c", "a", "b"}) ASSERT_TRUE(put(m, k, "v", 1).is_ok());
    ASSERT_TRUE(put(m, "other", "v", 2).is_ok());
    ASSERT_TRUE(put(m, "plain", "v").is_ok());
    const int64_t before = m.kv->rev();
    ASSERT_TRUE(l.revoke(1).is_ok());
    EXPECT_EQ(m.kv->rev(), before + 1);
    EXPECT_EQ(live_keys(m), (Keys{"other", "plain"}));
    // The three deletions share main revision before+1, sub revisions in key order.
    auto changes = m.kv->index().changes_since("", std::string(1, '\0'), before + 1);
    ASSERT_EQ(changes.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(changes[i].first.main, before + 1);
      EXPECT_EQ(changes[i].first.sub, static_cast<int64_t>(i));
      EXPECT_EQ(changes[i].second, std::string(1, static_cast<char>('a' + i)));
    }
    EXPECT_EQ(l.lease_of("a"), 0);
    EXPECT_EQ(l.lease_of("other"), 2);
    l.check_invariants();
  }));
}

TEST(Lessor, RevokingALeaseWithoutKeysKeepsTheRevision) {
  World w;
  ASSERT_TRUE(w.run([&] {
    Member m = open_member_in_fiber(w);
    ASSERT_TRUE(put(m, "k", "v").is_ok());
    ASSERT_TRUE(m.lessor->grant(9, 10, 0).is_ok());
    const int64_t before = m.kv->rev();
    ASSERT_TRUE(m.lessor->revoke(9).is_ok());
    EXPECT_EQ(m.kv->rev(), before);  // etcd bumps the revision only when the txn changed keys
    EXPECT_FALSE(m.lessor->exists(9));
  }));
}

TEST(Lessor, AttachmentsFollowPutsAndDeletes) {
  World w;
  ASSERT_TRUE(w.run([&] {
    Member m = open_member_in_fiber(w);
    Lessor& l = *m.lessor;
    ASSERT_TRUE(l.grant(1, 10, 0).is_ok());
    ASSERT_TRUE(l.grant(2, 10, 0).is_ok());
    EXPECT_EQ(put(m, "k", "v", 3).message(), "etcdserver: requested lease not found");
    ASSERT_TRUE(put(m, "k", "v", 1).is_ok());
    EXPECT_EQ(l.lease_of("k"), 1);
    EXPECT_EQ(l.time_to_live(1, 0, true).keys, (Keys{"k"}));
    ASSERT_TRUE(put(m, "k", "v2", 1).is_ok());  // same lease: still attached once
    EXPECT_EQ(l.time_to_live(1, 0, true).keys, (Keys{"k"}));
    ASSERT_TRUE(put(m, "k", "v3").is_ok());  // re-put without lease detaches
    EXPECT_EQ(l.lease_of("k"), 0);
    EXPECT_TRUE(l.time_to_live(1, 0, true).keys.empty());
    ASSERT_TRUE(put(m, "k", "v4", 1).is_ok());
    ASSERT_TRUE(put(m, "k", "v5", 2).is_ok());  // another lease moves the key
    EXPECT_EQ(l.lease_of("k"), 2);
    EXPECT_TRUE(l.time_to_live(1, 0, true).keys.empty());
    EXPECT_EQ(l.time_to_live(2, 0, true).keys, (Keys{"k"}));
    ASSERT_TRUE(put(m, "k2", "v", 2).is_ok());
    ASSERT_TRUE(del(m, "k", "k3").is_ok());  // a range delete detaches both
    EXPECT_EQ(l.lease_of("k"), 0);
    EXPECT_EQ(l.lease_of("k2"), 0);
    EXPECT_TRUE(l.time_to_live(2, 0, true).keys.empty());
    // A key detached by a re-put survives its old lease's revoke.
    ASSERT_TRUE(put(m, "kept", "v", 1).is_ok());
    ASSERT_TRUE(put(m, "kept", "v").is_ok());
    ASSERT_TRUE(l.revoke(1).is_ok());
    EXPECT_EQ(live_keys(m), (Keys{"kept"}));
    l.check_invariants();
  }));
}

// The server's wiring: the store's commit observer feeds the lessor, so the observer also sees
// revoke's own deletions, from inside revoke (WriteTxn::end); revoke must tolerate that.
TEST(Lessor, FedByTheStoresCommitObserverIncludingRevokesOwnDeletions) {
  World w;
  ASSERT_TRUE(w.run([&] {
    Member m = open_member_in_fiber(w);
    Lessor& l = *m.lessor;
    std::vector<int64_t> revs;
    m.kv->set_observer([&](const std::vector<mvccpb::Event>& events, int64_t rev) {
      l.on_events(events);
      revs.push_back(rev);
    });
    ASSERT_TRUE(l.grant(1, 10, 0).is_ok());
    for (const char* k : {"a", "b"}) {
      mvcc::WriteTxn txn = m.kv->write();
      ASSERT_TRUE(txn.put(k, "v", 1).is_ok());
      txn.end();
    }
    EXPECT_EQ(l.time_to_live(1, 0, true).keys, (Keys{"a", "b"}));
    ASSERT_TRUE(l.revoke(1).is_ok());
    EXPECT_EQ(revs, (std::vector<int64_t>{2, 3, 4}));
    EXPECT_TRUE(live_keys(m).empty());
    EXPECT_EQ(l.lease_of("a"), 0);
    l.check_invariants();
    m.kv->set_observer(nullptr);
  }));
}

// Leases 1 (keys a, b), 2 (key c), 3 (no keys); 4 was revoked with its key; d has no lease.
void build_state(Member& m) {
  Lessor& l = *m.lessor;
  for (int64_t id : {1, 2, 3, 4}) ASSERT_TRUE(l.grant(id, 10 * id, 0).is_ok());
  ASSERT_TRUE(put(m, "a", "v", 1).is_ok());
  ASSERT_TRUE(put(m, "b", "v", 1).is_ok());
  ASSERT_TRUE(put(m, "c", "v", 2).is_ok());
  ASSERT_TRUE(put(m, "d", "v").is_ok());
  ASSERT_TRUE(put(m, "e", "v", 4).is_ok());
  ASSERT_TRUE(put(m, "b", "v2", 1).is_ok());
  ASSERT_TRUE(l.revoke(4).is_ok());
}

constexpr char kBuiltState[] = "1:10[a,b] 2:20[c] 3:30[] ";

TEST(Lessor, ReopenAfterCloseRebuildsLeasesAndAttachments) {
  World w;
  Member m = open_member(w);
  w.run([&] {
    build_state(m);
    EXPECT_EQ(describe(*m.lessor), kBuiltState);
    m.lessor->promote(0, 0);  // primary state is in memory only
    ASSERT_TRUE(m.backend->close().is_ok());
  });
  m = open_member(w);
  ASSERT_NE(m.lessor, nullptr);
  EXPECT_EQ(describe(*m.lessor), kBuiltState);
  EXPECT_EQ(m.lessor->lease_of("d"), 0);
  EXPECT_FALSE(m.lessor->primary());
  EXPECT_EQ(m.lessor->expiry_of(1), kNeverNs);
  EXPECT_EQ(m.lessor->orphan_keys(), 0u);
  m.lessor->check_invariants();
}

TEST(Lessor, ReopenAfterACrashKeepsExactlyTheCommittedLeases) {
  World w;
  Member m = open_member(w);
  w.run([&] {
    build_state(m);
    ASSERT_TRUE(m.backend->commit().is_ok());
    // Applied but not committed: lost with the batch, the grant together with its key.
    ASSERT_TRUE(m.lessor->grant(5, 10, 0).is_ok());
    ASSERT_TRUE(put(m, "f", "v", 5).is_ok());
    ASSERT_TRUE(m.lessor->revoke(1).is_ok());
  });
  w.process_crash();
  m = Member{};  // abandons the backend without I/O, as the dead process would
  m = open_member(w);
  ASSERT_NE(m.lessor, nullptr);
  EXPECT_EQ(describe(*m.lessor), kBuiltState);
  EXPECT_EQ(live_keys(m), (Keys{"a", "b", "c", "d"}));
  m.lessor->check_invariants();
}

TEST(Lessor, RecoveryRaisesOldTtlsAndSkipsKeysOfUnknownLeases) {
  World w;
  Member m = open_member(w);
  w.run([&] {
    ASSERT_TRUE(m.lessor->grant(1, 3, 0).is_ok());
    ASSERT_TRUE(put(m, "a", "v", 1).is_ok());
    // A key naming a lease the bucket does not hold (only possible if a revoke was torn apart):
    // written behind the lessor's back.
    mvcc::WriteTxn txn = m.kv->write();
    ASSERT_TRUE(txn.put("orphan", "v", 42).is_ok());
    txn.end();
    ASSERT_TRUE(m.backend->close().is_ok());
  });
  m = open_member(w, LessorOptions{.min_ttl_seconds = 5});
  ASSERT_NE(m.lessor, nullptr);
  EXPECT_EQ(describe(*m.lessor), "1:5[a] ");
  EXPECT_EQ(m.lessor->orphan_keys(), 1u);
  EXPECT_EQ(m.lessor->lease_of("orphan"), 0);
}

TEST(Lessor, ReloadReplacesEverythingFromTheNewBackend) {
  World w;
  ASSERT_TRUE(w.run([&] {
    Member m = open_member_in_fiber(w);
    build_state(m);
    // The "snapshot": another member's backend with other leases.
    Member other = open_member_in_fiber(w, {}, "n1/snapshot.db");
    ASSERT_TRUE(other.lessor->grant(8, 40, 0).is_ok());
    ASSERT_TRUE(put(other, "x", "v", 8).is_ok());
    m.lessor->promote(0, 0);
    ASSERT_TRUE(m.lessor->reload(*other.backend, *other.kv).is_ok());
    EXPECT_EQ(describe(*m.lessor), "8:40[x] ");
    EXPECT_EQ(m.lessor->lease_of("a"), 0);
    // As etcd's Recover: still primary, but nothing expires until renewed or promoted again.
    EXPECT_EQ(m.lessor->expiry_of(8), kNeverNs);
    EXPECT_TRUE(m.lessor->expired(1000 * kSecond, 10).empty());
    m.lessor->check_invariants();
  }));
}

TEST(Lessor, OnlyAPromotedLessorExpiresLeases) {
  World w;
  ASSERT_TRUE(w.run([&] {
    Member m = open_member_in_fiber(w);
    Lessor& l = *m.lessor;
    ASSERT_TRUE(l.grant(1, 5, 0).is_ok());
    EXPECT_TRUE(l.expired(1'000'000 * kSecond, 10).empty());  // a follower never expires leases
    EXPECT_EQ(l.renew(1, 0).status().message(), "not a primary lessor");
    EXPECT_EQ(l.time_to_live(1, 0, false).ttl_seconds, 9223372036);  // "forever"
    // Promotion extends every lease by the election timeout.
    l.promote(10 * kSecond, 1 * kSecond);
    EXPECT_EQ(l.expiry_of(1), 16 * kSecond);
    EXPECT_TRUE(l.expired(16 * kSecond - 1, 10).empty());
    EXPECT_EQ(l.expired(16 * kSecond, 10), (Ids{1}));
    EXPECT_EQ(l.renew(1, 17 * kSecond).status().message(), "lessor: lease expired, revoke pending");
    l.demote();
    EXPECT_EQ(l.expiry_of(1), kNeverNs);
    EXPECT_TRUE(l.expired(1'000'000 * kSecond, 10).empty());
    // A lease granted on the primary starts its clock at once.
    l.promote(100 * kSecond, 0);
    ASSERT_TRUE(l.grant(2, 3, 101 * kSecond).is_ok());
    EXPECT_EQ(l.expiry_of(2), 104 * kSecond);
    EXPECT_EQ(l.expired(104 * kSecond, 10), (Ids{2}));
    l.check_invariants();
  }));
}

TEST(Lessor, RenewRestartsTheFullTtl) {
  World w;
  ASSERT_TRUE(w.run([&] {
    Member m = open_member_in_fiber(w);
    Lessor& l = *m.lessor;
    ASSERT_TRUE(l.grant(1, 10, 0).is_ok());
    l.promote(0, 0);
    auto ttl = l.renew(1, 8 * kSecond);
    ASSERT_TRUE(ttl.is_ok());
    EXPECT_EQ(*ttl, 10);
    EXPECT_EQ(l.expiry_of(1), 18 * kSecond);
    EXPECT_TRUE(l.expired(17 * kSecond, 10).empty());
    EXPECT_EQ(l.expired(18 * kSecond, 10), (Ids{1}));
    EXPECT_EQ(l.renew(99, 0).status().message(), "etcdserver: requested lease not found");
    l.check_invariants();
  }));
}

TEST(Lessor, ExpiredIsBoundedLongestExpiredFirstAndDoesNotRepeatUntilTheRetry) {
  World w;
  ASSERT_TRUE(w.run([&] {
    Member m = open_member_in_fiber(w, LessorOptions{.expired_retry_ns = 3 * kSecond});
    Lessor& l = *m.lessor;
    // Lease 10 - i expires at i + 2 seconds: the highest ids expire first.
    for (int64_t i = 0; i < 8; ++i) ASSERT_TRUE(l.grant(10 - i, i + 2, 0).is_ok());
    l.promote(0, 0);
    const int64_t now = 20 * kSecond;
    EXPECT_EQ(l.expired(now, 3), (Ids{8, 9, 10}));
    EXPECT_EQ(l.expired(now, 3), (Ids{5, 6, 7}));
    EXPECT_EQ(l.expired(now, 3), (Ids{3, 4}));
    EXPECT_TRUE(l.expired(now + 3 * kSecond - 1, 3).empty());
    // The revoke of 10 is applied. 9 is already expired, so its keep-alive is refused (etcd waits
    // for the revoke) and it stays pending.
    ASSERT_TRUE(l.revoke(10).is_ok());
    EXPECT_FALSE(l.renew(9, now).is_ok());
    // After the retry interval the unrevoked ones come back, in the order they were returned.
    EXPECT_EQ(l.expired(now + 3 * kSecond, 100), (Ids{3, 4, 5, 6, 7, 8, 9}));
    l.check_invariants();
  }));
}

TEST(Lessor, RenewedLeaseIsNoLongerReported) {
  World w;
  ASSERT_TRUE(w.run([&] {
    Member m = open_member_in_fiber(w);
    Lessor& l = *m.lessor;
    ASSERT_TRUE(l.grant(1, 10, 0).is_ok());
    ASSERT_TRUE(l.grant(2, 10, 0).is_ok());
    l.promote(0, 0);
    ASSERT_TRUE(l.renew(1, 5 * kSecond).is_ok());
    EXPECT_EQ(l.expired(10 * kSecond, 10), (Ids{2}));
    EXPECT_TRUE(l.expired(12 * kSecond, 10).empty());  // 1 was renewed at 5 s: due at 15 s
    // 1 is due now; 2, never revoked, is due again 3 s (the retry interval) after 10 s.
    EXPECT_EQ(l.expired(15 * kSecond, 10), (Ids{1, 2}));
    l.check_invariants();
  }));
}

TEST(Lessor, TimeToLiveTruncatesTowardZeroAndListsSortedKeys) {
  World w;
  ASSERT_TRUE(w.run([&] {
    Member m = open_member_in_fiber(w);
    Lessor& l = *m.lessor;
    ASSERT_TRUE(l.grant(1, 10, 0).is_ok());
    for (const char* k : {"zeta", "alpha", "mid"}) ASSERT_TRUE(put(m, k, "v", 1).is_ok());
    l.promote(0, 0);
    EXPECT_EQ(l.time_to_live(1, 0, false).ttl_seconds, 10);
    EXPECT_EQ(l.time_to_live(1, kSecond / 2, false).ttl_seconds, 9);
    EXPECT_EQ(l.time_to_live(1, 10 * kSecond - 1, false).ttl_seconds, 0);
    EXPECT_EQ(l.time_to_live(1, 10 * kSecond + kSecond / 2, false).ttl_seconds, 0);  // -0.5 s
    EXPECT_EQ(l.time_to_live(1, 11 * kSecond + kSecond / 2, false).ttl_seconds, -1);  // -1.5 s
    TimeToLive t = l.time_to_live(1, 3 * kSecond, true);
    EXPECT_EQ(t.id, 1);
    EXPECT_EQ(t.ttl_seconds, 7);
    EXPECT_EQ(t.granted_ttl_seconds, 10);
    EXPECT_EQ(t.keys, (Keys{"alpha", "mid", "zeta"}));
    EXPECT_TRUE(l.time_to_live(1, 3 * kSecond, false).keys.empty());
    TimeToLive unknown = l.time_to_live(5, 0, true);
    EXPECT_EQ(unknown.id, 5);
    EXPECT_EQ(unknown.ttl_seconds, -1);
    EXPECT_EQ(unknown.granted_ttl_seconds, 0);
    EXPECT_TRUE(unknown.keys.empty());
  }));
}

}  // namespace
}  // namespace dst::lease
