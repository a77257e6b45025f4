#include "tools/run_etcd.h"

#include <cstdio>
#include <filesystem>
#include <memory>

#include "checker/linearizability/etcd_checker.h"
#include "checker/watch/watch_checker.h"
#include "history/recorder.h"
#include "history/run_db_recorder.h"
#include "node/server/kv_run_world.h"
#include "reports/violation_html.h"
#include "sim/determinism.h"
#include "sim/wall_clock.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"

namespace dst {

namespace {

struct EtcdRun {
  node::KvRunResult world;
  history::MemoryRecorder memory;
  std::unique_ptr<history::RunDbRecorder> db;  // with --out: written through as the run goes
  checker::watch::Report watch;
  std::optional<Result<checker::etcd::EtcdVerdict>> linearizable;
  const history::History& history() const { return db ? db->history() : memory.history(); }
};

void run_once(sim::Simulator& sim, const node::KvRunOptions& options, EtcdRun& out) {
  history::Recorder& recorder = out.db ? static_cast<history::Recorder&>(*out.db) : out.memory;
  out.world = node::run_kv_world(sim, options, recorder);
  out.watch = checker::watch::check(out.history());
  out.linearizable.emplace(checker::etcd::check_etcd(out.history()));
}

}  // namespace

int run_etcd_command(const std::string& self, const std::vector<std::string>& argv) {
  cli::Args args("dst run etcd", argv);
  args.option("seed", "N", "the seed (default: a fresh random seed, printed)");
  args.option("profile", "NAME", "workload profile: etcd-kv (default), kubernetes, register");
  args.option("clients", "N", "KV clients (default 4)");
  args.option("rate", "R", "operations per second per client (default 50)");
  args.option("watchers", "N", "watch clients (default 2)");
  args.option("duration", "D", "how long clients and faults run, e.g. 20s (default 20s)");
  args.flag("no-faults", "run without the nemesis");
  args.option("fault-interval", "D", "mean time between two nemesis actions (default 700ms)");
  args.option("out", "DIR", "write the run database to DIR/run.db (see docs/run-db.md), and on a violation "
                            "DIR/violation.html (the history around it); DIR is created");
  args.flag("check-determinism", "run the seed twice and report the first diverging event");
  if (std::optional<int> done = args.parse_or_exit()) return *done;
  Result<uint64_t> seed = args.has("seed") ? args.u64("seed", 0) : Result<uint64_t>(sim::fresh_seed());
  Result<uint64_t> clients = args.u64("clients", 4);
  Result<uint64_t> rate = args.u64("rate", 50);
  Result<uint64_t> watchers = args.u64("watchers", 2);
  Result<int64_t> duration = args.duration_ns("duration", sim::seconds(20));
  Result<int64_t> fault_interval = args.duration_ns("fault-interval", sim::milliseconds(700));
  for (const Status* st : {&seed.status(), &clients.status(), &rate.status(), &watchers.status(), &duration.status(),
                           &fault_interval.status()}) {
    if (!st->is_ok()) {
      std::fprintf(stderr, "%s\n\n%s", st->message().c_str(), args.usage().c_str());
      return kExitUsage;
    }
  }
  auto profile = client::parse_profile(args.value("profile").value_or("etcd-kv"));
  if (!profile.is_ok()) {
    std::fprintf(stderr, "dst run etcd: --profile: %s\n", profile.status().message().c_str());
    return kExitUsage;
  }
  if (*clients < 1 || *clients > 256 || *rate < 1 || *rate > 10'000 || *watchers > 64) {
    std::fprintf(stderr, "dst run etcd: need 1 <= --clients <= 256, 1 <= --rate <= 10000, --watchers <= 64\n");
    return kExitUsage;
  }
  node::KvRunOptions options;
  options.workload.profile = *profile;
  options.workload.clients = *clients;
  options.workload.rate = static_cast<double>(*rate);
  options.workload.watchers = *watchers;
  options.duration = *duration;
  options.faults = !args.has("no-faults");
  if (*fault_interval < sim::milliseconds(10)) {
    std::fprintf(stderr, "dst run etcd: --fault-interval must be at least 10ms\n");
    return kExitUsage;
  }
  options.nemesis.mean_interval = *fault_interval;

  std::string reproduce = self + " run etcd --seed " + std::to_string(*seed);
  for (const char* opt : {"profile", "clients", "rate", "watchers", "duration", "fault-interval"})
    if (args.has(opt)) reproduce += std::string(" --") + opt + " " + *args.value(opt);
  if (!options.faults) reproduce += " --no-faults";
  std::printf("seed %llu   reproduce: %s\n", static_cast<unsigned long long>(*seed), reproduce.c_str());
  std::fflush(stdout);

  EtcdRun run;
  std::unique_ptr<history::RunDbWriter> writer;
  const int64_t started_ms = sim::wall_clock_ns() / 1'000'000;
  if (auto out = args.value("out")) {
    std::error_code ec;
    std::filesystem::create_directories(*out, ec);
    if (ec) {
      std::fprintf(stderr, "dst run etcd: --out %s: %s\n", out->c_str(), ec.message().c_str());
      return kExitUsage;
    }
    auto w = history::RunDbWriter::create(*out + "/run.db");
    if (!w.is_ok()) {
      std::fprintf(stderr, "dst run etcd: %s\n", w.status().to_string().c_str());
      return kExitUsage;
    }
    writer = std::move(w).value();
    history::RunInfo info;
    info.seed = *seed;
    info.scenario = "dst run etcd";
    info.options = reproduce;
    info.dst_version = "dst (built " __DATE__ ")";
    info.started_unix_ms = started_ms;
    if (Status st = writer->begin_run(info); !st.is_ok()) {
      std::fprintf(stderr, "dst run etcd: %s\n", st.to_string().c_str());
      return kExitUsage;
    }
  }
  uint64_t hash = 0;
  bool deterministic = true;
  std::string determinism_report;
  const int64_t wall_start = sim::wall_clock_ns();
  if (args.has("check-determinism")) {
    sim::DeterminismReport report = sim::check_determinism(*seed, [&](sim::Simulator& sim) {
      run = EtcdRun{};
      run_once(sim, options, run);
    });
    deterministic = report.deterministic;
    determinism_report = report.describe();
    hash = report.hash_first;
  } else {
    sim::Simulator sim(*seed);
    if (writer) run.db = std::make_unique<history::RunDbRecorder>(*writer);
    run_once(sim, options, run);
    hash = sim.trace().hash();
  }
  if (writer && !run.db) {
    // --check-determinism recorded in memory (the world ran twice): write the first run now.
    Status st = writer->add_history(run.history());
    for (const history::Metric& m : run.memory.metrics()) {
      if (!st.is_ok()) break;
      st = writer->metric(m.at_ns, m.member, m.name, m.value);
    }
    if (!st.is_ok()) std::fprintf(stderr, "dst run etcd: writing the run database: %s\n", st.to_string().c_str());
  }
  const double wall_s = static_cast<double>(sim::wall_clock_ns() - wall_start) / 1e9;

  const node::KvRunResult& w = run.world;
  const client::WorkloadStats& s = w.workload;
  std::printf("workload          %s: %llu operations (%llu ok, %llu failed, %llu unknown)\n",
              std::string(client::profile_name(*profile)).c_str(), static_cast<unsigned long long>(s.operations),
              static_cast<unsigned long long>(s.ok), static_cast<unsigned long long>(s.failed),
              static_cast<unsigned long long>(s.unknown));
  std::printf("watches           %llu events in %llu segments, %llu canceled by compaction\n",
              static_cast<unsigned long long>(s.watch_events), static_cast<unsigned long long>(s.watch_segments),
              static_cast<unsigned long long>(s.watches_canceled));
  std::printf("faults            %zu injected\n", w.fault_log.size());
  for (size_t i = 0; i < w.fault_log.size() && i < 10; ++i) std::printf("  %s\n", w.fault_log[i].c_str());
  if (!w.exits.empty()) std::printf("member exits      %zu (first: %s)\n", w.exits.size(), w.exits.front().c_str());
  for (size_t i = 1; i < w.exits.size() && i < 5; ++i) std::printf("  %s\n", w.exits[i].c_str());
  std::printf("raft invariants   %s\n", w.invariants_ok ? "ok" : w.violations.front().c_str());
  std::printf("liveness          %s\n", w.liveness_ok ? ("recovered in " + sim::format_duration(w.liveness.recovery)).c_str()
                                                      : w.liveness.detail.c_str());
  std::printf("member agreement  %s\n", w.members_agree ? "ok: same state hash at the same applied index" : "FAILED");
  std::printf("watch guarantees  %s\n", run.watch.ok() ? "ok" : "VIOLATED");
  if (!run.watch.ok()) std::printf("%s", run.watch.to_string().c_str());
  const Result<checker::etcd::EtcdVerdict>& lin = *run.linearizable;
  bool lin_ok = false, lin_unknown = false;
  if (!lin.is_ok()) {
    std::printf("linearizability   could not check: %s\n", lin.status().to_string().c_str());
  } else {
    lin_ok = lin->verdict == checker::Verdict::kLinearizable;
    lin_unknown = lin->verdict == checker::Verdict::kUnknown;
    std::printf("linearizability   %s\n", lin->summary().c_str());
  }
  std::printf("wall time         %.3fs\n", wall_s);
  if (!determinism_report.empty()) std::printf("determinism       %s\n", determinism_report.c_str());
  const bool safe = w.invariants_ok && w.liveness_ok && w.members_agree && run.watch.ok() && deterministic;
  const bool pass = safe && lin_ok;
  // A violation anywhere is a FAIL; a checker that gave up (and nothing else wrong) is UNKNOWN.
  const char* verdict = pass ? "PASS" : (safe && lin_unknown) ? "UNKNOWN (the checker gave up)" : "FAIL";
  const int exit_code = pass ? kExitPass : safe && lin_unknown ? kExitGaveUp : kExitViolation;
  bool db_ok = true;
  if (writer) {
    history::RunResult result;
    result.finished_unix_ms = sim::wall_clock_ns() / 1'000'000;
    result.trace_hash = hash;
    result.verdict = pass ? "pass" : exit_code == kExitGaveUp ? "unknown" : "violation";
    result.exit_code = exit_code;
    result.checker_summary = (lin.is_ok() ? lin->summary() : lin.status().to_string()) + "\n" +
                             (run.watch.ok() ? "watch guarantees ok" : run.watch.to_string());
    Status st = run.db ? run.db->status() : Status::ok();
    if (st.is_ok()) st = writer->finish_run(result);
    if (st.is_ok()) st = writer->close();
    if (!st.is_ok()) {
      std::fprintf(stderr, "dst run etcd: the run database is incomplete: %s\n", st.to_string().c_str());
      db_ok = false;
    } else {
      std::printf("run database      %s\n", writer->path().c_str());
    }
    const std::optional<std::string> page =
        reports::render_run_violation_html(run.history(), lin.is_ok() ? &*lin : nullptr, run.watch);
    if (page) {
      const std::string path = *args.value("out") + "/violation.html";
      if (Status st = reports::write_report_file(path, *page); !st.is_ok()) {
        std::fprintf(stderr, "dst run etcd: %s\n", st.to_string().c_str());
      } else {
        std::printf("violation page    %s\n", path.c_str());
      }
    }
  }
  std::printf("verdict           %s\n", verdict);
  std::printf("trace hash %s\n", sim::format_trace_hash(hash).c_str());
  return db_ok ? exit_code : kExitUsage;
}

}  // namespace dst
