// The etcd robustness report export of a recorded history (export_etcd_report.h): the exact text
// of a put, a range and a watch record (goldens written from etcd's Go structs and encoding/json's
// rules), Go's string escaping, porcupine stream ids, hashed values, txn conditions, what is
// refused and what is left out. Every file written parses as a stream of JSON values.
#include "history/export_etcd_report.h"

#include <gtest/gtest.h>

#include "base/json_value.h"
#include "history/etcd_report_format.h"
#include "history/go_json_writer.h"

namespace dst::history {
namespace {

using etcdserverpb::Compare;

Operation op(uint64_t id, uint32_t client, int64_t invoke, int64_t ret, Outcome outcome = Outcome::kOk) {
  Operation o;
  o.id = id;
  o.client = client;
  o.invoke_ns = invoke;
  o.return_ns = ret;
  o.outcome = outcome;
  return o;
}

Operation put(uint64_t id, uint32_t client, int64_t invoke, int64_t ret, const std::string& key, const std::string& value,
              int64_t revision, Outcome outcome = Outcome::kOk) {
  Operation o = op(id, client, invoke, ret, outcome);
  o.request.mutable_put()->set_key(key);
  o.request.mutable_put()->set_value(value);
  if (outcome == Outcome::kOk) o.response.mutable_put()->mutable_header()->set_revision(revision);
  return o;
}

Operation get(uint64_t id, uint32_t client, int64_t invoke, int64_t ret, const std::string& key, const std::string& end) {
  Operation o = op(id, client, invoke, ret);
  o.request.mutable_range()->set_key(key);
  o.request.mutable_range()->set_range_end(end);
  o.response.mutable_range();
  return o;
}

mvccpb::KeyValue kv(const std::string& key, const std::string& value, int64_t create, int64_t mod, int64_t version) {
  mvccpb::KeyValue k;
  k.set_key(key);
  k.set_value(value);
  k.set_create_revision(create);
  k.set_mod_revision(mod);
  k.set_version(version);
  return k;
}

// Every file of the report, parsed (the strict reader etcd's files must pass), as one list.
std::vector<json::Value> parse_all(const EtcdReport& r, bool watches) {
  std::vector<json::Value> all;
  for (const EtcdReportClient& c : r.clients) {
    const std::string& text = watches ? c.watch : c.operations;
    auto values = json::parse_stream(text, "client-" + std::to_string(c.id));
    EXPECT_TRUE(values.is_ok()) << values.status().to_string();
    if (!values.is_ok()) continue;
    EXPECT_EQ(values->size(), watches ? c.watches_written : c.operations_written);
    for (json::Value& v : *values) all.push_back(std::move(v));
  }
  return all;
}

int64_t int_at(const json::Value& v, std::initializer_list<const char*> path) {
  const json::Value* at = &v;
  for (const char* name : path) {
    at = at->find(name);
    if (at == nullptr) return -999;
  }
  return at->as_int64().value_or(-998);
}

// FNV-1a 32, written out here so the test does not trust the code under test.
uint32_t fnv(const std::string& s) {
  uint32_t h = 0x811c9dc5u;
  for (unsigned char c : s) h = (h ^ c) * 0x01000193u;
  return h;
}

constexpr char kPutOutput[] = R"({
    "Txn": {
      "Failure": false,
      "Results": [
        {
          "KVs": null,
          "Count": 0,
          "Deleted": 0
        }
      ]
    },
    "Range": null,
    "LeaseGrant": null,
    "LeaseRevoke": null,
    "Defragment": null,
    "Compact": null,
    "ClientError": "",
    "Revision": 17,
    "member-id": "8e9e05c52164694d",
    "Persisted": false,
    "PersistedRevision": 0,
    "Error": ""
  })";

