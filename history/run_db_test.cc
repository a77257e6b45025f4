// Tests of the run database (history/run_db.h): round trip of every field (informers included),
// incremental writing read while the writer is open and after the writer's process is killed,
// schema and format checks, corruption named by table and row, writer misuse as errors, and a
// 100k-operation run.
#include "history/run_db.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "history/run_db_recorder.h"

namespace dst::history {
namespace {

namespace pb = etcdserverpb;

// A fresh directory per test; its files are removed afterwards.
class RunDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "run_db_test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const std::string& name : created_) {
      for (const char* suffix : {"", "-wal", "-shm"}) std::remove((name + suffix).c_str());
    }
    ::rmdir(dir_.c_str());
  }
  std::string file(const std::string& name) {
    created_.push_back(dir_ + "/" + name);
    return created_.back();
  }
  // Writes sample_history() to a fresh file, damages it with `damage` (SQL), and expects reading
  // it back to fail as corruption with `expected` after the file's name.
  void expect_corruption(const std::string& damage, const std::string& expected);

  std::string dir_;
  std::vector<std::string> created_;
};

// Runs SQL on a file directly, as a person with sqlite3 would.
void sql(const std::string& path, const std::string& statement) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "") << " in " << statement;
  sqlite3_free(error);
  sqlite3_close(db);
}

// The first column of the first row of a query, as text ("NULL" for NULL).
std::string query(const std::string& path, const std::string& statement) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, statement.c_str(), -1, &st, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db) << " in " << statement;
  std::string out = "<no row>";
  if (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(st, 0);
    out = text ? reinterpret_cast<const char*>(text) : "NULL";
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

RunInfo sample_info() {
  RunInfo info;
  info.seed = 18'446'744'073'709'551'615ull;  // the largest seed survives the TEXT column
  info.scenario = "scenarios/partition.lua";
  info.options = "--clients 5 --ops 1000\n--nemesis partition";
  info.dst_version = "v0.1-42-gabc";
  info.started_unix_ms = 1'700'000'000'123;
  return info;
}

RunResult sample_result() {
  RunResult r;
  r.finished_unix_ms = 1'700'000'004'567;
  r.trace_hash = 0x0123456789abcdefull;
  r.verdict = "violation";
  r.exit_code = 1;
  r.checker_summary = "linearizability: ops 3 and 7 cannot be ordered";
  r.coverage = {{"api.put.any.ok", 7}, {"watch.compaction-cancel", 2}};
  return r;
}

pb::ApiRequest put_request(const std::string& key, const std::string& value) {
  pb::ApiRequest r;
  r.mutable_put()->set_key(key);
  r.mutable_put()->set_value(value);
  return r;
}

pb::ApiResponse put_response(int64_t revision) {
  pb::ApiResponse r;
  r.mutable_put()->mutable_header()->set_revision(revision);
  r.mutable_put()->mutable_header()->set_member_id(2);
  return r;
}

pb::ApiResponse error_response(int code, const std::string& message) {
  pb::ApiResponse r;
  r.mutable_error()->set_code(code);
  r.mutable_error()->set_message(message);
  return r;
}

Operation op(uint64_t id, uint32_t client, uint32_t member, int64_t invoke_ns, int64_t return_ns,
             pb::ApiRequest request, Outcome outcome, pb::ApiResponse response) {
  Operation o;
  o.id = id;
  o.client = client;
  o.member = member;
  o.invoke_ns = invoke_ns;
  o.return_ns = return_ns;
  o.request = std::move(request);
  o.outcome = outcome;
  o.response = std::move(response);
  return o;
}

KubeObject object(const std::string& key, const std::string& value, int64_t resource_version) {
  return KubeObject{key, value, resource_version};
}

KubeWatchEvent event(KubeWatchEvent::Type type, int64_t at_ns, int64_t cached_ns, KubeObject o) {
  KubeWatchEvent e;
  e.type = type;
  e.at_ns = at_ns;
  e.cached_ns = cached_ns;
  e.object = std::move(o);
  return e;
}

// Two informers using every field: lists that succeeded (with and without objects) and failed,
// watches with all four event types, each kind of end and none (still running), processed keys
// present and absent, a finished informer and one that never finished. A value holds a NUL and a
// non-UTF-8 byte: values are bytes.
std::vector<Informer> sample_informers() {
  using Type = KubeWatchEvent::Type;
  Informer pods;
  pods.id = 0;
  pods.client = 7;
  pods.prefix = "/registry/pods/";
  const std::string binary("b\0\xff", 3);
  pods.lists.push_back(KubeList{0, 1, 1000, 1100, 0, true, "", 5,
                                {object("/registry/pods/a", "pod-a", 3),
                                 object("/registry/pods/b", binary, 5)}});
  pods.lists.push_back(
      KubeList{2, 2, 3000, 3050, 5, false, "410 too old resource version", 0, {}});
  pods.lists.push_back(
      KubeList{4, 2, 4000, 4100, 0, true, "", 9, {object("/registry/pods/a", "pod-a2", 8)}});
  KubeWatch w0{1, 1, 1200, 5, {}, "410 too old resource version", 2900};
  w0.events.push_back(event(Type::kAdded, 1300, 1290, object("/registry/pods/c", "pod-c", 6)));
  w0.events.push_back(event(Type::kModified, 1400, 1390, object("/registry/pods/a", "pod-a1", 7)));
  w0.events.push_back(event(Type::kDeleted, 1600, 1590, object("/registry/pods/b", binary, 8)));
  w0.events.push_back(event(Type::kBookmark, 1700, 0, object("", "", 8)));
  pods.watches.push_back(w0);
  pods.watches.push_back(KubeWatch{3, 2, 3100, 5, {}, "broken: connection reset", 3200});
  KubeWatch w2{5, 2, 4200, 9, {}, "", 0};  // still running when the run ended
  w2.events.push_back(event(Type::kAdded, 4300, 4290, object("/registry/pods/d", "pod-d", 10)));
  pods.watches.push_back(w2);
  pods.processed.push_back(KubeProcessed{1500, "/registry/pods/a", 6, true, 3});
  pods.processed.push_back(KubeProcessed{2500, "/registry/pods/b", 8, false, 0});
  pods.finished = true;
  pods.final_ns = 9000;
  pods.final_rv = 10;
  pods.final_objects = {object("/registry/pods/a", "pod-a2", 8),
                        object("/registry/pods/d", "pod-d", 10)};

  Informer config;
  config.id = 1;
  config.client = 8;
  config.prefix = "/registry/configmaps/";
  config.lists.push_back(KubeList{0, 3, 500, 600, 0, true, "", 9, {}});
  config.watches.push_back(KubeWatch{1, 3, 700, 9, {}, "stopped", 9000});
  return {pods, config};
}

void expect_same_object(const KubeObject& x, const KubeObject& y) {
  EXPECT_EQ(x.key, y.key);
  EXPECT_EQ(x.value, y.value);
  EXPECT_EQ(x.resource_version, y.resource_version);
}

void expect_same_objects(const std::vector<KubeObject>& x, const std::vector<KubeObject>& y) {
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    SCOPED_TRACE("object " + std::to_string(i));
    expect_same_object(x[i], y[i]);
  }
}

void expect_same_lists(const std::vector<KubeList>& a, const std::vector<KubeList>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("list " + std::to_string(i));
    EXPECT_EQ(a[i].step, b[i].step);
    EXPECT_EQ(a[i].apiserver, b[i].apiserver);
    EXPECT_EQ(a[i].invoke_ns, b[i].invoke_ns);
    EXPECT_EQ(a[i].return_ns, b[i].return_ns);
    EXPECT_EQ(a[i].requested_rv, b[i].requested_rv);
    EXPECT_EQ(a[i].ok, b[i].ok);
    EXPECT_EQ(a[i].error, b[i].error);
    EXPECT_EQ(a[i].resource_version, b[i].resource_version);
    expect_same_objects(a[i].objects, b[i].objects);
  }
}

