// Reading etcd robustness reports: each record kind and field, the outcomes, the value hashes,
// and errors that name the file, the line and the field.
#include "history/import_etcd_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "history/etcd_report_format.h"

namespace dst::history {
namespace {

// One operations.json record; `input` and `output` are the Input and Output objects.
std::string op_record(int stream, const std::string& input, const std::string& output, int64_t call, int64_t ret) {
  return "{\n  \"ClientId\": " + std::to_string(stream) + ",\n  \"Input\": " + input + ",\n  \"Call\": " +
         std::to_string(call) + ",\n  \"Output\": " + output + ",\n  \"Return\": " + std::to_string(ret) +
         ",\n  \"Metadata\": null\n}\n";
}

std::string put_input(const std::string& key, const std::string& value, int64_t lease = 0) {
  return R"({"Type":"txn","LeaseGrant":null,"LeaseRevoke":null,"Range":null,"Txn":{"Conditions":null,
  "OperationsOnSuccess":[{"Type":"put-operation","Range":{"Start":"","End":"","Limit":0,"KeysOnly":false},
  "Put":{"Key":")" + key + R"(","Value":{"Value":")" + value + R"("},"LeaseID":)" + std::to_string(lease) +
         R"(},"Delete":{"Key":""}}],"OperationsOnFailure":null},"Defragment":null,"Compact":null})";
}

std::string txn_ok(int64_t revision) {
  return R"({"Txn":{"Failure":false,"Results":[{"KVs":null,"Count":0,"Deleted":0}]},"Range":null,"LeaseGrant":null,
  "LeaseRevoke":null,"Defragment":null,"Compact":null,"ClientError":"","Revision":)" + std::to_string(revision) +
         R"(,"member-id":"8e9e05c52164694d","Persisted":false,"PersistedRevision":0,"Error":""})";
}

const std::string kTimeout =
    R"({"Txn":null,"Range":null,"LeaseGrant":null,"LeaseRevoke":null,"Defragment":null,"Compact":null,
  "ClientError":"","Revision":0,"Persisted":false,"PersistedRevision":0,"Error":"context deadline exceeded"})";

Result<ImportedReport> import_one(const std::string& name, const std::string& text) {
  return import_etcd_report_files({ReportFile{name, text}});
}

TEST(ImportEtcdReport, APutIsATxnWithOneOperationAndItsRevision) {
  auto r = import_one("client-1/operations.json", op_record(3, put_input("key1", "42", 7), txn_ok(17), 1500, 2100));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->history.operations.size(), 1u);
  const Operation& op = r->history.operations[0];
  EXPECT_EQ(op.client, 3u);
  EXPECT_EQ(op.member, 1u) << "member-id 8e9e05c52164694d, the first to answer";
  EXPECT_EQ(op.invoke_ns, 1500);
  EXPECT_EQ(op.return_ns, 2100);
  EXPECT_EQ(op.outcome, Outcome::kOk);
  ASSERT_TRUE(op.request.has_txn());
  ASSERT_EQ(op.request.txn().success_size(), 1);
  EXPECT_EQ(op.request.txn().compare_size(), 0);
  EXPECT_EQ(op.request.txn().success(0).request_put().key(), "key1");
  EXPECT_EQ(op.request.txn().success(0).request_put().value(), "42");
  EXPECT_EQ(op.request.txn().success(0).request_put().lease(), 7);
  ASSERT_TRUE(op.response.has_txn());
  EXPECT_TRUE(op.response.txn().succeeded());
  EXPECT_EQ(op.response.txn().header().revision(), 17);
  ASSERT_EQ(op.response.txn().responses_size(), 1);
  EXPECT_TRUE(op.response.txn().responses(0).has_response_put());
  EXPECT_EQ(r->clients, 1u);
}

TEST(ImportEtcdReport, AnErrorIsAnUnknownOutcomeAndAClientErrorAFailure) {
  const std::string compact_in =
      R"({"Type":"compact","Range":null,"Txn":null,"LeaseGrant":null,"LeaseRevoke":null,"Defragment":null,"Compact":{"Revision":9}})";
  const std::string compacted =
      R"({"Compact":{},"ClientError":"mvcc: required revision has been compacted","Revision":-1,"Error":""})";
  auto r = import_one("client-2/operations.json", op_record(0, put_input("k", "v"), kTimeout, 10, 50) +
                                                      op_record(1, compact_in, compacted, 60, 70));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->history.operations.size(), 2u);
  EXPECT_EQ(r->history.operations[0].outcome, Outcome::kUnknown);
  EXPECT_EQ(r->history.operations[0].response.error().message(), "context deadline exceeded");
  EXPECT_EQ(r->history.operations[1].outcome, Outcome::kFailed);
  EXPECT_EQ(r->history.operations[1].request.compaction().revision(), 9);
}

