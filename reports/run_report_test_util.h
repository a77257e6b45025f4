// Hand-built runs for the run report's tests (plot_data_test.cc, run_report_writer_test.cc,
// kube_delay_test.cc), and the files they write: small
// enough that every plotted number can be worked out by hand (the comments do).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/linearizability/etcd_test_builder.h"
#include "history/run_db.h"

namespace dst::reports::testing {

using namespace checker::etcd::testing;

struct SampleRun {
  history::History history;
  std::vector<history::MetricSample> metrics;
  history::RunInfo info;
  history::RunResult result;
};

// Operations (ms):            invoke  return  outcome   latency
//   0 put x=a                  1000    1010   ok         10
//   1 range x                  1100    1105   ok          5
//   2 put x=b                  1200    1220   ok         20
//   3 put x=z                  1300    1300   failed      0
//   4 put y=u                  1400    3400   unknown  2000 (the client's timeout)
//   5 put x=c                  1500    1530   ok         30
//   6 txn                      1600   never   unknown  (until the end of the run: 6 s)
//   7 put x=d                  2100    2140   ok         40
//   8 range x                  5000    5002   ok          2
// The run ends at 5.002 s, rounded up to 6 s. Faults: partition n1|n2,n3 2.2..4.5 s, crash n2 from
// 3.0 s, never healed. Metrics every 0.5 s from 0.5 to 2.5 s: cluster leader 1,1,0,2,2; n1 up
// 1,1,0,0,1 with term 2,2,-,-,3; n2 up throughout with term 2,2,3,3,3.
// The checks `dst run` records: a passing run's, or one whose linearizability check found the
// stale read of violating_run().
inline std::vector<history::CheckRow> sample_checks(bool stale_read) {
  std::vector<history::CheckRow> checks;
  for (const char* name : {"raft-invariants", "liveness", "member-agreement", "watch", "linearizability"}) {
    history::CheckRow c;
    c.name = name;
    c.summary = "ok";
    checks.push_back(c);
  }
  checks[4].checked = stale_read ? 3 : 9;
  if (stale_read) {
    checks[4].status = history::CheckStatus::kFail;
    checks[4].violations = 1;
    checks[4].first_rule = "stale-read";
    checks[4].first_message = "op 2 read x=a at revision 2 <after> op 1 wrote x=b";
    checks[4].summary = "etcd model: NOT linearizable; 3 operations";
  }
  return checks;
}

inline SampleRun sample_run() {
  HistoryBuilder b;
  b.op(1, 1000, 1010, put_req("x", "a"), put_resp(2));
  b.op(2, 1100, 1105, get_req("x"), range_resp(2, {kv("x", "a", 2, 2, 1)}));
  b.op(1, 1200, 1220, put_req("x", "b"), put_resp(3));
  b.failed(3, 1300, 1300, put_req("x", "z"));
  b.op(4, 1400, 3400, put_req("y", "u"), {}, history::Outcome::kUnknown);
  b.op(1, 1500, 1530, put_req("x", "c"), put_resp(4));
  etcdserverpb::ApiRequest txn;
  *txn.mutable_txn()->add_success()->mutable_request_put() = put_req("t", "1").put();
  b.unknown(5, 1600, txn);
  b.op(1, 2100, 2140, put_req("x", "d"), put_resp(5));
  b.op(2, 5000, 5002, get_req("x"), range_resp(5, {kv("x", "d", 2, 5, 4)}));
  b.h.faults.push_back({"partition", "n1|n2,n3", 2200 * HistoryBuilder::kMs, 4500 * HistoryBuilder::kMs});
  b.h.faults.push_back({"crash", "n2", 3000 * HistoryBuilder::kMs, history::kNeverReturned});
  SampleRun r;
  r.history = b.h;
  const int64_t ms = HistoryBuilder::kMs;
  const int64_t leader[] = {1, 1, 0, 2, 2}, n1_up[] = {1, 1, 0, 0, 1}, n1_term[] = {2, 2, 0, 0, 3},
                n2_term[] = {2, 2, 3, 3, 3};
  for (int i = 0; i < 5; ++i) {
    const int64_t at = (500 + 500 * i) * ms;
    r.metrics.push_back({at, 0, "leader", leader[i]});
    r.metrics.push_back({at, 1, "up", n1_up[i]});
    if (n1_up[i]) r.metrics.push_back({at, 1, "term", n1_term[i]});
    r.metrics.push_back({at, 2, "up", 1});
    r.metrics.push_back({at, 2, "term", n2_term[i]});
  }
  r.info.seed = 42;
  r.info.scenario = "dst run etcd";
  r.info.options = "/build/dst run etcd --seed 42 --duration 5s";
  r.info.dst_version = "test";
  r.info.started_unix_ms = 1'700'000'000'000;
  r.result.finished_unix_ms = 1'700'000'000'750;
  r.result.trace_hash = 0x0123456789abcdefULL;
  r.result.verdict = "pass";
  r.result.exit_code = 0;
  r.result.checker_summary = "etcd model: linearizable; 9 operations\nwatch guarantees ok";
  r.result.checks = sample_checks(false);
  return r;
}

// A stale read (c3 reads x=a at revision 2 after x=b was acknowledged at revision 3), recorded as
// the violation `dst run` would have found.
inline SampleRun violating_run() {
  HistoryBuilder b;
  b.op(1, 0, 10, put_req("x", "a"), put_resp(2));
  b.op(2, 20, 30, put_req("x", "b"), put_resp(3));
  b.op(3, 40, 50, get_req("x"), range_resp(2, {kv("x", "a", 2, 2, 1)}));
  b.h.faults.push_back({"partition", "n1|n2,n3", 15 * HistoryBuilder::kMs, 35 * HistoryBuilder::kMs});
  SampleRun r;
  r.history = b.h;
  r.info.seed = 7;
  r.info.scenario = "dst run etcd";
  r.info.options = "/build/dst run etcd --seed 7";
  r.result.trace_hash = 0xfeedULL;
  r.result.verdict = "violation";
  r.result.exit_code = 1;
  r.result.checker_summary =
      "etcd model: NOT linearizable; 3 operations\nstale-read: op 2 read x=a at revision 2 <after> op 1 wrote x=b\n"
      "watch guarantees ok";
  r.result.checks = sample_checks(true);
  return r;
}

// Writes `r` as a run database at `path` (replacing a previous one).
inline Status write_sample(const std::string& path, const SampleRun& r) {
  history::RunDbOptions o;
  o.replace_existing = true;
  auto w = history::RunDbWriter::create(path, o);
  if (!w.is_ok()) return w.status();
  for (Status st : {(*w)->begin_run(r.info), (*w)->add_history(r.history)})
    if (!st.is_ok()) return st;
  for (const history::MetricSample& m : r.metrics)
    if (Status st = (*w)->metric(m.at_ns, m.member, m.name, m.value); !st.is_ok()) return st;
  if (Status st = (*w)->finish_run(r.result); !st.is_ok()) return st;
  return (*w)->close();
}

// A file's whole content (empty if it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// An empty directory `<owner>_<name>` under the test's working directory; `owner` names the test
// binary, since several share the working directory and run in parallel.
inline std::filesystem::path fresh_dir(const std::string& owner, const std::string& name) {
  const std::filesystem::path dir = std::filesystem::current_path() / (owner + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace dst::reports::testing