void expect_same_watches(const std::vector<KubeWatch>& a, const std::vector<KubeWatch>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("watch " + std::to_string(i));
    EXPECT_EQ(a[i].step, b[i].step);
    EXPECT_EQ(a[i].apiserver, b[i].apiserver);
    EXPECT_EQ(a[i].created_ns, b[i].created_ns);
    EXPECT_EQ(a[i].from_rv, b[i].from_rv);
    EXPECT_EQ(a[i].end, b[i].end);
    EXPECT_EQ(a[i].ended_ns, b[i].ended_ns);
    ASSERT_EQ(a[i].events.size(), b[i].events.size());
    for (size_t j = 0; j < a[i].events.size(); ++j) {
      SCOPED_TRACE("event " + std::to_string(j));
      EXPECT_EQ(a[i].events[j].type, b[i].events[j].type);
      EXPECT_EQ(a[i].events[j].at_ns, b[i].events[j].at_ns);
      EXPECT_EQ(a[i].events[j].cached_ns, b[i].events[j].cached_ns);
      expect_same_object(a[i].events[j].object, b[i].events[j].object);
    }
  }
}

void expect_same_informers(const std::vector<Informer>& a, const std::vector<Informer>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("informer " + std::to_string(i));
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].client, b[i].client);
    EXPECT_EQ(a[i].prefix, b[i].prefix);
    expect_same_lists(a[i].lists, b[i].lists);
    expect_same_watches(a[i].watches, b[i].watches);
    ASSERT_EQ(a[i].processed.size(), b[i].processed.size());
    for (size_t j = 0; j < a[i].processed.size(); ++j) {
      SCOPED_TRACE("processed " + std::to_string(j));
      EXPECT_EQ(a[i].processed[j].at_ns, b[i].processed[j].at_ns);
      EXPECT_EQ(a[i].processed[j].key, b[i].processed[j].key);
      EXPECT_EQ(a[i].processed[j].informer_rv, b[i].processed[j].informer_rv);
      EXPECT_EQ(a[i].processed[j].present, b[i].processed[j].present);
      EXPECT_EQ(a[i].processed[j].object_rv, b[i].processed[j].object_rv);
    }
    EXPECT_EQ(a[i].finished, b[i].finished);
    EXPECT_EQ(a[i].final_ns, b[i].final_ns);
    EXPECT_EQ(a[i].final_rv, b[i].final_rv);
    expect_same_objects(a[i].final_objects, b[i].final_objects);
  }
}

// A history using every field: each outcome, a never-returned op, an op that gave up with a
// return time, txn/range/compaction/lease requests, watches with broken and resumed segments,
// created/progress/canceled responses, healed and unhealed faults, and informers
// (sample_informers).
History sample_history() {
  History h;
  h.operations.push_back(
      op(0, 1, 1, 100, 250, put_request("/k/x", "v0"), Outcome::kOk, put_response(2)));
  pb::ApiRequest range;
  range.mutable_range()->set_key("/k/");
  range.mutable_range()->set_range_end("/k0");
  range.mutable_range()->set_serializable(true);
  pb::ApiResponse range_resp;
  range_resp.mutable_range()->mutable_header()->set_revision(2);
  auto* kv = range_resp.mutable_range()->add_kvs();
  kv->set_key("/k/x");
  kv->set_value("v0");
  kv->set_mod_revision(2);
  range_resp.mutable_range()->set_count(1);
  h.operations.push_back(op(1, 2, 3, 120, 300, range, Outcome::kOk, range_resp));
  pb::ApiRequest txn;
  auto* cmp = txn.mutable_txn()->add_compare();
  cmp->set_key("/k/y");
  cmp->set_target(pb::Compare::MOD);
  cmp->set_mod_revision(7);
  *txn.mutable_txn()->add_success()->mutable_request_put() = put_request("/k/y", "v1").put();
  pb::ApiResponse txn_resp;
  txn_resp.mutable_txn()->mutable_header()->set_revision(3);
  txn_resp.mutable_txn()->set_succeeded(false);
  h.operations.push_back(op(2, 3, 2, 130, 400, txn, Outcome::kFailed, txn_resp));
  pb::ApiRequest del;
  del.mutable_delete_range()->set_key("/k/x");
  h.operations.push_back(op(3, 4, 1, 140, 5'000, del, Outcome::kUnknown,
                            error_response(14, "etcdserver: request timed out")));
  pb::ApiRequest compact;
  compact.mutable_compaction()->set_revision(100);
  h.operations.push_back(
      op(4, 5, 2, 150, 160, compact, Outcome::kFailed,
         error_response(11, "etcdserver: mvcc: required revision is a future revision")));
  pb::ApiRequest grant;
  grant.mutable_lease_grant()->set_ttl(5);
  h.operations.push_back(
      op(5, 6, 3, 170, kNeverReturned, grant, Outcome::kUnknown, pb::ApiResponse()));
  pb::ApiRequest revoke;
  revoke.mutable_lease_revoke()->set_id(77);
  pb::ApiResponse revoke_resp;
  revoke_resp.mutable_lease_revoke()->mutable_header()->set_revision(4);
  h.operations.push_back(op(6, 6, 3, 180, 190, revoke, Outcome::kOk, revoke_resp));

  Watch w;
  w.id = 0;
  w.client = 9;
  WatchSegment s0;
  s0.member = 1;
  s0.created_ns = 50;
  s0.request.set_key("/k/");
  s0.request.set_range_end("/k0");
  s0.request.set_start_revision(1);
  s0.request.set_prev_kv(true);
  s0.request.set_progress_notify(true);
  WatchResponse created;
  created.at_ns = 60;
  created.response.set_created(true);
  created.response.mutable_header()->set_revision(1);
  s0.responses.push_back(created);
  WatchResponse events;
  events.at_ns = 260;
  events.response.mutable_header()->set_revision(2);
  auto* ev = events.response.add_events();
  ev->mutable_kv()->set_key("/k/x");
  ev->mutable_kv()->set_value("v0");
  ev->mutable_kv()->set_mod_revision(2);
  s0.responses.push_back(events);
  WatchResponse progress;
  progress.at_ns = 270;
  progress.response.mutable_header()->set_revision(3);
  s0.responses.push_back(progress);
  s0.broken = true;
  w.segments.push_back(s0);
  WatchSegment s1;
  s1.member = 2;
  s1.created_ns = 600;
  s1.request.set_key("/k/");
  s1.request.set_range_end("/k0");
  s1.request.set_start_revision(4);
  WatchResponse canceled;
  canceled.at_ns = 610;
  canceled.response.set_canceled(true);
  canceled.response.set_compact_revision(9);
  canceled.response.set_cancel_reason("mvcc: required revision has been compacted");
  s1.responses.push_back(canceled);
  w.segments.push_back(s1);
  h.watches.push_back(w);
  Watch empty;
  empty.id = 1;
  empty.client = 10;
  h.watches.push_back(empty);

  h.faults.push_back(Fault{"partition", "n1|n2,n3", 200, 500});
  h.faults.push_back(Fault{"crash", "n2", 450, kNeverReturned});
  h.informers = sample_informers();
  h.restores.push_back(Restore{600, 700, 42, 0, "nightly"});
  h.restores.push_back(Restore{800, 800, 1000050, 1000000, "hourly"});
  return h;
}

