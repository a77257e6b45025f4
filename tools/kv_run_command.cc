#include "tools/kv_run_command.h"

#include <cstdio>
#include <filesystem>
#include <memory>

#include "checker/kube/kube_checker.h"
#include "checker/linearizability/etcd_checker.h"
#include "checker/watch/watch_checker.h"
#include "history/recorder.h"
#include "history/run_db_recorder.h"
#include "reports/run_report_writer.h"
#include "sim/determinism.h"
#include "sim/wall_clock.h"
#include "tools/exit_codes.h"

namespace dst {

namespace {

struct EtcdRun {
  world::KvRunResult world;
  history::MemoryRecorder memory;
  std::unique_ptr<history::RunDbRecorder> db;  // with --out: written through as the run goes
  checker::watch::Report watch;
  std::optional<checker::kube::Report> kube;  // only when the run had informers
  std::optional<Result<checker::etcd::EtcdVerdict>> linearizable;
  const history::History& history() const { return db ? db->history() : memory.history(); }
};

void run_once(sim::Simulator& sim, const KvRunSpec& spec, EtcdRun& out) {
  history::Recorder& recorder = out.db ? static_cast<history::Recorder&>(*out.db) : out.memory;
  world::KvRunOptions options = spec.options;
  if (spec.prepare_run) spec.prepare_run(options);
  out.world = world::run_kv_world(sim, options, recorder);
  out.watch = checker::watch::check(out.history());
  if (!out.history().informers.empty()) out.kube = checker::kube::check(out.history());
  out.linearizable.emplace(checker::etcd::check_etcd(out.history()));
}

}  // namespace

int run_kv_command(const KvRunSpec& spec) {
  std::printf("seed %llu   reproduce: %s\n", static_cast<unsigned long long>(spec.seed), spec.reproduce.c_str());
  for (const std::string& line : spec.header_lines) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  EtcdRun run;
  std::unique_ptr<history::RunDbWriter> writer;
  const int64_t started_ms = sim::unix_time_ms();
  if (spec.out) {
    const std::string* out = &*spec.out;
    std::error_code ec;
    std::filesystem::create_directories(*out, ec);
    if (ec) {
      std::fprintf(stderr, "%s: --out %s: %s\n", spec.command.c_str(), out->c_str(), ec.message().c_str());
      return kExitUsage;
    }
    auto w = history::RunDbWriter::create(*out + "/run.db");
    if (!w.is_ok()) {
      std::fprintf(stderr, "%s: %s\n", spec.command.c_str(), w.status().to_string().c_str());
      return kExitUsage;
    }
    writer = std::move(w).value();
    history::RunInfo info;
    info.seed = spec.seed;
    info.scenario = spec.scenario;
    info.options = spec.reproduce;
    info.dst_version = "dst (built " __DATE__ ")";
    info.started_unix_ms = started_ms;
    if (Status st = writer->begin_run(info); !st.is_ok()) {
      std::fprintf(stderr, "%s: %s\n", spec.command.c_str(), st.to_string().c_str());
      return kExitUsage;
    }
  }
  uint64_t hash = 0;
  bool deterministic = true;
  std::string determinism_report;
  const int64_t wall_start = sim::wall_clock_ns();
  if (spec.check_determinism) {
    sim::DeterminismReport report = sim::check_determinism(spec.seed, [&](sim::Simulator& sim) {
      run = EtcdRun{};
      run_once(sim, spec, run);
    });
    deterministic = report.deterministic;
    determinism_report = report.describe();
    hash = report.hash_first;
  } else {
    sim::Simulator sim(spec.seed);
    if (writer) run.db = std::make_unique<history::RunDbRecorder>(*writer);
    run_once(sim, spec, run);
    hash = sim.trace().hash();
  }
  if (writer && !run.db) {
    // --check-determinism recorded in memory (the world ran twice): write the first run now.
    Status st = writer->add_history(run.history());
    for (const history::Metric& m : run.memory.metrics()) {
      if (!st.is_ok()) break;
      st = writer->metric(m.at_ns, m.member, m.name, m.value);
    }
    if (!st.is_ok()) std::fprintf(stderr, "%s: writing the run database: %s\n", spec.command.c_str(), st.to_string().c_str());
  }
  const double wall_s = static_cast<double>(sim::wall_clock_ns() - wall_start) / 1e9;

  const world::KvRunResult& w = run.world;
  const client::WorkloadStats& s = w.workload;
  std::printf("workload          %s: %llu operations (%llu ok, %llu failed, %llu unknown)\n",
              std::string(client::profile_name(spec.options.workload.profile)).c_str(), static_cast<unsigned long long>(s.operations),
              static_cast<unsigned long long>(s.ok), static_cast<unsigned long long>(s.failed),
              static_cast<unsigned long long>(s.unknown));
  std::printf("watches           %llu events in %llu segments, %llu canceled by compaction\n",
              static_cast<unsigned long long>(s.watch_events), static_cast<unsigned long long>(s.watch_segments),
              static_cast<unsigned long long>(s.watches_canceled));
  const std::vector<std::string>& fault_lines = w.fault_log;  // random and scripted, in order
  const std::vector<std::string> kube_lines = spec.kube_lines ? spec.kube_lines() : std::vector<std::string>{};
  if (!kube_lines.empty()) std::printf("kube              %zu processes\n", kube_lines.size());
  for (const std::string& line : kube_lines) std::printf("  %s\n", line.c_str());
  std::printf("faults            %zu actions\n", fault_lines.size());
  for (size_t i = 0; i < fault_lines.size() && i < 10; ++i) std::printf("  %s\n", fault_lines[i].c_str());
  if (fault_lines.size() > 10) std::printf("  ... (%zu more)\n", fault_lines.size() - 10);
  if (!w.exits.empty()) std::printf("member exits      %zu (first: %s)\n", w.exits.size(), w.exits.front().c_str());
  for (size_t i = 1; i < w.exits.size() && i < 5; ++i) std::printf("  %s\n", w.exits[i].c_str());
  std::printf("raft invariants   %s\n", w.invariants_ok ? "ok" : w.violations.front().c_str());
  std::printf("liveness          %s\n",
              w.liveness_ok ? ("recovered in " + sim::format_duration(w.liveness.recovery) + ", then served in " +
                               sim::format_duration(w.liveness.service) +
                               " (a write acknowledged, every member answered a linearizable read)")
                                  .c_str()
                            : w.liveness.detail.c_str());
  std::printf("member agreement  %s\n",
              w.members_agree ? "ok: same state hash at the same applied index" : ("FAILED: " + w.agreement_detail).c_str());
  std::printf("watch guarantees  %s\n", run.watch.ok() ? "ok" : "VIOLATED");
  if (!run.watch.ok()) std::printf("%s", run.watch.to_string().c_str());
  const bool kube_ok = !run.kube || run.kube->ok();
  if (run.kube && kube_ok) {
    std::printf("kube checks       ok (%zu lists, %zu events, %zu informers)\n", run.kube->lists, run.kube->events,
                run.kube->informers);
  } else if (run.kube) {
    std::printf("kube checks       VIOLATED\n%s", run.kube->to_string().c_str());
  }
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
  // What a scenario's check{} switched off is reported above but does not fail the run.
  std::optional<std::string> scenario_error = spec.runtime_error ? spec.runtime_error() : std::nullopt;
  if (!scenario_error && w.fault_error) scenario_error = *w.fault_error;
  if (scenario_error) {
    std::printf("scenario error    %s\n", scenario_error->c_str());
    std::fprintf(stderr, "dst run: scenario error: %s\n", scenario_error->c_str());  // where load errors go too
  }
  const bool safe = (w.invariants_ok || !spec.require_durability) && (w.liveness_ok || !spec.require_liveness) &&
                    (w.members_agree || !spec.require_durability) && (run.watch.ok() || !spec.require_watch) &&
                    (kube_ok || !spec.require_watch) &&
                    deterministic;
  if (!spec.require_linearizable) lin_ok = true;
  const bool pass = safe && lin_ok && !scenario_error;
  // A violation anywhere is a FAIL; a checker that gave up (and nothing else wrong) is UNKNOWN; a
  // scenario that failed while running is a scenario error, whatever the checks said.
  const char* verdict = scenario_error ? "ERROR (the scenario failed)"
                        : pass         ? "PASS"
                        : (safe && lin_unknown) ? "UNKNOWN (the checker gave up)"
                                                : "FAIL";
  const int exit_code = scenario_error ? kExitUsage
                        : pass         ? kExitPass
                        : safe && lin_unknown ? kExitGaveUp
                                              : kExitViolation;
  bool db_ok = true;
  if (writer) {
    history::RunResult result;
    result.finished_unix_ms = sim::unix_time_ms();
    result.trace_hash = hash;
    result.verdict = scenario_error ? "error" : pass ? "pass" : exit_code == kExitGaveUp ? "unknown" : "violation";
    result.exit_code = exit_code;
    result.checker_summary = (lin.is_ok() ? lin->summary() : lin.status().to_string()) + "\n" +
                             (run.watch.ok() ? "watch guarantees ok" : run.watch.to_string());
    if (run.kube) result.checker_summary += "\n" + run.kube->to_string();
    Status st = run.db ? run.db->status() : Status::ok();
    if (st.is_ok()) st = writer->finish_run(result);
    if (st.is_ok()) st = writer->close();
    if (!st.is_ok()) {
      std::fprintf(stderr, "%s: the run database is incomplete: %s\n", spec.command.c_str(), st.to_string().c_str());
      db_ok = false;
    } else {
      std::printf("run database      %s\n", writer->path().c_str());
    }
    // The report (reports/run_report_writer.h): pages, plots, and for a violation the page around
    // it. A report that cannot be written (no gnuplot) does not change the run's verdict.
    if (db_ok) {
      Result<reports::RunReportPaths> report = reports::write_run_report(writer->path(), *spec.out + "/report");
      if (!report.is_ok()) {
        std::fprintf(stderr, "%s: the report is incomplete: %s\n", spec.command.c_str(),
                     report.status().to_string().c_str());
      } else {
        std::printf("report            %s\n", report->index_html.c_str());
        if (report->violation_page) std::printf("violation page    %s/violation.html\n", report->dir.c_str());
      }
    }
  }
  // One line naming the first violation, for sweeps and CI logs (dst sweep picks it up).
  if (!pass && !scenario_error) {
    std::string first;
    if (!w.invariants_ok && spec.require_durability && !w.violations.empty()) first = "raft invariant: " + w.violations.front();
    else if (!w.liveness_ok && spec.require_liveness) first = "liveness: " + w.liveness.detail;
    else if (!w.members_agree && spec.require_durability) first = "member agreement failed: " + w.agreement_detail;
    else if (!run.watch.ok() && spec.require_watch) {
      // The first violation's own line ("bookmarkable: watch 0 (...) at ...: event at revision
      // 179 after a progress notification at revision 183"), without its evidence lines.
      const std::string v = run.watch.violations.empty() ? run.watch.to_string() : run.watch.violations.front().to_string();
      first = "watch " + v.substr(0, v.find('\n'));
    }
    else if (!kube_ok && spec.require_watch) {
      const std::string v = run.kube->violations.empty() ? run.kube->to_string() : run.kube->violations.front().to_string();
      first = "kube " + v.substr(0, v.find('\n'));
    }
    else if (!deterministic) first = "not deterministic: " + determinism_report;
    else if (lin.is_ok() && !lin->violations.empty()) first = lin->violations.front().rule + ": " + lin->violations.front().message;
    if (!first.empty()) std::printf("first violation:  %s\n", first.c_str());
  }
  std::printf("verdict           %s\n", verdict);
  std::printf("trace hash %s\n", sim::format_trace_hash(hash).c_str());
  return db_ok ? exit_code : kExitUsage;
}

}  // namespace dst