TEST(ExportEtcdReport, PutRecordIsGoMarshalIndent) {
  History h;
  h.operations = {put(0, 0, 1500, 2100, "key1", "42", 17)};
  h.operations[0].response.mutable_put()->mutable_header()->set_member_id(0x8e9e05c52164694dull);
  h.operations[0].request.mutable_put()->set_prev_kv(true);  // the answer's prev_kv is not in the format
  *h.operations[0].response.mutable_put()->mutable_prev_kv() = kv("key1", "41", 3, 3, 1);
  Result<EtcdReport> r = export_etcd_report(h);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->clients.size(), 1u);
  EXPECT_EQ(r->clients[0].id, 1u);
  EXPECT_EQ(r->clients[0].operations_written, 1u);
  EXPECT_EQ(r->clients[0].watch, "");
  const std::string expected = std::string(R"({
  "ClientId": 0,
  "Input": {
    "Type": "txn",
    "LeaseGrant": null,
    "LeaseRevoke": null,
    "Range": null,
    "Txn": {
      "Conditions": null,
      "OperationsOnSuccess": [
        {
          "Type": "put-operation",
          "Range": {
            "Start": "",
            "End": "",
            "Limit": 0,
            "KeysOnly": false
          },
          "Put": {
            "Key": "key1",
            "Value": {
              "Value": "42"
            },
            "LeaseID": 0
          },
          "Delete": {
            "Key": ""
          }
        }
      ],
      "OperationsOnFailure": null
    },
    "Defragment": null,
    "Compact": null
  },
  "Call": 1500,
  "Output": )") + kPutOutput + R"(,
  "Return": 2100,
  "Metadata": )" + kPutOutput + "\n}\n";
  EXPECT_EQ(r->clients[0].operations, expected);
}

constexpr char kRangeOutput[] = R"({
    "Txn": null,
    "Range": {
      "KVs": [
        {
          "Key": "key1",
          "Value": {
            "Value": "42"
          },
          "ModRevision": 17,
          "Version": 1
        },
        {
          "Key": "key2",
          "Value": {}
        }
      ],
      "Count": 2
    },
    "LeaseGrant": null,
    "LeaseRevoke": null,
    "Defragment": null,
    "Compact": null,
    "ClientError": "",
    "Revision": 20,
    "Persisted": false,
    "PersistedRevision": 0,
    "Error": ""
  })";

TEST(ExportEtcdReport, RangeRecordIsGoMarshalIndent) {
  History h;
  h.operations = {get(0, 4, 3000, 3500, "key", "kez")};
  auto* resp = h.operations[0].response.mutable_range();
  resp->mutable_header()->set_revision(20);
  *resp->add_kvs() = kv("key1", "42", 17, 17, 1);
  *resp->add_kvs() = kv("key2", "", 0, 0, 0);  // zero revisions and version are omitempty
  resp->set_count(2);
  Result<EtcdReport> r = export_etcd_report(h);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->clients.size(), 1u);
  EXPECT_EQ(r->clients[0].id, 5u);  // client 4 is client-5
  const std::string expected = std::string(R"({
  "ClientId": 0,
  "Input": {
    "Type": "range",
    "LeaseGrant": null,
    "LeaseRevoke": null,
    "Range": {
      "Start": "key",
      "End": "kez",
      "Limit": 0,
      "KeysOnly": false,
      "Revision": 0
    },
    "Txn": null,
    "Defragment": null,
    "Compact": null
  },
  "Call": 3000,
  "Output": )") + kRangeOutput + R"(,
  "Return": 3500,
  "Metadata": )" + kRangeOutput + "\n}\n";
  EXPECT_EQ(r->clients[0].operations, expected);
}