void expect_same(const History& a, const History& b) {
  ASSERT_EQ(a.operations.size(), b.operations.size());
  for (size_t i = 0; i < a.operations.size(); ++i) {
    SCOPED_TRACE("operation " + std::to_string(i));
    const Operation& x = a.operations[i];
    const Operation& y = b.operations[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.client, y.client);
    EXPECT_EQ(x.member, y.member);
    EXPECT_EQ(x.invoke_ns, y.invoke_ns);
    EXPECT_EQ(x.return_ns, y.return_ns);
    EXPECT_EQ(x.outcome, y.outcome);
    EXPECT_EQ(x.request.SerializeAsString(), y.request.SerializeAsString());
    EXPECT_EQ(x.response.SerializeAsString(), y.response.SerializeAsString());
  }
  ASSERT_EQ(a.watches.size(), b.watches.size());
  for (size_t i = 0; i < a.watches.size(); ++i) {
    SCOPED_TRACE("watch " + std::to_string(i));
    EXPECT_EQ(a.watches[i].id, b.watches[i].id);
    EXPECT_EQ(a.watches[i].client, b.watches[i].client);
    ASSERT_EQ(a.watches[i].segments.size(), b.watches[i].segments.size());
    for (size_t j = 0; j < a.watches[i].segments.size(); ++j) {
      const WatchSegment& x = a.watches[i].segments[j];
      const WatchSegment& y = b.watches[i].segments[j];
      EXPECT_EQ(x.member, y.member);
      EXPECT_EQ(x.created_ns, y.created_ns);
      EXPECT_EQ(x.broken, y.broken);
      EXPECT_EQ(x.request.SerializeAsString(), y.request.SerializeAsString());
      ASSERT_EQ(x.responses.size(), y.responses.size());
      for (size_t k = 0; k < x.responses.size(); ++k) {
        EXPECT_EQ(x.responses[k].at_ns, y.responses[k].at_ns);
        EXPECT_EQ(x.responses[k].response.SerializeAsString(),
                  y.responses[k].response.SerializeAsString());
      }
    }
  }
  ASSERT_EQ(a.faults.size(), b.faults.size());
  for (size_t i = 0; i < a.faults.size(); ++i) {
    EXPECT_EQ(a.faults[i].kind, b.faults[i].kind);
    EXPECT_EQ(a.faults[i].target, b.faults[i].target);
    EXPECT_EQ(a.faults[i].start_ns, b.faults[i].start_ns);
    EXPECT_EQ(a.faults[i].end_ns, b.faults[i].end_ns);
  }
  expect_same_informers(a.informers, b.informers);
  ASSERT_EQ(a.restores.size(), b.restores.size());
  for (size_t i = 0; i < a.restores.size(); ++i) {
    EXPECT_EQ(a.restores[i].disaster_ns, b.restores[i].disaster_ns);
    EXPECT_EQ(a.restores[i].restore_ns, b.restores[i].restore_ns);
    EXPECT_EQ(a.restores[i].revision, b.restores[i].revision);
    EXPECT_EQ(a.restores[i].bump, b.restores[i].bump);
    EXPECT_EQ(a.restores[i].snapshot, b.restores[i].snapshot);
  }
}

TEST_F(RunDbTest, RoundTripsEveryField) {
  const std::string path = file("run.db");
  const History h = sample_history();
  ASSERT_TRUE(write_run_db(path, sample_info(), h, sample_result()).is_ok());
  // Closed cleanly: the WAL was folded into the file, which is one self-contained file again.
  struct stat st {};
  EXPECT_NE(::stat((path + "-wal").c_str(), &st), 0);
  EXPECT_EQ(query(path, "PRAGMA journal_mode"), "delete");

  Result<History> back = read_history(path);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  expect_same(h, *back);

  Result<RunRecord> run = read_run(path);
  ASSERT_TRUE(run.is_ok()) << run.status().to_string();
  EXPECT_EQ(run->info.seed, sample_info().seed);
  EXPECT_EQ(run->info.scenario, sample_info().scenario);
  EXPECT_EQ(run->info.options, sample_info().options);
  EXPECT_EQ(run->info.dst_version, sample_info().dst_version);
  EXPECT_EQ(run->info.started_unix_ms, sample_info().started_unix_ms);
  ASSERT_TRUE(run->result.has_value());
  EXPECT_EQ(run->result->finished_unix_ms, sample_result().finished_unix_ms);
  EXPECT_EQ(run->result->trace_hash, sample_result().trace_hash);
  EXPECT_EQ(run->result->verdict, "violation");
  EXPECT_EQ(run->result->exit_code, 1);
  EXPECT_EQ(run->result->checker_summary, sample_result().checker_summary);
  EXPECT_EQ(run->result->coverage, sample_result().coverage);

  // The query columns a person uses in sqlite3 (docs/run-db.md).
  EXPECT_EQ(query(path, "SELECT group_concat(name || '=' || hits, ',') FROM (SELECT * FROM coverage ORDER BY name)"),
            "api.put.any.ok=7,watch.compaction-cancel=2");
  EXPECT_EQ(query(path, "SELECT trace_hash FROM run"), "0x0123456789abcdef");
  EXPECT_EQ(query(path, "SELECT count(*) FROM run WHERE seed = '18446744073709551615'"), "1");
  EXPECT_EQ(
      query(path, "SELECT group_concat(kind, ',') FROM (SELECT kind FROM operations ORDER BY id)"),
      "put,range,txn,delete_range,compaction,lease_grant,lease_revoke");
  EXPECT_EQ(query(path, "SELECT key || ' ' || range_end FROM operations WHERE id = 1"), "/k/ /k0");
  EXPECT_EQ(query(path, "SELECT key FROM operations WHERE id = 2"), "/k/y");  // txn: first compare
  EXPECT_EQ(query(path, "SELECT key FROM operations WHERE id = 4"), "NULL");  // compaction
  EXPECT_EQ(query(path, "SELECT response_revision FROM operations WHERE id = 0"), "2");
  EXPECT_EQ(query(path, "SELECT response_revision FROM operations WHERE id = 3"), "NULL");
  EXPECT_EQ(query(path, "SELECT error_code || ' ' || error FROM operations WHERE id = 3"),
            "14 etcdserver: request timed out");
  EXPECT_EQ(query(path,
                  "SELECT outcome || ' ' || ifnull(return_ns, 'NULL') || ' ' || "
                  "ifnull(response, 'NULL') FROM operations WHERE id = 5"),
            "unknown NULL NULL");
  EXPECT_EQ(query(path,
                  "SELECT count(*) FROM operations WHERE kind = 'delete_range' AND "
                  "key = '/k/x' AND outcome = 'unknown'"),
            "1");
  EXPECT_EQ(query(path,
                  "SELECT group_concat(is_progress || created || canceled || events, ',') FROM "
                  "(SELECT * FROM watch_responses WHERE watch_id = 0 ORDER BY segment, seq)"),
            "0100,0001,1000,0010");
  EXPECT_EQ(query(path, "SELECT compact_revision FROM watch_responses WHERE canceled = 1"), "9");
  EXPECT_EQ(query(path, "SELECT group_concat(broken, ',') FROM watch_segments WHERE watch_id = 0"),
            "1,0");
  EXPECT_EQ(query(path,
                  "SELECT group_concat(kind, ',') FROM faults WHERE start_ns <= 460 AND "
                  "(end_ns IS NULL OR end_ns >= 460)"),
            "partition,crash");
  EXPECT_NE(::stat((path + "-wal").c_str(), &st), 0);  // readers left no files behind
}

