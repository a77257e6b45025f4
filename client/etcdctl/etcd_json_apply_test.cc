// etcdctl's JSON printer (etcd_json.h) over answers of the real KV apply path: the etcdctl
// sequences of ../shared/reference/etcd-3.4.md (section 1) rendered as `etcdctl -w json` prints
// them, byte for byte.
#include "client/etcdctl/etcd_json.h"

#include <gtest/gtest.h>

#include "node/server/kv_apply.h"
#include "node/server/kv_apply_test_util.h"

namespace dst::etcdctl {
namespace {

using node::apply_delete_range;
using node::apply_put;
using node::apply_range;
using node::apply_txn;
using node::testing::cmp;
using node::testing::get_req;
using node::testing::put_req;
using node::testing::with_store;
using etcdserverpb::Compare;

// The same sequence rendered as `etcdctl -w json` prints it: the reference page's lines byte for
// byte (with the cluster id, member id and raft term of the member that answered there).
TEST(EtcdJson, ReferenceSectionOneLinesByteForByte) {
  const std::string header_prefix = "{\"header\":{\"cluster_id\":13543464109238882170,\"member_id\":";
  auto stamp = [](etcdserverpb::ResponseHeader* h, uint64_t member) {
    h->set_cluster_id(13543464109238882170ull);
    h->set_member_id(member);
    h->set_raft_term(2);
  };
  const uint64_t m1 = 5377460408751390616ull, m2 = 10673258747690515173ull, m3 = 12789933169459739600ull;
  with_store([&](mvcc::KvStore& s) {
    auto p = apply_put(s, put_req("foo", "bar"));
    stamp(p->mutable_header(), m1);
    EXPECT_EQ(to_json(*p), header_prefix + "5377460408751390616,\"revision\":2,\"raft_term\":2}}");
    p = apply_put(s, put_req("foo", "bar2", true));
    stamp(p->mutable_header(), m2);
    EXPECT_EQ(to_json(*p), header_prefix +
                               "10673258747690515173,\"revision\":3,\"raft_term\":2},\"prev_kv\":{\"key\":\"Zm9v\","
                               "\"create_revision\":2,\"mod_revision\":2,\"version\":1,\"value\":\"YmFy\"}}");
    ASSERT_TRUE(apply_put(s, put_req("foo/a", "1")).is_ok());
    ASSERT_TRUE(apply_put(s, put_req("foo/b", "2")).is_ok());
    ASSERT_TRUE(apply_put(s, put_req("foo", "bar3")).is_ok());
    auto g = apply_range(s, get_req("foo"));
    stamp(g->mutable_header(), m1);
    EXPECT_EQ(to_json(*g), header_prefix +
                               "5377460408751390616,\"revision\":6,\"raft_term\":2},\"kvs\":[{\"key\":\"Zm9v\","
                               "\"create_revision\":2,\"mod_revision\":6,\"version\":3,\"value\":\"YmFyMw==\"}],"
                               "\"count\":1}");
    auto limited = get_req("foo/", "foo0");
    limited.set_limit(1);
    g = apply_range(s, limited);
    stamp(g->mutable_header(), m2);
    EXPECT_EQ(to_json(*g), header_prefix +
                               "10673258747690515173,\"revision\":6,\"raft_term\":2},\"kvs\":[{\"key\":\"Zm9vL2E=\","
                               "\"create_revision\":4,\"mod_revision\":4,\"version\":1,\"value\":\"MQ==\"}],"
                               "\"more\":true,\"count\":2}");
    g = apply_range(s, get_req("nonexist"));
    stamp(g->mutable_header(), m2);
    EXPECT_EQ(to_json(*g), header_prefix + "10673258747690515173,\"revision\":6,\"raft_term\":2}}");
    etcdserverpb::DeleteRangeRequest d;
    d.set_key("foo/a");
    ASSERT_TRUE(apply_delete_range(s, d).is_ok());
    d.set_key("foo/");
    d.set_range_end("foo0");
    d.set_prev_kv(true);
    auto dr = apply_delete_range(s, d);
    stamp(dr->mutable_header(), m1);
    EXPECT_EQ(to_json(*dr), header_prefix +
                                "5377460408751390616,\"revision\":8,\"raft_term\":2},\"deleted\":1,\"prev_kvs\":"
                                "[{\"key\":\"Zm9vL2I=\",\"create_revision\":5,\"mod_revision\":5,\"version\":1,"
                                "\"value\":\"Mg==\"}]}");
    etcdserverpb::TxnRequest t1;
    *t1.add_compare() = cmp(Compare::CREATE, Compare::EQUAL, "newkey", 0);
    *t1.add_success()->mutable_request_put() = put_req("newkey", "v1");
    ASSERT_TRUE(apply_txn(s, t1).is_ok());
    etcdserverpb::TxnRequest t2;
    *t2.add_compare() = cmp(Compare::MOD, Compare::LESS, "foo", 100);
    *t2.add_success()->mutable_request_range() = get_req("foo", "fop");
    auto r2 = apply_txn(s, t2);
    stamp(r2->mutable_header(), m3);
    EXPECT_EQ(to_json(*r2), header_prefix +
                                "12789933169459739600,\"revision\":9,\"raft_term\":2},\"succeeded\":true,\"responses\":"
                                "[{\"Response\":{\"ResponseRange\":{\"header\":{\"revision\":9},\"kvs\":[{\"key\":"
                                "\"Zm9v\",\"create_revision\":2,\"mod_revision\":6,\"version\":3,\"value\":"
                                "\"YmFyMw==\"}],\"count\":1}}}]}");
    etcdserverpb::TxnRequest t3;
    *t3.add_compare() = cmp(Compare::MOD, Compare::EQUAL, "foo", 6);
    *t3.add_compare() = cmp(Compare::VALUE, Compare::EQUAL, "foo", 0, "bar3");
    *t3.add_success()->mutable_request_put() = put_req("foo", "bar4");
    *t3.add_success()->mutable_request_range() = get_req("foo");
    t3.add_success()->mutable_request_delete_range()->set_key("nonexist");
    auto r3 = apply_txn(s, t3);
    stamp(r3->mutable_header(), m2);
    EXPECT_EQ(to_json(*r3), header_prefix +
                                "10673258747690515173,\"revision\":10,\"raft_term\":2},\"succeeded\":true,\"responses\":"
                                "[{\"Response\":{\"ResponsePut\":{\"header\":{\"revision\":10}}}},{\"Response\":"
                                "{\"ResponseRange\":{\"header\":{\"revision\":10},\"kvs\":[{\"key\":\"Zm9v\","
                                "\"create_revision\":2,\"mod_revision\":10,\"version\":4,\"value\":\"YmFyNA==\"}],"
                                "\"count\":1}}},{\"Response\":{\"ResponseDeleteRange\":{\"header\":{\"revision\":10}}}}]}");
    etcdserverpb::TxnRequest t4;
    *t4.add_compare() = cmp(Compare::VERSION, Compare::EQUAL, "foo", 99);
    *t4.add_success()->mutable_request_put() = put_req("foo", "never");
    *t4.add_failure()->mutable_request_range() = get_req("foo");
    *t4.add_failure()->mutable_request_put() = put_req("foo/x", "y");
    auto r4 = apply_txn(s, t4);
    stamp(r4->mutable_header(), m1);
    EXPECT_EQ(to_json(*r4), header_prefix +
                                "5377460408751390616,\"revision\":11,\"raft_term\":2},\"responses\":[{\"Response\":"
                                "{\"ResponseRange\":{\"header\":{\"revision\":10},\"kvs\":[{\"key\":\"Zm9v\","
                                "\"create_revision\":2,\"mod_revision\":10,\"version\":4,\"value\":\"YmFyNA==\"}],"
                                "\"count\":1}}},{\"Response\":{\"ResponsePut\":{\"header\":{\"revision\":11}}}}]}");
  });
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64(std::string("\0\xff", 2)), "AP8=");
}

}  // namespace
}  // namespace dst::etcdctl