TEST(ExportEtcdReport, StringsAreEscapedAsGoDoes) {
  std::string out;
  append_go_json_string(out, "a<b>&\"\\\b\f\n\r\t\x01\x1f\x7f \xc3\xa9 \xe2\x80\xa8\xe2\x80\xa9 \xff \xc0\xaf \xed\xa0\x80 "
                             "\xf4\x90\x80\x80 \xf0\x9f\x98\x80 \xe2\x82");
  EXPECT_EQ(out,
            "\"a\\u003cb\\u003e\\u0026\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\x7f \xc3\xa9 \\u2028\\u2029 \\ufffd "
            "\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd\\ufffd \xf0\x9f\x98\x80 \\ufffd\\ufffd\"");
  // Through the exporter: a key of arbitrary bytes still gives valid JSON.
  History h;
  h.operations = {put(0, 0, 1, 2, std::string("k\0<\xff", 4), "v", 3)};
  Result<EtcdReport> r = export_etcd_report(h);
  ASSERT_TRUE(r.is_ok());
  EXPECT_NE(r->clients[0].operations.find(R"("Key": "k\u0000\u003c\ufffd")"), std::string::npos);
  EXPECT_EQ(parse_all(*r, false).size(), 1u);
}

TEST(ExportEtcdReport, StreamIdsRenewAfterUnknownWrites) {
  History h;
  Operation timed_out = put(2, 0, 30, 40, "a", "2", 0, Outcome::kUnknown);
  timed_out.response.mutable_error()->set_message("etcdserver: request timed out");
  Operation read_lost = get(4, 1, 60, 70, "b", "");
  read_lost.outcome = Outcome::kUnknown;
  h.operations = {
      put(0, 0, 10, 20, "a", "1", 2),
      put(1, 1, 15, 25, "b", "1", 3),
      timed_out,                                             // client 0 continues on a new stream
      put(3, 0, 50, 60, "a", "3", 0, Outcome::kFailed),      // left out: no new stream
      read_lost,                                             // an unknown read keeps its stream
      put(5, 1, 80, 90, "b", "2", 5),
      put(6, 0, 85, 95, "a", "4", 6),
      put(7, 1, 100, kNeverReturned, "b", "3", 0, Outcome::kUnknown),  // never returned
      put(8, 2, 120, 130, "c", "1", 7),
  };
  Result<EtcdReport> r = export_etcd_report(h);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->ops_left_out, 1u);
  std::vector<json::Value> ops = parse_all(*r, false);
  ASSERT_EQ(ops.size(), 8u);
  // In client order (client-1: ids 0 2 6; client-2: 1 4 5 7; client-3: 8).
  std::vector<int64_t> streams;
  for (const json::Value& o : ops) streams.push_back(int_at(o, {"ClientId"}));
  EXPECT_EQ(streams, (std::vector<int64_t>{0, 0, 2, 1, 1, 1, 1, 3}));
  const json::Value& unknown = ops[1];
  EXPECT_EQ(unknown.find("Output")->find("Error")->as_string(), "etcdserver: request timed out");
  EXPECT_TRUE(unknown.find("Output")->find("Txn")->is_null());
  EXPECT_EQ(int_at(unknown, {"Output", "Revision"}), 0);
  EXPECT_EQ(int_at(unknown, {"Return"}), 40);
  const json::Value& never = ops[6];
  EXPECT_EQ(never.find("Output")->find("Error")->as_string(), "context deadline exceeded");
  EXPECT_EQ(int_at(never, {"Return"}), 130);  // the latest time in the history
  EXPECT_EQ(ops[4].find("Input")->find("Type")->as_string(), "range");
  EXPECT_EQ(ops[4].find("Output")->find("Range")->kind(), json::Value::Kind::kNull);
}