// The informer tables, as a person reads them in sqlite3 (docs/run-db.md), and read back exactly.
TEST_F(RunDbTest, InformersRoundTripEveryField) {
  const std::string path = file("informers.db");
  History h;
  h.informers = sample_informers();
  ASSERT_TRUE(write_run_db(path, sample_info(), h, std::nullopt).is_ok());
  Result<History> back = read_history(path);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_TRUE(back->operations.empty());
  expect_same_informers(h.informers, back->informers);

  EXPECT_EQ(query(path, "PRAGMA foreign_key_check"), "<no row>");
  EXPECT_EQ(query(path,
                  "SELECT group_concat(id || ':' || client || ':' || prefix || ':' || finished || "
                  "':' || ifnull(final_ns, 'NULL') || ':' || ifnull(final_rv, 'NULL'), ' ') "
                  "FROM (SELECT * FROM informers ORDER BY id)"),
            "0:7:/registry/pods/:1:9000:10 1:8:/registry/configmaps/:0:NULL:NULL");
  EXPECT_EQ(query(path,
                  "SELECT group_concat(list || ok || ':' || ifnull(error, 'NULL'), ',') FROM "
                  "(SELECT * FROM informer_lists WHERE informer_id = 0 ORDER BY list)"),
            "01:NULL,10:410 too old resource version,21:NULL");
  EXPECT_EQ(query(path,
                  "SELECT hex(value) FROM informer_list_objects WHERE informer_id = 0 AND "
                  "list = 0 AND seq = 1"),
            "6200FF");
  EXPECT_EQ(query(path,
                  "SELECT group_concat(type || ' ' || key || ' ' || resource_version, ',') FROM "
                  "(SELECT * FROM informer_watch_events WHERE informer_id = 0 "
                  "ORDER BY watch, seq)"),
            "ADDED /registry/pods/c 6,MODIFIED /registry/pods/a 7,DELETED /registry/pods/b 8,"
            "BOOKMARK  8,ADDED /registry/pods/d 10");
  EXPECT_EQ(query(path,
                  "SELECT group_concat(ifnull(end_reason, 'running'), ',') FROM "
                  "(SELECT * FROM informer_watches ORDER BY informer_id, watch)"),
            "410 too old resource version,broken: connection reset,running,stopped");
  EXPECT_EQ(query(path, "SELECT count(*) FROM informer_watches WHERE ended_ns IS NULL"), "1");
  EXPECT_EQ(query(path,
                  "SELECT group_concat(key || ' ' || present || ' ' || object_rv, ',') FROM "
                  "(SELECT * FROM informer_processed ORDER BY informer_id, seq)"),
            "/registry/pods/a 1 3,/registry/pods/b 0 0");
  EXPECT_EQ(query(path, "SELECT group_concat(key, ',') FROM informer_final_objects"),
            "/registry/pods/a,/registry/pods/d");
}

// Through RunDbRecorder, as a run records: every informer call is in the file once its batch
// commits, before the run finishes; a list and its objects (or a final store) land in one batch,
// never half.
TEST_F(RunDbTest, InformerRecordsWrittenThroughBeforeTheRunEnds) {
  const std::string path = file("informers-live.db");
  RunDbOptions options;
  options.batch_rows = 4;
  auto writer = RunDbWriter::create(path, options);
  ASSERT_TRUE(writer.is_ok()) << writer.status().to_string();
  RunDbWriter& w = **writer;
  ASSERT_TRUE(w.begin_run(sample_info()).is_ok());
  RunDbRecorder rec(w);
  const uint64_t id = rec.informer_started(7, "/registry/pods/");  // pending: 1 row
  std::vector<KubeObject> objects;
  for (int64_t i = 0; i < 10; ++i) {
    objects.push_back(object("/registry/pods/p" + std::to_string(i), "v", i + 1));
  }
  rec.informer_list(id, KubeList{0, 1, 100, 200, 0, true, "", 10, objects});  // 11 rows: commits
  Result<History> seen = read_history(path);
  ASSERT_TRUE(seen.is_ok()) << seen.status().to_string();
  ASSERT_EQ(seen->informers.size(), 1u);
  ASSERT_EQ(seen->informers[0].lists.size(), 1u);
  expect_same_objects(seen->informers[0].lists[0].objects, objects);

  rec.informer_watch_started(id, KubeWatch{1, 1, 300, 10, {}, "", 0});
  rec.informer_watch_event(id, event(KubeWatchEvent::Type::kAdded, 400, 390,
                                     object("/registry/pods/q", "v", 11)));
  seen = read_history(path);  // 2 rows pending: not visible yet
  ASSERT_TRUE(seen.is_ok());
  EXPECT_TRUE(seen->informers[0].watches.empty());
  ASSERT_TRUE(w.flush().is_ok());
  seen = read_history(path);
  ASSERT_TRUE(seen.is_ok());
  ASSERT_EQ(seen->informers[0].watches.size(), 1u);
  EXPECT_EQ(seen->informers[0].watches[0].events.size(), 1u);
  EXPECT_EQ(seen->informers[0].watches[0].end, "");
  EXPECT_FALSE(seen->informers[0].finished);

  rec.informer_watch_ended(id, "broken: connection reset", 500);
  rec.informer_processed(id, KubeProcessed{600, "/registry/pods/q", 11, true, 11});
  rec.informer_finished(id, 900, 11, objects);
  ASSERT_TRUE(rec.status().is_ok()) << rec.status().to_string();
  seen = read_history(path);  // the final store (11 rows) committed whole
  ASSERT_TRUE(seen.is_ok());
  EXPECT_TRUE(seen->informers[0].finished);
  EXPECT_EQ(seen->informers[0].final_objects.size(), 10u);
  ASSERT_TRUE(w.close().is_ok());
  Result<History> back = read_history(path);
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  expect_same(rec.history(), *back);
}

TEST_F(RunDbTest, InformerWriterMisuseIsAnErrorNotSilence) {
  const std::string path = file("informer-misuse.db");
  auto writer = RunDbWriter::create(path);
  ASSERT_TRUE(writer.is_ok());
  RunDbWriter& w = **writer;
  EXPECT_NE(w.informer_started(0, 1, "/p/").message().find("before begin_run"), std::string::npos);
  ASSERT_TRUE(w.begin_run(sample_info()).is_ok());
  const KubeList list{0, 1, 100, 200, 0, true, "", 1, {}};
  EXPECT_EQ(w.informer_list(0, list).code(), StatusCode::kNotFound);
  ASSERT_TRUE(w.informer_started(0, 1, "/p/").is_ok());
  EXPECT_EQ(w.informer_started(0, 1, "/p/").code(), StatusCode::kAlreadyExists);
  EXPECT_NE(w.informer_list(0, KubeList{0, 1, 200, 100, 0, true, "", 1, {}})
                .message()
                .find("before it was sent"),
            std::string::npos);
  KubeList big_key = list;
  big_key.objects.push_back(object(std::string(kRunDbKeyBytesMax + 1, 'k'), "v", 1));
  EXPECT_NE(w.informer_list(0, big_key).message().find("list 0 object 0 key is"),
            std::string::npos);
  ASSERT_TRUE(w.informer_list(0, list).is_ok());

  const KubeWatchEvent added =
      event(KubeWatchEvent::Type::kAdded, 300, 290, object("/p/a", "v", 2));
  EXPECT_NE(w.informer_watch_event(0, added).message().find("before any watch"), std::string::npos);
  EXPECT_NE(w.informer_watch_ended(0, "stopped", 1).message().find("before any watch"),
            std::string::npos);
  EXPECT_NE(w.informer_watch_started(0, KubeWatch{1, 1, 250, 1, {}, "", 7})
                .message()
                .find("ended_ns 7 without an end"),
            std::string::npos);
  ASSERT_TRUE(w.informer_watch_started(0, KubeWatch{1, 1, 250, 1, {}, "", 0}).is_ok());
  ASSERT_TRUE(w.informer_watch_event(0, added).is_ok());
  EXPECT_NE(w.informer_watch_ended(0, "", 400).message().find("empty end"), std::string::npos);
  ASSERT_TRUE(w.informer_watch_ended(0, "broken: reset", 400).is_ok());
  EXPECT_NE(w.informer_watch_ended(0, "stopped", 500).message().find("ended twice"),
            std::string::npos);
  EXPECT_NE(w.informer_watch_event(0, added).message().find("after the watch ended"),
            std::string::npos);

  ASSERT_TRUE(w.informer_finished(0, 900, 2, {object("/p/a", "v", 2)}).is_ok());
  EXPECT_NE(w.informer_finished(0, 900, 2, {}).message().find("finished twice"), std::string::npos);
  Informer unfinished;
  unfinished.id = 1;
  unfinished.final_rv = 4;
  EXPECT_NE(w.add_informer(unfinished).message().find("not finished but has a final store"),
            std::string::npos);

  // None of the refused calls broke the batch: everything accepted is there, nothing else.
  ASSERT_TRUE(w.close().is_ok());
  Result<History> h = read_history(path);
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  ASSERT_EQ(h->informers.size(), 1u);
  const Informer& i = h->informers[0];
  EXPECT_EQ(i.lists.size(), 1u);
  ASSERT_EQ(i.watches.size(), 1u);
  EXPECT_EQ(i.watches[0].events.size(), 1u);
  EXPECT_EQ(i.watches[0].end, "broken: reset");
  EXPECT_EQ(i.watches[0].ended_ns, 400);
  EXPECT_TRUE(i.finished);
  EXPECT_EQ(i.final_objects.size(), 1u);
}