TEST(ImportEtcdReport, ACompactionHasNoRevisionAndADefragmentationIsLeftOut) {
  const std::string compact_in = R"({"Type":"compact","Compact":{"Revision":4}})";
  const std::string defrag_in = R"({"Type":"defragment","Defragment":{}})";
  const std::string done = R"({"Compact":{},"Defragment":{},"Revision":-1,"Error":""})";
  auto r = import_one("client-1/operations.json", op_record(0, compact_in, done, 1, 2) + op_record(0, defrag_in, done, 3, 4));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->history.operations.size(), 1u);
  EXPECT_EQ(r->left_out, 1u);
  EXPECT_TRUE(r->history.operations[0].response.has_compaction());
  EXPECT_EQ(response_revision(r->history.operations[0].response), 0);
}

TEST(ImportEtcdReport, RangesKeepWhatTheReportRecordsAndLongValuesBecomeHashTokens) {
  const std::string in = R"({"Type":"range","Range":{"Start":"key","End":"kez","Limit":5,"KeysOnly":false,"Revision":0}})";
  const std::string out = R"({"Range":{"KVs":[{"Key":"key0","Value":{"Value":"2"},"ModRevision":3,"Version":2},
    {"Key":"key1","Value":{"Hash":3735928559},"ModRevision":4,"Version":1}],"Count":2},"Revision":4,"Error":""})";
  auto r = import_one("client-1/operations.json", op_record(0, in, out, 1, 2));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const Operation& op = r->history.operations.at(0);
  EXPECT_EQ(op.request.range().key(), "key");
  EXPECT_EQ(op.request.range().range_end(), "kez");
  EXPECT_EQ(op.request.range().limit(), 5);
  const auto& kvs = op.response.range().kvs();
  ASSERT_EQ(kvs.size(), 2);
  EXPECT_EQ(kvs[0].value(), "2");
  EXPECT_EQ(kvs[0].create_revision(), 0) << "not recorded for version 2";
  EXPECT_EQ(kvs[0].version(), 2);
  EXPECT_EQ(kvs[1].value(), etcd_report::hash_token(0xdeadbeef));
  EXPECT_EQ(kvs[1].create_revision(), 4) << "version 1: created at its mod revision";
  EXPECT_EQ(op.response.range().count(), 2);
  EXPECT_EQ(op.response.range().header().revision(), 4);
}

TEST(ImportEtcdReport, ALongValueWrittenAndItsRecordedHashAgree) {
  const std::string value = "a value of twenty-four!!";
  ASSERT_EQ(value.size(), 24u);
  auto r = import_one("client-1/operations.json", op_record(0, put_input("k", value), txn_ok(2), 1, 2));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->history.operations[0].request.txn().success(0).request_put().value(),
            etcd_report::hash_token(etcd_report::fnv32a(value)));
  EXPECT_EQ(etcd_report::fnv32a(""), 0x811c9dc5u);  // Go's hash/fnv New32a of nothing
  EXPECT_EQ(etcd_report::fnv32a("a"), 0xe40c292cu);
  EXPECT_EQ(etcd_report::canonical_value(etcd_report::hash_token(7)), etcd_report::hash_token(7));
}

TEST(ImportEtcdReport, ConditionsCompareTheVersionWhenOneIsExpectedElseTheModRevision) {
  const std::string in = R"({"Type":"txn","Txn":{"Conditions":[{"Key":"a","ExpectedRevision":0,"ExpectedVersion":3},
    {"Key":"b","ExpectedRevision":5,"ExpectedVersion":0},{"Key":"c","ExpectedRevision":0,"ExpectedVersion":0}],
    "OperationsOnSuccess":[{"Type":"delete-operation","Delete":{"Key":"a"}}],
    "OperationsOnFailure":[{"Type":"range-operation","Range":{"Start":"a","End":"","Limit":0}}]}})";
  const std::string out = R"({"Txn":{"Failure":true,"Results":[{"KVs":null,"Count":0,"Deleted":0}]},"Revision":8,"Error":""})";
  auto r = import_one("client-1/operations.json", op_record(0, in, out, 1, 2));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  const auto& t = r->history.operations.at(0).request.txn();
  ASSERT_EQ(t.compare_size(), 3);
  EXPECT_EQ(t.compare(0).target(), etcdserverpb::Compare::VERSION);
  EXPECT_EQ(t.compare(0).version(), 3);
  EXPECT_EQ(t.compare(1).target(), etcdserverpb::Compare::MOD);
  EXPECT_EQ(t.compare(1).mod_revision(), 5);
  EXPECT_EQ(t.compare(2).target(), etcdserverpb::Compare::MOD);
  EXPECT_EQ(t.compare(2).mod_revision(), 0);
  const auto& resp = r->history.operations[0].response.txn();
  EXPECT_FALSE(resp.succeeded());
  ASSERT_EQ(resp.responses_size(), 1);
  EXPECT_TRUE(resp.responses(0).has_response_range());
}