TEST(ExportEtcdReport, LongValuesAreHashed) {
  ASSERT_EQ(fnv(""), 0x811c9dc5u);
  ASSERT_EQ(fnv("a"), 0xe40c292cu);
  const std::string long_value = "abcdefghijklmnopqrstuvwx";  // 24 bytes
  const std::string short_value = "abcdefghijklmnopqrs";      // 19 bytes
  History h;
  h.operations = {put(0, 0, 10, 20, "k", long_value, 2), put(1, 0, 30, 40, "k", short_value, 3),
                  put(2, 0, 50, 60, "k", "", 4), get(3, 0, 70, 80, "k", "")};
  auto* resp = h.operations[3].response.mutable_range();
  // A value a report gave back only as a hash (etcd_report_format.h's token) stays that hash.
  *resp->add_kvs() = kv("k", etcd_report::hash_token(0x1234abcd), 2, 2, 1);
  resp->set_count(1);
  Result<EtcdReport> r = export_etcd_report(h);
  ASSERT_TRUE(r.is_ok());
  const std::string& text = r->clients[0].operations;
  EXPECT_NE(text.find("\"Hash\": " + std::to_string(fnv(long_value)) + "\n"), std::string::npos);
  EXPECT_EQ(text.find(long_value), std::string::npos);
  EXPECT_NE(text.find("\"Value\": \"" + short_value + "\""), std::string::npos);
  EXPECT_NE(text.find("\"Value\": {},"), std::string::npos);  // the empty value
  EXPECT_NE(text.find("\"Hash\": " + std::to_string(0x1234abcdu) + "\n"), std::string::npos);
  EXPECT_EQ(parse_all(*r, false).size(), 4u);
}

Operation txn(uint64_t id, const Compare& c, bool succeeded) {
  Operation o = op(id, 0, 10 * static_cast<int64_t>(id) + 10, 10 * static_cast<int64_t>(id) + 15);
  auto* t = o.request.mutable_txn();
  *t->add_compare() = c;
  auto* p = t->add_success()->mutable_request_put();
  p->set_key(c.key());
  p->set_value("new");
  t->add_failure()->mutable_request_range()->set_key(c.key());
  auto* resp = o.response.mutable_txn();
  resp->mutable_header()->set_revision(9);
  resp->set_succeeded(succeeded);
  if (succeeded) {
    resp->add_responses()->mutable_response_put();
  } else {
    auto* range = resp->add_responses()->mutable_response_range();
    *range->add_kvs() = kv(c.key(), "old", 4, 5, 2);
    range->set_count(1);
  }
  return o;
}

Compare compare(Compare::CompareTarget target, Compare::CompareResult result, int64_t v) {
  Compare c;
  c.set_key("k");
  c.set_target(target);
  c.set_result(result);
  if (target == Compare::MOD) c.set_mod_revision(v);
  if (target == Compare::VERSION) c.set_version(v);
  if (target == Compare::CREATE) c.set_create_revision(v);
  return c;
}

TEST(ExportEtcdReport, TxnConditionsMeanWhatTheCompareMeant) {
  History h;
  h.operations = {txn(0, compare(Compare::MOD, Compare::EQUAL, 5), true),
                  txn(1, compare(Compare::VERSION, Compare::EQUAL, 2), false),
                  txn(2, compare(Compare::CREATE, Compare::EQUAL, 0), true),
                  txn(3, compare(Compare::VERSION, Compare::GREATER, 0), true)};
  Result<EtcdReport> r = export_etcd_report(h);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  std::vector<json::Value> ops = parse_all(*r, false);
  ASSERT_EQ(ops.size(), 4u);
  const std::vector<std::pair<int64_t, int64_t>> conditions = {{5, 0}, {0, 2}, {0, 0}, {0, 0}};
  for (size_t i = 0; i < ops.size(); ++i) {
    const json::Value& cond = ops[i].find("Input")->find("Txn")->find("Conditions")->items().at(0);
    EXPECT_EQ(cond.find("Key")->as_string(), "k");
    EXPECT_EQ(int_at(cond, {"ExpectedRevision"}), conditions[i].first) << i;
    EXPECT_EQ(int_at(cond, {"ExpectedVersion"}), conditions[i].second) << i;
  }
  // The failed compare ran the range: Failure true, its result is the range's.
  const json::Value& failed = *ops[1].find("Output")->find("Txn");
  EXPECT_TRUE(failed.find("Failure")->as_bool());
  EXPECT_EQ(int_at(failed.find("Results")->items().at(0), {"Count"}), 1);
  // "version > 0" is "key absent" with the branches swapped: the put is now on failure.
  const json::Value& swapped = *ops[3].find("Input")->find("Txn");
  EXPECT_EQ(swapped.find("OperationsOnSuccess")->items().at(0).find("Type")->as_string(), "range-operation");
  EXPECT_EQ(swapped.find("OperationsOnFailure")->items().at(0).find("Type")->as_string(), "put-operation");
  EXPECT_TRUE(ops[3].find("Output")->find("Txn")->find("Failure")->as_bool());
  EXPECT_EQ(int_at(ops[3], {"Output", "Revision"}), 9);
}