TEST_F(RunDbTest, MetricsRoundTrip) {
  const std::string path = file("metrics.db");
  auto writer = RunDbWriter::create(path);
  ASSERT_TRUE(writer.is_ok()) << writer.status().to_string();
  RunDbWriter& w = **writer;
  ASSERT_TRUE(w.begin_run(sample_info()).is_ok());
  for (int64_t t = 0; t < 5; ++t) {
    for (uint32_t member = 1; member <= 3; ++member) {
      ASSERT_TRUE(w.metric(t * 1000, member, "term", 2 + t).is_ok());
      ASSERT_TRUE(w.metric(t * 1000, member, "commit_index", 10 * t + member).is_ok());
    }
    ASSERT_TRUE(w.metric(t * 1000, 0, "leader", 1 + t % 3).is_ok());
  }
  ASSERT_TRUE(w.close().is_ok());
  Result<RunDbReader> reader = RunDbReader::open(path);
  ASSERT_TRUE(reader.is_ok()) << reader.status().to_string();
  Result<std::vector<MetricSample>> metrics = reader->read_metrics();
  ASSERT_TRUE(metrics.is_ok()) << metrics.status().to_string();
  ASSERT_EQ(metrics->size(), 35u);
  EXPECT_EQ((*metrics)[0].name, "commit_index");
  EXPECT_EQ((*metrics)[0].member, 1u);
  EXPECT_EQ((*metrics)[0].at_ns, 0);
  EXPECT_EQ((*metrics)[15].name, "leader");
  EXPECT_EQ((*metrics)[34].name, "term");
  EXPECT_EQ((*metrics)[34].value, 6);
  // No run result yet: the run was begun, never finished.
  Result<RunRecord> run = reader->read_run();
  ASSERT_TRUE(run.is_ok());
  EXPECT_FALSE(run->result.has_value());
}

TEST_F(RunDbTest, ReaderSeesFlushedRowsWhileWriterIsOpen) {
  const std::string path = file("live.db");
  RunDbOptions options;
  options.batch_rows = 1000;
  auto writer = RunDbWriter::create(path, options);
  ASSERT_TRUE(writer.is_ok()) << writer.status().to_string();
  RunDbWriter& w = **writer;
  ASSERT_TRUE(w.begin_run(sample_info()).is_ok());
  for (uint64_t id = 0; id < 10; ++id) {
    Operation o =
        op(id, static_cast<uint32_t>(id), 1, static_cast<int64_t>(id * 10), kNeverReturned,
           put_request("k" + std::to_string(id), "v"), Outcome::kUnknown, {});
    ASSERT_TRUE(w.operation_invoked(o).is_ok());
  }
  for (uint64_t id = 0; id < 5; ++id) {
    ASSERT_TRUE(w.operation_returned(id, static_cast<int64_t>(id * 10 + 5), Outcome::kOk,
                                     put_response(static_cast<int64_t>(id + 2)))
                    .is_ok());
  }
  ASSERT_TRUE(w.flush().is_ok());

  Result<History> seen = read_history(path);
  ASSERT_TRUE(seen.is_ok()) << seen.status().to_string();
  ASSERT_EQ(seen->operations.size(), 10u);
  for (uint64_t id = 0; id < 10; ++id) {
    const Operation& o = seen->operations[id];
    EXPECT_EQ(o.id, id);
    EXPECT_EQ(o.request.put().key(), "k" + std::to_string(id));
    if (id < 5) {
      EXPECT_EQ(o.outcome, Outcome::kOk);
      EXPECT_EQ(o.return_ns, static_cast<int64_t>(id * 10 + 5));
      EXPECT_EQ(o.response.put().header().revision(), static_cast<int64_t>(id + 2));
    } else {
      EXPECT_EQ(o.outcome, Outcome::kUnknown);
      EXPECT_EQ(o.return_ns, kNeverReturned);
      EXPECT_FALSE(o.response.has_put());
    }
  }

  // Unflushed rows are not visible yet; after flush they are.
  ASSERT_TRUE(
      w.operation_returned(7, 99, Outcome::kFailed, error_response(9, "etcdserver: no leader"))
          .is_ok());
  ASSERT_TRUE(w.add_fault(Fault{"pause", "n3", 10, 20}).is_ok());
  seen = read_history(path);
  ASSERT_TRUE(seen.is_ok());
  EXPECT_EQ(seen->operations[7].outcome, Outcome::kUnknown);
  EXPECT_TRUE(seen->faults.empty());
  ASSERT_TRUE(w.flush().is_ok());
  seen = read_history(path);
  ASSERT_TRUE(seen.is_ok());
  EXPECT_EQ(seen->operations[7].outcome, Outcome::kFailed);
  EXPECT_EQ(seen->operations[7].response.error().message(), "etcdserver: no leader");
  ASSERT_EQ(seen->faults.size(), 1u);

  // A reader still open (even inside a read) when the writer closes: the close succeeds at once,
  // the file stays in WAL mode, and both old and new readers see everything.
  Result<RunDbReader> reader = RunDbReader::open(path);
  ASSERT_TRUE(reader.is_ok()) << reader.status().to_string();
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "BEGIN; SELECT count(*) FROM operations;", nullptr, nullptr, nullptr),
            SQLITE_OK);
  const auto before = std::chrono::steady_clock::now();
  Status closed = w.close();
  EXPECT_TRUE(closed.is_ok()) << closed.to_string();
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(2));
  sqlite3_exec(raw, "COMMIT;", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  Result<History> after = reader->read_history();
  ASSERT_TRUE(after.is_ok()) << after.status().to_string();
  EXPECT_EQ(after->operations.size(), 10u);
  EXPECT_EQ(read_history(path)->faults.size(), 1u);
}

TEST_F(RunDbTest, AutomaticCommitEveryBatch) {
  const std::string path = file("batch.db");
  RunDbOptions options;
  options.batch_rows = 7;
  auto writer = RunDbWriter::create(path, options);
  ASSERT_TRUE(writer.is_ok());
  RunDbWriter& w = **writer;
  ASSERT_TRUE(w.begin_run(sample_info()).is_ok());  // committed on its own
  for (uint64_t id = 0; id < 20; ++id) {
    ASSERT_TRUE(w.operation_invoked(
                     op(id, 1, 1, 0, kNeverReturned, put_request("k", "v"), Outcome::kUnknown, {}))
                    .is_ok());
  }
  // 20 rows in batches of 7: 14 committed, 6 pending.
  Result<History> seen = read_history(path);
  ASSERT_TRUE(seen.is_ok());
  EXPECT_EQ(seen->operations.size(), 14u);
  ASSERT_TRUE(w.close().is_ok());
  EXPECT_EQ(read_history(path)->operations.size(), 20u);
}