TEST(ImportEtcdReport, AWatchIsOneSegmentWithItsEventsProgressAndError) {
  const std::string w = R"({"Request":{"Key":"key","Revision":2,"WithPrefix":true,"WithProgressNotify":true,"WithPrevKV":true},
  "Responses":[{"Events":[{"Type":"put-operation","Key":"key0","Value":{"Value":"1"},"Revision":2,"IsCreate":true}],"Revision":2,"Time":100},
   {"Events":[{"Type":"delete-operation","Key":"key0","Revision":3,"PrevValue":{"Value":{"Value":"1"},"ModRevision":2,"Version":1}}],"Revision":3,"Time":200},
   {"IsProgressNotify":true,"Revision":3,"Time":300},
   {"Revision":3,"Time":400,"Error":"etcdserver: mvcc: required revision has been compacted"}]})";
  auto r = import_one("client-4/watch.json", w);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->history.watches.size(), 1u);
  const Watch& watch = r->history.watches[0];
  EXPECT_EQ(watch.client, 4u);
  ASSERT_EQ(watch.segments.size(), 1u);
  const WatchSegment& seg = watch.segments[0];
  EXPECT_EQ(seg.request.key(), "key");
  EXPECT_EQ(seg.request.range_end(), "kez");
  EXPECT_EQ(seg.request.start_revision(), 2);
  EXPECT_TRUE(seg.request.prev_kv());
  EXPECT_TRUE(seg.request.progress_notify());
  ASSERT_EQ(seg.responses.size(), 4u);
  const auto& create = seg.responses[0].response.events(0);
  EXPECT_EQ(create.type(), mvccpb::Event::PUT);
  EXPECT_EQ(create.kv().create_revision(), 2);
  EXPECT_EQ(create.kv().version(), 1);
  const auto& del = seg.responses[1].response.events(0);
  EXPECT_EQ(del.type(), mvccpb::Event::DELETE);
  EXPECT_EQ(del.kv().mod_revision(), 3);
  EXPECT_EQ(del.prev_kv().value(), "1");
  EXPECT_EQ(del.prev_kv().create_revision(), 2);
  EXPECT_EQ(seg.responses[2].response.events_size(), 0);
  EXPECT_EQ(seg.responses[2].response.header().revision(), 3);
  EXPECT_TRUE(seg.responses[3].response.canceled());
  EXPECT_EQ(seg.created_ns, 100);
}

TEST(ImportEtcdReport, OlderReportsWriteHashZeroBesideEveryValue) {
  const std::string in = R"({"Type":"range","Range":{"Start":"k","End":"","Limit":0,"KeysOnly":false,"Revision":0}})";
  const std::string out = R"({"Range":{"KVs":[{"Key":"k","Value":{"Value":"793","Hash":0},"ModRevision":3,"Version":2}],
    "Count":1},"Revision":4,"Error":""})";
  auto r = import_one("client-1/operations.json", op_record(0, in, out, 1, 2));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->history.operations.at(0).response.range().kvs(0).value(), "793") << "Hash 0 is no hash";
}

TEST(ImportEtcdReport, AWatchFromBelowRevisionOneStartsNow) {
  // etcd's traffic starts a watch at a revision it read plus or minus 100: early on, below 1.
  auto r = import_one("client-2/watch.json", R"({"Request":{"Key":"k","Revision":-42},
    "Responses":[{"Revision":5,"Time":10,"Error":"etcdserver: mvcc: required revision has been compacted"}]})");
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->history.watches.at(0).segments.at(0).request.start_revision(), 0);
}