TEST(ExportEtcdReport, RefusalsNameTheOperation) {
  auto refused = [](Operation o, const std::string& why) {
    History h;
    h.operations = {o};
    Result<EtcdReport> r = export_etcd_report(h);
    ASSERT_FALSE(r.is_ok()) << why;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("operation 7 (client 2): " + why), std::string::npos) << r.status().message();
  };
  Operation p = put(7, 2, 1, 2, "k", "v", 3);
  p.request.mutable_put()->set_ignore_value(true);
  refused(p, "a put with ignore_value or ignore_lease");
  Operation d = op(7, 2, 1, 2);
  d.request.mutable_delete_range()->set_key("a");
  d.request.mutable_delete_range()->set_range_end("b");
  d.response.mutable_delete_range();
  refused(d, "a delete of a range");
  Operation value_cas = txn(7, compare(Compare::VALUE, Compare::EQUAL, 0), true);
  value_cas.client = 2;
  refused(value_cas, "the compare `value(k) == \"\"`");
  Operation nested = txn(7, compare(Compare::MOD, Compare::EQUAL, 5), true);
  nested.client = 2;
  nested.request.mutable_txn()->add_failure()->mutable_request_txn();
  refused(nested, "a nested txn");
  Operation stale = txn(7, compare(Compare::MOD, Compare::EQUAL, 5), false);
  stale.client = 2;
  stale.request.mutable_txn()->mutable_failure(0)->mutable_request_range()->set_serializable(true);
  refused(stale, "a serializable range inside a txn");
  Operation two = txn(7, compare(Compare::VERSION, Compare::GREATER, 0), true);
  two.client = 2;
  *two.request.mutable_txn()->add_compare() = compare(Compare::MOD, Compare::EQUAL, 1);
  refused(two, "the compare `version(k) > 0`");  // only a lone "key exists" can be swapped
}

TEST(ExportEtcdReport, LeftOutOperationsAreCounted) {
  History h;
  Operation serializable = get(0, 0, 10, 20, "k", "");
  serializable.request.mutable_range()->set_serializable(true);
  Operation sorted = get(1, 0, 30, 40, "a", "z");
  sorted.request.mutable_range()->set_sort_order(etcdserverpb::RangeRequest::DESCEND);
  Operation keep_alive = op(2, 0, 50, 60);
  keep_alive.request.mutable_lease_keep_alive()->set_id(5);
  keep_alive.response.mutable_lease_keep_alive();
  Operation compacted = op(3, 0, 70, 80, Outcome::kFailed);
  compacted.request.mutable_compaction()->set_revision(2);
  compacted.response.mutable_error()->set_message("etcdserver: mvcc: required revision has been compacted");
  Operation compact = op(4, 0, 90, 100);
  compact.request.mutable_compaction()->set_revision(6);
  compact.response.mutable_compaction()->mutable_header()->set_revision(8);
  Operation grant = op(5, 0, 110, 120);
  grant.request.mutable_lease_grant()->set_ttl(5);
  grant.response.mutable_lease_grant()->set_id(7587);
  grant.response.mutable_lease_grant()->mutable_header()->set_revision(8);
  h.operations = {serializable, sorted, keep_alive, compacted, compact, grant,
                  put(6, 0, 130, 140, "k", "v", 0, Outcome::kFailed)};
  Result<EtcdReport> r = export_etcd_report(h);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->reads_left_out, 2u);
  EXPECT_EQ(r->ops_left_out, 2u);  // the keep-alive and the failed put
  std::vector<json::Value> ops = parse_all(*r, false);
  ASSERT_EQ(ops.size(), 3u);
  // A compaction refused as compacted is a ClientError, as etcd records it.
  EXPECT_EQ(ops[0].find("Output")->find("ClientError")->as_string(), "mvcc: required revision has been compacted");
  EXPECT_TRUE(ops[0].find("Output")->find("Compact")->is_null());
  EXPECT_EQ(int_at(ops[0], {"Input", "Compact", "Revision"}), 2);
  EXPECT_EQ(int_at(ops[1], {"Output", "Revision"}), -1);  // RevisionForNonLinearizableResponse
  EXPECT_TRUE(ops[1].find("Output")->find("Compact")->is_object());
  EXPECT_EQ(int_at(ops[2], {"Input", "LeaseGrant", "LeaseID"}), 7587);
  EXPECT_EQ(int_at(ops[2], {"Output", "LeaseGrant", "LeaseID"}), 0);  // etcd keeps it in the request only
  EXPECT_EQ(int_at(ops[2], {"Output", "Revision"}), 8);
  for (const json::Value& o : ops) EXPECT_EQ(int_at(o, {"ClientId"}), 0);  // no unknown writes
}