// The checks are written with the run's end, in its own batch, whatever the batch size: the
// verdict and its checks land together (a batch boundary among them once aborted the writer).
TEST_F(RunDbTest, ChecksRoundTripAndLandWithTheRunRow) {
  const std::string path = file("checks.db");
  RunDbOptions options;
  options.batch_rows = 2;
  auto writer = RunDbWriter::create(path, options);
  ASSERT_TRUE(writer.is_ok());
  RunDbWriter& w = **writer;
  ASSERT_TRUE(w.begin_run(sample_info()).is_ok());
  RunResult result = sample_result();
  for (int i = 0; i < 9; ++i) {
    CheckRow c;
    c.name = "check-" + std::to_string(i);
    c.status = i == 4 ? CheckStatus::kFail : i == 7 ? CheckStatus::kSkipped : CheckStatus::kPass;
    c.required = i != 2;
    c.checked = 100 + i;
    c.violations = i == 4 ? 3 : 0;
    c.first_rule = i == 4 ? "stale-read" : "";
    c.first_message = i == 4 ? "op 2 read x=a" : "";
    c.first_at_ns = i == 4 ? 1'500'000'000 : kNeverReturned;
    c.summary = "summary " + std::to_string(i);
    c.wall_us = 10 * i;
    result.checks.push_back(c);
  }
  ASSERT_TRUE(w.finish_run(result).is_ok());
  ASSERT_TRUE(w.close().is_ok());
  Result<RunRecord> run = read_run(path);
  ASSERT_TRUE(run.is_ok()) << run.status().to_string();
  ASSERT_TRUE(run->result);
  EXPECT_EQ(run->result->checks, result.checks);
  EXPECT_EQ(query(path, "SELECT name || ' ' || status FROM checks WHERE status = 'fail'"), "check-4 fail");
  // A status no dst writes is corruption, named by table and row.
  sql(path, "PRAGMA ignore_check_constraints = 1; UPDATE checks SET status = 'maybe' WHERE id = 2");
  Result<RunRecord> bad = read_run(path);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("checks row id 2: status 'maybe'"), std::string::npos) << bad.status().message();
}

// The writer's process is killed (SIGKILL, no destructor, no close): everything committed up to
// that moment is readable; what was pending is gone, nothing else.
TEST_F(RunDbTest, KilledWriterLeavesReadableFile) {
  const std::string path = file("killed.db");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    RunDbOptions options;
    options.batch_rows = 100;
    auto writer = RunDbWriter::create(path, options);
    if (!writer.is_ok()) ::_exit(10);
    RunDbWriter& w = **writer;
    if (!w.begin_run(sample_info()).is_ok()) ::_exit(11);
    for (uint64_t id = 0; id < 150; ++id) {
      if (!w.operation_invoked(op(id, 1, 1, static_cast<int64_t>(id), kNeverReturned,
                                  put_request("k", "v" + std::to_string(id)), Outcome::kUnknown,
                                  {}))
               .is_ok()) {
        ::_exit(12);
      }
    }
    for (uint64_t id = 0; id < 150; id += 2) {
      if (!w.operation_returned(id, static_cast<int64_t>(id) + 1, Outcome::kOk, put_response(2))
               .is_ok()) {
        ::_exit(13);
      }
    }
    Result<int64_t> fault = w.fault_started("partition", "n1|n2,n3", 42);
    if (!fault.is_ok()) ::_exit(14);
    if (!w.watch_created(0, 3).is_ok()) ::_exit(15);
    pb::WatchCreateRequest create;
    create.set_key("k");
    if (!w.watch_segment_started(0, 2, 5, create).is_ok()) ::_exit(16);
    pb::WatchResponse created;
    created.set_created(true);
    if (!w.watch_response(0, 6, created).is_ok()) ::_exit(17);
    if (!w.informer_started(0, 4, "/registry/pods/").is_ok()) ::_exit(22);
    const KubeList list{0, 1, 7, 8, 0, true, "", 3, {object("/registry/pods/a", "v", 3)}};
    if (!w.informer_list(0, list).is_ok()) {
      ::_exit(23);
    }
    if (!w.flush().is_ok()) ::_exit(18);
    if (!w.informer_processed(0, KubeProcessed{9, "/registry/pods/a", 3, true, 3}).is_ok())
      ::_exit(24);
    // Pending when the process dies: lost, and nothing else.
    for (uint64_t id = 150; id < 160; ++id) {
      if (!w.operation_invoked(op(id, 1, 1, static_cast<int64_t>(id), kNeverReturned,
                                  put_request("k", "lost"), Outcome::kUnknown, {}))
               .is_ok()) {
        ::_exit(19);
      }
    }
    if (!w.fault_ended(*fault, 99).is_ok()) ::_exit(20);
    ::raise(SIGKILL);
    ::_exit(21);
  }
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(wstatus)) << "child exited with " << WEXITSTATUS(wstatus);
  ASSERT_EQ(WTERMSIG(wstatus), SIGKILL);
  struct stat st {};
  EXPECT_EQ(::stat((path + "-wal").c_str(), &st), 0) << "the killed writer left its WAL behind";

  Result<History> h = read_history(path);
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  ASSERT_EQ(h->operations.size(), 150u);
  for (const Operation& o : h->operations) {
    if (o.id % 2 == 0) {
      EXPECT_EQ(o.outcome, Outcome::kOk);
      EXPECT_EQ(o.return_ns, static_cast<int64_t>(o.id) + 1);
    } else {
      EXPECT_EQ(o.outcome, Outcome::kUnknown);
      EXPECT_EQ(o.return_ns, kNeverReturned);
    }
  }
  ASSERT_EQ(h->faults.size(), 1u);
  EXPECT_EQ(h->faults[0].end_ns, kNeverReturned);  // its end was never committed
  ASSERT_EQ(h->watches.size(), 1u);
  ASSERT_EQ(h->watches[0].segments.size(), 1u);
  EXPECT_EQ(h->watches[0].segments[0].responses.size(), 1u);
  ASSERT_EQ(h->informers.size(), 1u);
  ASSERT_EQ(h->informers[0].lists.size(), 1u);
  EXPECT_EQ(h->informers[0].lists[0].objects.size(), 1u);
  EXPECT_TRUE(h->informers[0].processed.empty());  // pending when killed
  Result<RunRecord> run = read_run(path);
  ASSERT_TRUE(run.is_ok()) << run.status().to_string();
  EXPECT_EQ(run->info.scenario, sample_info().scenario);
  EXPECT_FALSE(run->result.has_value());
}

// A commit that fails (here: the file may not grow, as on a full disk) loses its batch; the writer
// says so and fails every later call with the same error instead of pretending to go on. Run in a
// child process so that the file-size limit stays there.
TEST_F(RunDbTest, FailedCommitFailsTheWriterForGood) {
  const std::string path = file("full.db");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    RunDbOptions options;
    options.batch_rows = 100'000;
    auto writer = RunDbWriter::create(path, options);
    if (!writer.is_ok()) ::_exit(10);
    RunDbWriter& w = **writer;
    if (!w.begin_run(sample_info()).is_ok()) ::_exit(11);
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit {};
    limit.rlim_cur = limit.rlim_max = 256 * 1024;
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(12);
    for (uint64_t id = 0; id < 200; ++id) {
      if (!w.operation_invoked(op(id, 1, 1, 0, kNeverReturned,
                                  put_request("k", std::string(4096, 'v')), Outcome::kUnknown, {}))
               .is_ok()) {
        ::_exit(13);
      }
    }
    const Status flushed = w.flush();
    if (flushed.is_ok()) ::_exit(14);
    if (flushed.message().find("200 rows of the uncommitted batch are lost") == std::string::npos) {
      std::fprintf(stderr, "%s\n", flushed.to_string().c_str());
      ::_exit(15);
    }
    if (w.metric(0, 1, "term", 1) != flushed) ::_exit(16);
    if (w.close() != flushed) ::_exit(17);
    ::_exit(0);
  }
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFEXITED(wstatus));
  ASSERT_EQ(WEXITSTATUS(wstatus), 0);
  // What was committed before the failure is still there.
  Result<RunRecord> run = read_run(path);
  ASSERT_TRUE(run.is_ok()) << run.status().to_string();
  Result<History> h = read_history(path);
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  EXPECT_TRUE(h->operations.empty());
}