TEST(ImportEtcdReport, OperationsAreOrderedByCallTimeAcrossClients) {
  auto r = import_etcd_report_files(
      {ReportFile{"client-2/operations.json", op_record(5, put_input("b", "2"), txn_ok(3), 30, 40)},
       ReportFile{"client-1/operations.json",
                  op_record(0, put_input("a", "1"), txn_ok(2), 10, 20) + op_record(0, put_input("c", "3"), txn_ok(4), 50, 60)}});
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  ASSERT_EQ(r->history.operations.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(r->history.operations[i].id, i);
  EXPECT_EQ(r->history.operations[0].invoke_ns, 10);
  EXPECT_EQ(r->history.operations[1].client, 5u);
  EXPECT_EQ(r->history.operations[2].invoke_ns, 50);
  EXPECT_EQ(r->clients, 2u);
}

TEST(ImportEtcdReport, GoDecodesFieldNamesCaseInsensitively) {
  const std::string rec = "{\"ClientID\": 2, \"input\": " + put_input("k", "v") + ", \"call\": 1, \"output\": " + txn_ok(2) +
                          ", \"return\": 2}";
  auto r = import_one("client-1/operations.json", rec);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->history.operations.at(0).client, 2u);
}

void expect_error(const std::string& name, const std::string& text, const std::string& want) {
  auto r = import_one(name, text);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find(want), std::string::npos) << r.status().message();
}

TEST(ImportEtcdReport, ErrorsNameTheFileTheLineAndWhatWasExpected) {
  expect_error("client-1/operations.json", op_record(0, R"({"Type":"watch"})", txn_ok(2), 1, 2),
               "client-1/operations.json:3: Type: expected range, txn, leaseGrant, leaseRevoke, defragment or compact");
  expect_error("client-1/operations.json", op_record(0, put_input("k", "v"), txn_ok(0), 1, 2),
               "Revision: expected the store revision (>= 1) of an answered request, got 0");
  expect_error("client-1/operations.json", op_record(0, put_input("k", "v"), txn_ok(2), 5, 2),
               "client-1/operations.json:9: Return: expected a time at or after Call");
  std::string bad_stream = op_record(0, put_input("k", "v"), txn_ok(2), 1, 2);
  bad_stream.replace(bad_stream.find("\"ClientId\": 0"), std::string("\"ClientId\": 0").size(), "\"ClientId\": \"x\"");
  expect_error("client-1/operations.json", bad_stream, "client-1/operations.json:2: ClientId: expected an integer");
  expect_error("client-1/operations.json", "[1, 2]", "expected a JSON object");
  expect_error("client-1/operations.json", "{\"ClientId\": 1,", "client-1/operations.json:1");
  expect_error("notes.txt", "", "not a report file: expected client-<N>/operations.json");
  expect_error("client-1/watch.json", R"({"Request":{"Key":"k"},"Responses":[{"Events":[{"Type":"x","Revision":2}]}]})",
               "Type: expected put-operation or delete-operation, got 'x'");
  expect_error("client-1/watch.json", "{\"Request\": {\"Key\": \"k\"},\n \"Responses\": [{\"Error\": \"gone\"},\n {\"Revision\": 3}]}",
               "client-1/watch.json:3: a response after the watch's error");
  const std::string short_results =
      R"({"Txn":{"Failure":false,"Results":[]},"Revision":2,"Error":""})";
  expect_error("client-1/operations.json", op_record(0, put_input("k", "v"), short_results, 1, 2),
               "Results: expected one result per operation of the branch that ran (1), got 0");
}

TEST(ImportEtcdReport, ADirectoryIsAReportWhenAClientDirectoryHoldsAReportFile) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("dst_report_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "client-1");
  fs::create_directories(dir / "server-a");
  EXPECT_FALSE(is_etcd_report_dir(dir.string()));
  auto none = import_etcd_report(dir.string());
  ASSERT_FALSE(none.is_ok());
  EXPECT_NE(none.status().message().find("no etcd robustness report here"), std::string::npos);
  {
    std::FILE* f = std::fopen((dir / "client-1" / "operations.json").c_str(), "w");
    ASSERT_NE(f, nullptr);
    const std::string rec = op_record(0, put_input("a", "1"), txn_ok(2), 10, 20);
    std::fwrite(rec.data(), 1, rec.size(), f);
    std::fclose(f);
  }
  EXPECT_TRUE(is_etcd_report_dir(dir.string()));
  auto r = import_etcd_report(dir.string());
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->history.operations.size(), 1u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dst::history