TEST(ExportEtcdReport, AReadOnlyTxnEtcdCannotSayIsLeftOutAsAReadIs) {
  History h;
  Operation read_cas = txn(0, compare(Compare::VALUE, Compare::EQUAL, 0), false);  // value compare
  read_cas.request.mutable_txn()->mutable_success(0)->mutable_request_range()->set_key("k");
  h.operations = {read_cas};
  Result<EtcdReport> r = export_etcd_report(h);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->reads_left_out, 1u);
  EXPECT_TRUE(r->clients.empty());
}

etcdserverpb::WatchResponse watch_response(int64_t revision) {
  etcdserverpb::WatchResponse r;
  r.mutable_header()->set_revision(revision);
  return r;
}

Watch prefix_watch() {
  Watch w;
  w.id = 0;
  w.client = 1;
  WatchSegment first;
  first.request.set_key("key");
  first.request.set_range_end("kez");
  first.request.set_start_revision(2);
  first.request.set_prev_kv(true);
  first.request.set_progress_notify(true);
  etcdserverpb::WatchResponse created = watch_response(1);
  created.set_created(true);
  first.responses.push_back({50, created});
  etcdserverpb::WatchResponse put = watch_response(2);
  *put.add_events()->mutable_kv() = kv("key1", "42", 2, 2, 1);
  first.responses.push_back({100, put});
  first.broken = true;
  WatchSegment resumed = first;  // clientv3 resumes from the next revision, unseen by its user
  resumed.request.set_start_revision(3);
  resumed.broken = false;
  resumed.responses = {{250, created}};
  etcdserverpb::WatchResponse del = watch_response(5);
  mvccpb::Event* e = del.add_events();
  e->set_type(mvccpb::Event::DELETE);
  *e->mutable_kv() = kv("key1", "", 0, 5, 0);
  *e->mutable_prev_kv() = kv("key1", "43", 2, 4, 2);
  resumed.responses.push_back({300, del});
  resumed.responses.push_back({400, watch_response(6)});  // a progress notification
  w.segments = {first, resumed};
  return w;
}

