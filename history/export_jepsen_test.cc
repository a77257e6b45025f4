// The Jepsen log export of a recorded history (export_jepsen.h): each request shape of the
// register workload, outcomes, process renumbering after an unknown outcome, values as small
// integers, one log per key, and the operations it refuses or leaves out. The logs are read back
// by the Jepsen importer (import_jepsen.h) as dst check reads them.
#include "history/export_jepsen.h"

#include <gtest/gtest.h>

#include "history/import_jepsen.h"

namespace dst::history {
namespace {

using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;
using etcdserverpb::Compare;

Operation op(uint32_t client, int64_t invoke, int64_t ret, Outcome outcome) {
  static uint64_t next = 0;
  Operation o;
  o.id = next++;
  o.client = client;
  o.invoke_ns = invoke;
  o.return_ns = ret;
  o.outcome = outcome;
  return o;
}

Operation get(uint32_t client, int64_t invoke, int64_t ret, const std::string& key, std::optional<std::string> seen,
              Outcome outcome = Outcome::kOk) {
  Operation o = op(client, invoke, ret, outcome);
  o.request.mutable_range()->set_key(key);
  if (seen) {
    auto* kv = o.response.mutable_range()->add_kvs();
    kv->set_key(key);
    kv->set_value(*seen);
  } else {
    o.response.mutable_range();
  }
  return o;
}

Operation put(uint32_t client, int64_t invoke, int64_t ret, const std::string& key, const std::string& value,
              Outcome outcome = Outcome::kOk) {
  Operation o = op(client, invoke, ret, outcome);
  o.request.mutable_put()->set_key(key);
  o.request.mutable_put()->set_value(value);
  o.response.mutable_put();
  return o;
}

Operation cas(uint32_t client, int64_t invoke, int64_t ret, const std::string& key, const std::string& from,
              const std::string& to, bool succeeded, Outcome outcome = Outcome::kOk) {
  Operation o = op(client, invoke, ret, outcome);
  auto* t = o.request.mutable_txn();
  Compare* c = t->add_compare();
  c->set_key(key);
  c->set_target(Compare::VALUE);
  c->set_result(Compare::EQUAL);
  c->set_value(from);
  auto* p = t->add_success()->mutable_request_put();
  p->set_key(key);
  p->set_value(to);
  o.response.mutable_txn()->set_succeeded(succeeded);
  return o;
}

TEST(ExportJepsen, EveryShapeAndOutcome) {
  History h;
  h.operations = {
      get(1, 10, 20, "r/0", std::nullopt),
      put(2, 15, 30, "r/0", "c2-1"),
      get(1, 25, 35, "r/0", std::string("c2-1")),
      cas(1, 40, 50, "r/0", "c2-1", "c1-9", true),
      cas(2, 41, 51, "r/0", "", "c2-2", false),        // compared the empty value: did not hold
      put(2, 60, kNeverReturned, "r/0", "c2-3", Outcome::kUnknown),
      put(2, 70, 80, "r/0", "c2-4", Outcome::kFailed),  // client 2 goes on as a new process
  };
  Result<std::vector<JepsenKeyLog>> logs = export_jepsen_log(h);
  ASSERT_TRUE(logs.is_ok()) << logs.status().to_string();
  ASSERT_EQ(logs->size(), 1u);
  EXPECT_EQ(logs->front().key, "r/0");
  EXPECT_EQ(logs->front().operations, 7u);
  // Two clients: client 2 is process 1, then 1 + 2 = 3 after its unknown put.
  EXPECT_EQ(logs->front().text,
            "INFO  jepsen.util - 0\t:invoke\t:read\tnil\n"
            "INFO  jepsen.util - 1\t:invoke\t:write\t1\n"
            "INFO  jepsen.util - 0\t:ok\t:read\tnil\n"
            "INFO  jepsen.util - 0\t:invoke\t:read\tnil\n"
            "INFO  jepsen.util - 1\t:ok\t:write\t1\n"
            "INFO  jepsen.util - 0\t:ok\t:read\t1\n"
            "INFO  jepsen.util - 0\t:invoke\t:cas\t[1 2]\n"
            "INFO  jepsen.util - 1\t:invoke\t:cas\t[0 3]\n"
            "INFO  jepsen.util - 0\t:ok\t:cas\t[1 2]\n"
            "INFO  jepsen.util - 1\t:fail\t:cas\t[0 3]\n"
            "INFO  jepsen.util - 1\t:invoke\t:write\t4\n"
            "INFO  jepsen.util - 3\t:invoke\t:write\t5\n"
            "INFO  jepsen.util - 3\t:fail\t:write\t5\n"
            "INFO  jepsen.util - 1\t:info\t:write\t4\n");
  // dst check's importer reads it back: six operations (the failed put is dropped later by the
  // checker, not here), the unknown write never returns.
  Result<ImportedHistory> back = import_jepsen(logs->front().text, "r0.log");
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  ASSERT_EQ(back->ops.size(), 7u);
  size_t unknown = 0;
  for (const ImportedOp& o : back->ops) unknown += o.outcome == ImportedOutcome::kUnknown;
  EXPECT_EQ(unknown, 1u);
}

TEST(ExportJepsen, OneLogPerKeyInKeyOrder) {
  History h;
  h.operations = {put(1, 1, 2, "r/1", "a"), put(2, 1, 2, "r/0", "b"), get(1, 3, 4, "r/1", std::string("a"))};
  Result<std::vector<JepsenKeyLog>> logs = export_jepsen_log(h);
  ASSERT_TRUE(logs.is_ok());
  ASSERT_EQ(logs->size(), 2u);
  EXPECT_EQ((*logs)[0].key, "r/0");
  EXPECT_EQ((*logs)[1].key, "r/1");
  EXPECT_EQ((*logs)[1].operations, 2u);
  EXPECT_NE((*logs)[1].text.find(":ok\t:read\t1\n"), std::string::npos);  // "a" is 1 in r/1 too
}

TEST(ExportJepsen, RefusesWhatARegisterCannotSay) {
  Operation del = op(1, 1, 2, Outcome::kOk);
  del.request.mutable_delete_range()->set_key("r/0");
  Operation scan = op(1, 1, 2, Outcome::kOk);
  scan.request.mutable_range()->set_key("r/");
  scan.request.mutable_range()->set_range_end("r0");
  scan.request.mutable_range()->set_keys_only(true);
  Operation leased = put(1, 1, 2, "r/0", "v");
  leased.request.mutable_put()->set_lease(7);
  Operation two_compares = cas(1, 1, 2, "r/0", "a", "b", true);
  *two_compares.request.mutable_txn()->add_compare() = two_compares.request.txn().compare(0);
  for (const Operation& bad : {del, scan, leased, two_compares}) {
    History h;
    h.operations = {bad};
    Result<std::vector<JepsenKeyLog>> logs = export_jepsen_log(h);
    ASSERT_FALSE(logs.is_ok());
    EXPECT_NE(logs.status().message().find("operation " + std::to_string(bad.id)), std::string::npos);
    EXPECT_NE(logs.status().message().find("register model"), std::string::npos);
  }
}

// A list over the registers' prefix reads each register key it covers: absent ones as nil, and
// none past where a limit cut it short.
TEST(ExportJepsen, ARangeOverSeveralKeysReadsEachRegister) {
  Operation list = op(3, 10, 20, Outcome::kOk);
  list.request.mutable_range()->set_key("r/");
  list.request.mutable_range()->set_range_end("r0");
  auto* kv = list.response.mutable_range()->add_kvs();
  kv->set_key("r/1");
  kv->set_value("b");
  Operation limited = op(3, 30, 40, Outcome::kOk);
  *limited.request.mutable_range() = list.request.range();
  limited.request.mutable_range()->set_limit(1);
  auto* first = limited.response.mutable_range()->add_kvs();
  first->set_key("r/0");
  first->set_value("a");
  limited.response.mutable_range()->set_more(true);
  History h;
  h.operations = {put(1, 1, 2, "r/0", "a"), put(2, 1, 2, "r/1", "b"), put(1, 3, 4, "r/2", "c"), list, limited};
  Result<std::vector<JepsenKeyLog>> logs = export_jepsen_log(h);
  ASSERT_TRUE(logs.is_ok()) << logs.status().to_string();
  ASSERT_EQ(logs->size(), 3u);
  EXPECT_EQ((*logs)[0].operations, 3u);  // r/0: the put, the list (nil), the limited list (a)
  EXPECT_NE((*logs)[0].text.find("2\t:ok\t:read\tnil"), std::string::npos) << (*logs)[0].text;
  EXPECT_NE((*logs)[0].text.find("2\t:ok\t:read\t1"), std::string::npos) << (*logs)[0].text;
  EXPECT_EQ((*logs)[1].operations, 2u);  // r/1: the put and the list (b); the limited one stopped before
  EXPECT_NE((*logs)[1].text.find("2\t:ok\t:read\t1"), std::string::npos) << (*logs)[1].text;
  EXPECT_EQ((*logs)[2].operations, 2u);  // r/2: the put and the list (nil)
}

TEST(ExportJepsen, LeavesOutWhatChangesNoKey) {
  Operation serializable = get(1, 1, 2, "r/0", std::string("x"));
  serializable.request.mutable_range()->set_serializable(true);  // may be stale by design
  Operation compaction = op(1, 3, 4, Outcome::kOk);
  compaction.request.mutable_compaction()->set_revision(1);
  // Filtered or reordered ranges hide keys: read as nil they would make up a violation.
  Operation filtered = get(1, 7, 8, "r/0", std::nullopt);
  filtered.request.mutable_range()->set_min_mod_revision(99);
  Operation newest_first = get(1, 9, 10, "r/", std::nullopt);
  newest_first.request.mutable_range()->set_range_end("r0");
  newest_first.request.mutable_range()->set_limit(1);
  newest_first.request.mutable_range()->set_sort_target(etcdserverpb::RangeRequest::MOD);
  newest_first.request.mutable_range()->set_sort_order(etcdserverpb::RangeRequest::DESCEND);
  History h;
  h.operations = {serializable, compaction, put(2, 5, 6, "r/0", "y"), filtered, newest_first};
  Result<std::vector<JepsenKeyLog>> logs = export_jepsen_log(h);
  ASSERT_TRUE(logs.is_ok());
  ASSERT_EQ(logs->size(), 1u);
  EXPECT_EQ(logs->front().operations, 1u);
}

// Processes are the clients' places in id order, client 0 included, whatever the ids are.
TEST(ExportJepsen, ProcessesAreDenseAndDistinct) {
  History h;
  h.operations = {put(0, 1, 2, "r/0", "a"), put(1, 1, 2, "r/0", "b"), put(2000000, 3, kNeverReturned, "r/0", "c",
                                                                         Outcome::kUnknown),
                  put(2000000, 5, 6, "r/0", "d")};
  Result<std::vector<JepsenKeyLog>> logs = export_jepsen_log(h);
  ASSERT_TRUE(logs.is_ok());
  const std::string& t = logs->front().text;
  EXPECT_NE(t.find("- 0\t:invoke\t:write\t1"), std::string::npos) << t;
  EXPECT_NE(t.find("- 1\t:invoke\t:write\t2"), std::string::npos) << t;
  EXPECT_NE(t.find("- 2\t:invoke\t:write\t3"), std::string::npos) << t;
  EXPECT_NE(t.find("- 5\t:invoke\t:write\t4"), std::string::npos) << t;  // 2 + 3 clients after :info
}

}  // namespace
}  // namespace dst::history