TEST_F(RunDbTest, RefusesFilesThatAreNotRunDatabases) {
  Result<History> missing = read_history(dir_ + "/nope.db");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("nope.db"), std::string::npos);

  const std::string text = file("notes.txt");
  std::ofstream(text) << "this is not a database, just some text long enough to fill a header\n";
  Result<History> not_sqlite = read_history(text);
  ASSERT_FALSE(not_sqlite.is_ok());
  EXPECT_NE(not_sqlite.status().message().find("notes.txt: not a dst run database: not an SQLite"),
            std::string::npos)
      << not_sqlite.status().to_string();

  const std::string other = file("other.db");
  sql(other, "CREATE TABLE foo (x INTEGER);");
  Result<History> not_ours = read_history(other);
  ASSERT_FALSE(not_ours.is_ok());
  EXPECT_NE(not_ours.status().message().find("other.db: not a dst run database"), std::string::npos)
      << not_ours.status().to_string();

  // The writer never overwrites: not another run, and never a file that is not a run database.
  auto refused = RunDbWriter::create(other);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kAlreadyExists);
  RunDbOptions replace;
  replace.replace_existing = true;
  refused = RunDbWriter::create(other, replace);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("not a dst run database"), std::string::npos)
      << refused.status().to_string();
  refused = RunDbWriter::create(text, replace);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(query(other, "SELECT count(*) FROM foo"), "0");  // untouched

  const std::string run = file("run.db");
  ASSERT_TRUE(write_run_db(run, sample_info(), sample_history(), std::nullopt).is_ok());
  EXPECT_FALSE(write_run_db(run, sample_info(), History{}, std::nullopt).is_ok());
  ASSERT_TRUE(write_run_db(run, sample_info(), History{}, std::nullopt, replace).is_ok());
  EXPECT_TRUE(read_history(run)->operations.empty());
}

TEST_F(RunDbTest, RefusesOtherSchemaVersions) {
  const std::string path = file("v.db");
  ASSERT_TRUE(write_run_db(path, sample_info(), sample_history(), std::nullopt).is_ok());
  EXPECT_EQ(query(path, "SELECT value FROM meta WHERE key = 'schema_version'"), "5");
  EXPECT_EQ(query(path, "PRAGMA application_id"), std::to_string(kRunDbApplicationId));

  sql(path, "UPDATE meta SET value = '6' WHERE key = 'schema_version'");
  Result<History> newer = read_history(path);
  ASSERT_FALSE(newer.is_ok());
  EXPECT_NE(newer.status().message().find("v.db: run database schema version 6 is newer than this "
                                          "dst reads (5)"),
            std::string::npos)
      << newer.status().to_string();

  // Version 4 (before the restores table) is refused, not misread as a run without restores.
  sql(path, "UPDATE meta SET value = '4' WHERE key = 'schema_version'");
  Result<RunRecord> older = read_run(path);
  ASSERT_FALSE(older.is_ok());
  EXPECT_NE(older.status().message().find("schema version 4 is older than this dst reads (5)"),
            std::string::npos)
      << older.status().to_string();

  sql(path, "UPDATE meta SET value = 'x' WHERE key = 'schema_version'");
  EXPECT_EQ(read_history(path).status().code(), StatusCode::kCorruption);

  sql(path, "DELETE FROM meta WHERE key = 'format'");
  Result<History> no_format = read_history(path);
  ASSERT_FALSE(no_format.is_ok());
  EXPECT_NE(no_format.status().message().find("not a dst run database"), std::string::npos);
}

// Corruption is reported with the table and the row id, not skipped.
TEST_F(RunDbTest, CorruptRowsNamedByTableAndRowId) {
  struct Case {
    const char* damage;
    const char* expected;
  };
  const Case cases[] = {
      {"UPDATE operations SET request = x'07' WHERE id = 3",
       "operations row id 3: request is not a valid dst.etcdserverpb.ApiRequest (1 bytes)"},
      {"UPDATE operations SET response = x'ffffffff' WHERE id = 0",
       "operations row id 0: response is not a valid"},
      {"UPDATE operations SET request = 'text' WHERE id = 1",
       "operations row id 1: request is not a blob"},
      {"PRAGMA ignore_check_constraints = 1; UPDATE operations SET return_ns = NULL, outcome = "
       "'ok' "
       "WHERE id = 0",
       "operations row id 0: outcome ok but return_ns is NULL"},
      {"PRAGMA ignore_check_constraints = 1; UPDATE operations SET outcome = 'maybe' WHERE id = 2",
       "operations row id 2: outcome 'maybe' is not ok, failed or unknown"},
      {"UPDATE watch_responses SET response = x'07' WHERE id = 2",
       "watch_responses row id 2: response"},
      {"UPDATE watch_segments SET request = x'07' WHERE id = 1",
       "watch_segments row id 1: request"},
      {"DELETE FROM watch_responses WHERE id = 2",
       "watch_responses row id 3: seq 2 where 1 was expected"},
      {"PRAGMA foreign_keys = 0; DELETE FROM watch_segments WHERE id = 1",
       "watch_segments row id 2: segment 1 of watch 0 where segment 0 was expected"},
      {"PRAGMA ignore_check_constraints = 1; UPDATE faults SET end_ns = 1 WHERE id = 1",
       "faults row id 1: end_ns is before start_ns"},
      {"PRAGMA ignore_check_constraints = 1; UPDATE restores SET restore_ns = 1 WHERE id = 1",
       "restores row id 1: restore_ns is before disaster_ns"},
      {"UPDATE restores SET disaster_ns = 650 WHERE id = 2",
       "restores row id 2: disaster_ns is before the previous restore's restore_ns"},
  };
  for (const Case& c : cases) expect_corruption(c.damage, c.expected);
}

void RunDbTest::expect_corruption(const std::string& damage, const std::string& expected) {
  SCOPED_TRACE(damage);
  const std::string path = file("corrupt" + std::to_string(created_.size()) + ".db");
  ASSERT_TRUE(write_run_db(path, sample_info(), sample_history(), std::nullopt).is_ok());
  sql(path, damage);
  Result<History> h = read_history(path);
  ASSERT_FALSE(h.is_ok());
  EXPECT_EQ(h.status().code(), StatusCode::kCorruption);
  EXPECT_NE(h.status().message().find(path + ": " + expected), std::string::npos)
      << h.status().to_string();
}

// Row ids as sample_informers() writes them: informer_lists 1-3 (informer 0) and 4, list objects
// 1-3, watches 1-3 and 4, events 1-5 (watch 0: 1-4, watch 2: 5), processed 1-2, final objects 1-2.
TEST_F(RunDbTest, InformerCorruptRowsNamedByTableAndRowId) {
  const std::pair<const char*, const char*> cases[] = {
      {"PRAGMA ignore_check_constraints = 1; "
       "UPDATE informer_watch_events SET type = 'UPSERT' WHERE id = 2",
       "informer_watch_events row id 2: type 'UPSERT' is not ADDED, MODIFIED, DELETED or BOOKMARK"},
      {"DELETE FROM informer_lists WHERE id = 1",
       "informer_lists row id 2: list 1 where 0 was expected (0, 1, ... without gaps)"},
      {"UPDATE informer_list_objects SET value = 'text' WHERE id = 1",
       "informer_list_objects row id 1: value is not a blob"},
      {"UPDATE informer_list_objects SET key = x'2f61' WHERE id = 2",
       "informer_list_objects row id 2: key is not text"},
      {"UPDATE informer_list_objects SET list = 9 WHERE id = 3",
       "informer_list_objects row id 3: list 9 of informer 0 has no informer_lists row"},
      {"UPDATE informers SET finished = 0, final_ns = NULL, final_rv = NULL WHERE id = 0",
       "informer_final_objects row id 1: an object of informer 0's final store, but the informer "
       "did not finish"},
      {"PRAGMA ignore_check_constraints = 1; UPDATE informers SET final_ns = NULL WHERE id = 0",
       "informers row id 0: finished but final_ns or final_rv is NULL"},
      {"PRAGMA ignore_check_constraints = 1; UPDATE informers SET final_rv = 3 WHERE id = 1",
       "informers row id 1: not finished but final_ns or final_rv is set"},
      {"UPDATE informer_processed SET informer_id = 5 WHERE id = 2",
       "informer_processed row id 2: informer_id 5 has no informers row"},
      {"PRAGMA ignore_check_constraints = 1; "
       "UPDATE informer_processed SET present = 2 WHERE id = 1",
       "informer_processed row id 1: present 2 is not 0 or 1"},
      {"PRAGMA ignore_check_constraints = 1; UPDATE informer_watches SET ended_ns = NULL "
       "WHERE id = 1",
       "informer_watches row id 1: end_reason and ended_ns are not both NULL or both set"},
      {"UPDATE informer_watches SET end_reason = '' WHERE id = 2",
       "informer_watches row id 2: end_reason is empty"},
      {"UPDATE informer_watch_events SET watch = 7 WHERE id = 5",
       "informer_watch_events row id 5: watch 7 of informer 0 has no informer_watches row"},
      {"DELETE FROM informer_watch_events WHERE id = 3",
       "informer_watch_events row id 4: seq 3 where 2 was expected"},
      {"PRAGMA ignore_check_constraints = 1; UPDATE informer_lists SET return_ns = 0 WHERE id = 1",
       "informer_lists row id 1: return_ns is before invoke_ns"},
      {"DELETE FROM informer_final_objects WHERE id = 1",
       "informer_final_objects row id 2: seq 1 where 0 was expected"},
  };
  for (const auto& [damage, expected] : cases) expect_corruption(damage, expected);
}