TEST(ExportEtcdReport, WatchRecordIsGoMarshalIndent) {
  History h;
  h.watches = {prefix_watch()};
  Result<EtcdReport> r = export_etcd_report(h);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->clients.size(), 1u);
  EXPECT_EQ(r->clients[0].id, 2u);
  EXPECT_EQ(r->clients[0].operations, "");
  EXPECT_EQ(r->clients[0].watches_written, 1u);
  EXPECT_EQ(r->clients[0].watch, R"({
  "Request": {
    "Key": "key",
    "Revision": 2,
    "WithPrefix": true,
    "WithProgressNotify": true,
    "WithPrevKV": true
  },
  "Responses": [
    {
      "Events": [
        {
          "Type": "put-operation",
          "Key": "key1",
          "Value": {
            "Value": "42"
          },
          "Revision": 2,
          "IsCreate": true
        }
      ],
      "Revision": 2,
      "Time": 100
    },
    {
      "Events": [
        {
          "Type": "delete-operation",
          "Key": "key1",
          "Value": {},
          "Revision": 5,
          "PrevValue": {
            "Value": {
              "Value": "43"
            },
            "ModRevision": 4,
            "Version": 2
          }
        }
      ],
      "Revision": 5,
      "Time": 300
    },
    {
      "IsProgressNotify": true,
      "Revision": 6,
      "Time": 400
    }
  ]
}
)");
  EXPECT_EQ(parse_all(*r, true).size(), 1u);
}

TEST(ExportEtcdReport, WatchEndingsAndLeftOutWatches) {
  History h;
  Watch compacted = prefix_watch();
  compacted.segments.resize(1);
  etcdserverpb::WatchResponse cancel = watch_response(9);
  cancel.set_canceled(true);
  cancel.set_compact_revision(7);
  compacted.segments[0].responses.push_back({500, cancel});
  compacted.segments[0].responses.push_back({600, watch_response(10)});  // after the end: not delivered
  Watch refused_create;
  refused_create.id = 1;
  refused_create.segments.resize(1);
  refused_create.segments[0].request.set_key("k");
  etcdserverpb::WatchResponse failed = watch_response(3);
  failed.set_created(true);
  failed.set_canceled(true);
  failed.set_cancel_reason("etcdserver: mvcc: required revision is a future revision");
  refused_create.segments[0].responses.push_back({70, failed});
  Watch silent = refused_create;  // created, then nothing: no Responses member at all
  silent.segments[0].responses = {{70, watch_response(3)}};
  silent.segments[0].responses[0].response.set_created(true);
  Watch filtered = silent, sub_range = silent, from_key = silent, every_key = silent;
  every_key.segments[0].request.set_key("");  // clientv3's WithPrefix of "": written so again
  every_key.segments[0].request.set_range_end(std::string(1, '\0'));
  filtered.segments[0].request.add_filters(etcdserverpb::WatchCreateRequest::NOPUT);
  sub_range.segments[0].request.set_range_end("l");  // [ka, l) is no prefix: "ka"'s would end at "kb"
  sub_range.segments[0].request.set_key("ka");
  from_key.segments[0].request.set_range_end(std::string(1, '\0'));
  h.watches = {compacted, refused_create, silent, filtered, sub_range, from_key, every_key};
  Result<EtcdReport> r = export_etcd_report(h);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->watches_left_out, 3u);
  std::vector<json::Value> watches = parse_all(*r, true);
  ASSERT_EQ(watches.size(), 4u);  // client-1: refused_create, silent, every_key; client-2: compacted
  const json::Value& refused = watches[0].find("Responses")->items().at(0);
  EXPECT_EQ(refused.find("Error")->as_string(), "etcdserver: mvcc: required revision is a future revision");
  EXPECT_EQ(refused.find("Revision"), nullptr);
  EXPECT_EQ(refused.find("IsProgressNotify"), nullptr);
  EXPECT_EQ(watches[1].find("Responses"), nullptr);
  EXPECT_FALSE(watches[1].find("Request")->find("WithPrefix")->as_bool());
  EXPECT_EQ(watches[2].find("Request")->find("Key")->as_string(), "");
  EXPECT_TRUE(watches[2].find("Request")->find("WithPrefix")->as_bool());
  const auto& responses = watches[3].find("Responses")->items();
  ASSERT_EQ(responses.size(), 2u);
  EXPECT_EQ(responses[1].find("Error")->as_string(), "etcdserver: mvcc: required revision has been compacted");
  EXPECT_EQ(int_at(responses[1], {"Revision"}), 9);
  EXPECT_EQ(responses[1].find("IsProgressNotify"), nullptr);
}

}  // namespace
}  // namespace dst::history
