// The KV apply path replaying the etcdctl sequences of ../shared/reference/etcd-3.4.md (section 1):
// the same revisions, versions, counts, `more` flags, txn branches and inner header revisions.
#include "node/server/kv_apply.h"

#include <gtest/gtest.h>

#include "node/backend/backend_test_util.h"
#include "node/server/kv_apply_test_util.h"

namespace dst::node {
namespace {

using etcdserverpb::Compare;
using testing::cmp;
using testing::get_req;
using testing::kv_text;
using testing::put_req;
using testing::range_text;
using testing::with_store;

TEST(KvApply, ReferenceSectionOneKvSequence) {
  with_store([](mvcc::KvStore& s) {
    auto p = apply_put(s, put_req("foo", "bar"));
    ASSERT_TRUE(p.is_ok());
    EXPECT_EQ(p->header().revision(), 2);
    EXPECT_FALSE(p->has_prev_kv());
    p = apply_put(s, put_req("foo", "bar2", true));
    EXPECT_EQ(p->header().revision(), 3);
    EXPECT_EQ(kv_text(p->prev_kv()), "foo c2 m2 v1 =bar");
    ASSERT_TRUE(apply_put(s, put_req("foo/a", "1")).is_ok());
    ASSERT_TRUE(apply_put(s, put_req("foo/b", "2")).is_ok());
    EXPECT_EQ(apply_put(s, put_req("foo", "bar3"))->header().revision(), 6);

    EXPECT_EQ(range_text(*apply_range(s, get_req("foo"))), "rev 6 count 1 [foo c2 m6 v3 =bar3]");
    auto at2 = get_req("foo");
    at2.set_revision(2);
    EXPECT_EQ(range_text(*apply_range(s, at2)), "rev 6 count 1 [foo c2 m2 v1 =bar]");
    EXPECT_EQ(range_text(*apply_range(s, get_req("foo", "fop"))),
              "rev 6 count 3 [foo c2 m6 v3 =bar3] [foo/a c4 m4 v1 =1] [foo/b c5 m5 v1 =2]");
    auto limited = get_req("foo/", "foo0");
    limited.set_limit(1);
    EXPECT_EQ(range_text(*apply_range(s, limited)), "rev 6 count 2 more [foo/a c4 m4 v1 =1]");
    auto keys_only = get_req("foo/", "foo0");
    keys_only.set_keys_only(true);
    EXPECT_EQ(range_text(*apply_range(s, keys_only)), "rev 6 count 2 [foo/a c4 m4 v1] [foo/b c5 m5 v1]");
    EXPECT_EQ(range_text(*apply_range(s, get_req("nonexist"))), "rev 6 count 0");

    etcdserverpb::DeleteRangeRequest d;
    d.set_key("foo/a");
    auto dr = apply_delete_range(s, d);
    EXPECT_EQ(dr->header().revision(), 7);
    EXPECT_EQ(dr->deleted(), 1);
    d.set_key("foo/");
    d.set_range_end("foo0");
    d.set_prev_kv(true);
    dr = apply_delete_range(s, d);
    EXPECT_EQ(dr->header().revision(), 8);
    ASSERT_EQ(dr->prev_kvs_size(), 1);
    EXPECT_EQ(kv_text(dr->prev_kvs(0)), "foo/b c5 m5 v1 =2");
    etcdserverpb::DeleteRangeRequest none;
    none.set_key("nonexist");
    dr = apply_delete_range(s, none);
    EXPECT_EQ(dr->header().revision(), 8);
    EXPECT_EQ(dr->deleted(), 0);

    // Section 1, txn: create("newkey") = "0" -> put newkey v1.
    etcdserverpb::TxnRequest t1;
    *t1.add_compare() = cmp(Compare::CREATE, Compare::EQUAL, "newkey", 0);
    *t1.add_success()->mutable_request_put() = put_req("newkey", "v1");
    auto r1 = apply_txn(s, t1);
    ASSERT_TRUE(r1.is_ok());
    EXPECT_TRUE(r1->succeeded());
    EXPECT_EQ(r1->header().revision(), 9);

    // mod("foo") < "100" -> get foo --prefix: the range inside reports revision 9.
    etcdserverpb::TxnRequest t2;
    *t2.add_compare() = cmp(Compare::MOD, Compare::LESS, "foo", 100);
    *t2.add_success()->mutable_request_range() = get_req("foo", "fop");
    auto r2 = apply_txn(s, t2);
    EXPECT_TRUE(r2->succeeded());
    EXPECT_EQ(r2->header().revision(), 9);
    EXPECT_EQ(range_text(r2->responses(0).response_range()), "rev 9 count 1 [foo c2 m6 v3 =bar3]");

    // mod("foo") = "6" && value("foo") = "bar3" -> put foo bar4; get foo; del nonexist: all at 10.
    etcdserverpb::TxnRequest t3;
    *t3.add_compare() = cmp(Compare::MOD, Compare::EQUAL, "foo", 6);
    *t3.add_compare() = cmp(Compare::VALUE, Compare::EQUAL, "foo", 0, "bar3");
    *t3.add_success()->mutable_request_put() = put_req("foo", "bar4");
    *t3.add_success()->mutable_request_range() = get_req("foo");
    t3.add_success()->mutable_request_delete_range()->set_key("nonexist");
    auto r3 = apply_txn(s, t3);
    EXPECT_TRUE(r3->succeeded());
    EXPECT_EQ(r3->header().revision(), 10);
    EXPECT_EQ(r3->responses(0).response_put().header().revision(), 10);
    EXPECT_EQ(range_text(r3->responses(1).response_range()), "rev 10 count 1 [foo c2 m10 v4 =bar4]");
    EXPECT_EQ(r3->responses(2).response_delete_range().header().revision(), 10);

    // version("foo") = "99" fails -> get foo (at 10); put foo/x y (11).
    etcdserverpb::TxnRequest t4;
    *t4.add_compare() = cmp(Compare::VERSION, Compare::EQUAL, "foo", 99);
    *t4.add_success()->mutable_request_put() = put_req("foo", "never");
    *t4.add_failure()->mutable_request_range() = get_req("foo");
    *t4.add_failure()->mutable_request_put() = put_req("foo/x", "y");
    auto r4 = apply_txn(s, t4);
    EXPECT_FALSE(r4->succeeded());
    EXPECT_EQ(r4->header().revision(), 11);
    EXPECT_EQ(range_text(r4->responses(0).response_range()), "rev 10 count 1 [foo c2 m10 v4 =bar4]");
    EXPECT_EQ(r4->responses(1).response_put().header().revision(), 11);
  });
}

TEST(KvApply, ValidationUsesEtcdsErrors) {
  EXPECT_EQ(validate_put(put_req("", "v")).message(), kErrKeyNotProvided);
  etcdserverpb::TxnRequest many;
  for (int i = 0; i < 129; ++i) *many.add_success()->mutable_request_put() = put_req("k" + std::to_string(i), "v");
  EXPECT_EQ(validate_txn(many, {}).message(), kErrTooManyOps);
  etcdserverpb::TxnRequest dup;
  *dup.add_success()->mutable_request_put() = put_req("a", "1");
  *dup.add_success()->mutable_request_put() = put_req("a", "2");
  EXPECT_EQ(validate_txn(dup, {}).message(), kErrDuplicateKey);
  etcdserverpb::TxnRequest put_and_delete;
  *put_and_delete.add_success()->mutable_request_put() = put_req("b/1", "1");
  put_and_delete.add_success()->mutable_request_delete_range()->set_key("b/");
  put_and_delete.mutable_success(1)->mutable_request_delete_range()->set_range_end("b0");
  EXPECT_EQ(validate_txn(put_and_delete, {}).message(), kErrDuplicateKey);
  etcdserverpb::TxnRequest across_branches;  // the same key in success and failure is fine
  *across_branches.add_success()->mutable_request_put() = put_req("a", "1");
  *across_branches.add_failure()->mutable_request_put() = put_req("a", "2");
  EXPECT_TRUE(validate_txn(across_branches, {}).is_ok());
}

TEST(KvApply, CompactionErrorsAndIgnoreValue) {
  with_store([](mvcc::KvStore& s) {
    ASSERT_TRUE(apply_put(s, put_req("a", "1")).is_ok());  // 2
    ASSERT_TRUE(apply_put(s, put_req("a", "2")).is_ok());  // 3
    etcdserverpb::CompactionRequest c;
    c.set_revision(4);
    EXPECT_EQ(client_error(apply_compaction(s, c).status()), "etcdserver: mvcc: required revision is a future revision");
    c.set_revision(3);
    EXPECT_TRUE(apply_compaction(s, c).is_ok());
    EXPECT_EQ(client_error(apply_compaction(s, c).status()), "etcdserver: mvcc: required revision has been compacted");
    auto old = get_req("a");
    old.set_revision(2);
    EXPECT_EQ(client_error(apply_range(s, old).status()), "etcdserver: mvcc: required revision has been compacted");
    // ignore_value keeps the value; on a missing key it is refused and nothing is written.
    etcdserverpb::PutRequest keep;
    keep.set_key("a");
    keep.set_ignore_value(true);
    keep.set_lease(0);
    EXPECT_TRUE(apply_put(s, keep).is_ok());
    EXPECT_EQ(range_text(*apply_range(s, get_req("a"))), "rev 4 count 1 [a c2 m4 v3 =2]");
    keep.set_key("missing");
    EXPECT_EQ(apply_put(s, keep).status().message(), kErrKeyNotFound);
    EXPECT_EQ(s.rev(), 4);
  });
}

// etcd decides the branch of every nested txn on the state before the txn writes anything
// (compareToPath), and checks the whole path before writing (checkRequests).
TEST(KvApply, NestedTxnPathIsDecidedOnTheStateBeforeTheTxn) {
  with_store([](mvcc::KvStore& s) {
    ASSERT_TRUE(apply_put(s, put_req("k", "0")).is_ok());  // 2
    etcdserverpb::TxnRequest t;
    *t.add_success()->mutable_request_put() = put_req("k", "1");
    etcdserverpb::TxnRequest* inner = t.add_success()->mutable_request_txn();
    *inner->add_compare() = cmp(Compare::VALUE, Compare::EQUAL, "k", 0, "1");
    *inner->add_success()->mutable_request_put() = put_req("x", "saw-1");
    *inner->add_failure()->mutable_request_put() = put_req("x", "saw-0");
    auto r = apply_txn(s, t);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_TRUE(r->succeeded());
    EXPECT_FALSE(r->responses(1).response_txn().succeeded());  // the inner compare saw k=0
    EXPECT_EQ(range_text(*apply_range(s, get_req("x"))), "rev 3 count 1 [x c3 m3 v1 =saw-0]");
  });
}

TEST(KvApply, NestedPutWithAnUnknownLeaseRefusesTheWholeTxn) {
  with_store([](mvcc::KvStore& s) {
    ASSERT_TRUE(apply_put(s, put_req("a", "1")).is_ok());  // 2
    etcdserverpb::TxnRequest t;
    *t.add_success()->mutable_request_put() = put_req("a", "2");
    etcdserverpb::PutRequest leased = put_req("b", "1");
    leased.set_lease(77);
    *t.add_success()->mutable_request_txn()->add_success()->mutable_request_put() = leased;
    const LeaseExists no_leases = [](int64_t) { return false; };
    auto r = apply_txn(s, t, no_leases);
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().message(), kErrLeaseNotFound);
    EXPECT_EQ(s.rev(), 2);  // nothing written, not even the outer put
    EXPECT_EQ(range_text(*apply_range(s, get_req("a"))), "rev 2 count 1 [a c2 m2 v1 =1]");
  });
}

}  // namespace
}  // namespace dst::node