TEST_F(RunDbTest, WriterMisuseIsAnErrorNotSilence) {
  const std::string path = file("misuse.db");
  auto writer = RunDbWriter::create(path);
  ASSERT_TRUE(writer.is_ok());
  RunDbWriter& w = **writer;
  const Operation o =
      op(1, 1, 1, 100, kNeverReturned, put_request("k", "v"), Outcome::kUnknown, {});
  EXPECT_NE(w.operation_invoked(o).message().find("before begin_run"), std::string::npos);
  ASSERT_TRUE(w.begin_run(sample_info()).is_ok());
  EXPECT_FALSE(w.begin_run(sample_info()).is_ok());

  ASSERT_TRUE(w.operation_invoked(o).is_ok());
  Status dup = w.operation_invoked(o);
  EXPECT_NE(dup.message().find("UNIQUE constraint failed: operations.id"), std::string::npos)
      << dup.to_string();
  EXPECT_NE(w.operation_returned(1, 50, Outcome::kOk, put_response(2))
                .message()
                .find("before its invocation"),
            std::string::npos);
  ASSERT_TRUE(w.operation_returned(1, 150, Outcome::kOk, put_response(2)).is_ok());
  EXPECT_NE(w.operation_returned(1, 160, Outcome::kOk, put_response(2))
                .message()
                .find("already returned"),
            std::string::npos);
  EXPECT_FALSE(w.operation_returned(2, 160, Outcome::kOk, put_response(2)).is_ok());
  // operation_invoked stores only what is known at invocation, whatever else the struct holds.
  const Operation answered =
      op(9, 1, 1, 100, 200, put_request("k", "v"), Outcome::kOk, put_response(5));
  ASSERT_TRUE(w.operation_invoked(answered).is_ok());
  Operation no_request = o;
  no_request.id = 2;
  no_request.request.Clear();
  EXPECT_NE(w.add_operation(no_request).message().find("has no request"), std::string::npos);
  Operation never_ok = o;
  never_ok.id = 3;
  never_ok.outcome = Outcome::kOk;
  EXPECT_NE(w.add_operation(never_ok).message().find("never returned but its outcome is ok"),
            std::string::npos);

  EXPECT_EQ(w.watch_response(5, 1, {}).code(), StatusCode::kNotFound);
  ASSERT_TRUE(w.watch_created(5, 1).is_ok());
  EXPECT_EQ(w.watch_created(5, 1).code(), StatusCode::kAlreadyExists);
  EXPECT_FALSE(w.watch_response(5, 1, {}).is_ok());  // no segment yet
  ASSERT_TRUE(w.watch_segment_started(5, 1, 1, {}).is_ok());
  ASSERT_TRUE(w.watch_segment_broken(5).is_ok());
  EXPECT_NE(w.watch_response(5, 2, {}).message().find("after its stream broke"), std::string::npos);
  EXPECT_FALSE(w.watch_segment_broken(5).is_ok());

  Result<int64_t> fault = w.fault_started("crash", "n1", 100);
  ASSERT_TRUE(fault.is_ok());
  EXPECT_NE(w.fault_ended(*fault, 50).message().find("before it started"), std::string::npos);
  ASSERT_TRUE(w.fault_ended(*fault, 150).is_ok());
  EXPECT_FALSE(w.fault_ended(*fault, 160).is_ok());
  EXPECT_FALSE(w.metric(0, 1, std::string(kRunDbNameBytesMax + 1, 'x'), 1).is_ok());

  // None of the refused calls broke the batch: everything accepted is there.
  ASSERT_TRUE(w.close().is_ok());
  EXPECT_EQ(w.flush().code(), StatusCode::kClosed);
  Result<History> h = read_history(path);
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  ASSERT_EQ(h->operations.size(), 2u);
  EXPECT_EQ(h->operations[0].return_ns, 150);
  EXPECT_EQ(h->operations[1].id, 9u);
  EXPECT_EQ(h->operations[1].return_ns, kNeverReturned);
  EXPECT_EQ(h->operations[1].outcome, Outcome::kUnknown);
  EXPECT_FALSE(h->operations[1].response.has_put());
  ASSERT_EQ(h->watches.size(), 1u);
  EXPECT_TRUE(h->watches[0].segments[0].broken);
  ASSERT_EQ(h->faults.size(), 1u);
  EXPECT_EQ(h->faults[0].end_ns, 150);

  RunDbOptions bad;
  bad.batch_rows = 0;
  EXPECT_EQ(RunDbWriter::create(file("bad.db"), bad).status().code(), StatusCode::kInvalidArgument);
}

// 100k operations written incrementally (invoke, then return) and read back; times are printed,
// not asserted.
TEST_F(RunDbTest, LargeHistory) {
  const std::string path = file("large.db");
  constexpr uint64_t kOps = 100'000;
  const auto t0 = std::chrono::steady_clock::now();
  auto writer = RunDbWriter::create(path);
  ASSERT_TRUE(writer.is_ok());
  RunDbWriter& w = **writer;
  ASSERT_TRUE(w.begin_run(sample_info()).is_ok());
  for (uint64_t id = 0; id < kOps; ++id) {
    const auto t = static_cast<int64_t>(id * 1000);
    Operation o = op(
        id, static_cast<uint32_t>(id % 50), static_cast<uint32_t>(id % 3 + 1), t, kNeverReturned,
        put_request("/registry/pods/" + std::to_string(id % 1000), "value-" + std::to_string(id)),
        Outcome::kUnknown, {});
    ASSERT_TRUE(w.operation_invoked(o).is_ok());
    if (id % 10 != 9) {  // every tenth never returns
      ASSERT_TRUE(w.operation_returned(id, t + 500, Outcome::kOk,
                                       put_response(static_cast<int64_t>(id + 2)))
                      .is_ok());
    }
  }
  ASSERT_TRUE(w.close().is_ok());
  const auto t1 = std::chrono::steady_clock::now();
  Result<History> h = read_history(path);
  const auto t2 = std::chrono::steady_clock::now();
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  ASSERT_EQ(h->operations.size(), kOps);
  EXPECT_EQ(h->operations[99'999].return_ns, kNeverReturned);
  EXPECT_EQ(h->operations[99'998].response.put().header().revision(), 100'000);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  const auto ms = [](auto d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  };
  std::printf(
      "[ timing   ] 100k operations (190k rows): write %lld ms, read %lld ms, file %lld KiB\n",
      static_cast<long long>(ms(t1 - t0)), static_cast<long long>(ms(t2 - t1)),
      static_cast<long long>(st.st_size / 1024));
}

}  // namespace
}  // namespace dst::history
