#include "tools/kv_run_command.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "base/probes.h"
#include "checker/suite/check_suite.h"
#include "checker/suite/suite_text.h"
#include "client/mix_draw.h"
#include "history/checks.h"
#include "history/coverage.h"
#include "history/recorder.h"
#include "history/run_db_recorder.h"
#include "reports/run_report_writer.h"
#include "sim/determinism.h"
#include "sim/wall_clock.h"
#include "tools/exit_codes.h"
#include "world/kv_run_findings.h"
#include "tools/run_result_file.h"

namespace dst {

namespace {

using history::CheckRow;

struct EtcdRun {
  world::KvRunResult world;
  history::MemoryRecorder memory;
  std::unique_ptr<history::RunDbRecorder> db;  // with --out: written through as the run goes
  checker::suite::SuiteResult suite;  // every check, once the world has run (check_suite.h)
  sim::TimeNs simulated_ns = 0;  // the virtual time the world ran (its clock when it ended)
  history::Coverage coverage;  // what the run reached: its probes and the API surface it used
  const history::History& history() const { return db ? db->history() : memory.history(); }
};

int64_t since_us(int64_t start_ns) { return (sim::wall_clock_ns() - start_ns) / 1000; }

void run_once(sim::Simulator& sim, const KvRunSpec& spec, EtcdRun& out) {
  history::Recorder& recorder = out.db ? static_cast<history::Recorder&>(*out.db) : out.memory;
  world::KvRunOptions options = spec.options;
  if (spec.prepare_run) spec.prepare_run(options);
  ProbeCounts probes;
  probes.clock_ns = sim.clock();
  {
    ProbeScope collect(probes);  // the world's run only: the checkers below pass no probes
    out.world = world::run_kv_world(sim, options, recorder);
  }
  out.coverage.clear();
  history::add_probe_coverage(probes, out.coverage);
  history::add_api_coverage(out.history(), out.coverage);
}

struct Determinism {
  bool checked = false, deterministic = true;
  std::string report;
};

// The suite on the run's history, with what the world found, the run's determinism and the
// scenario's own error; the scenario's check{} says which checks are required.
checker::suite::SuiteResult check_run(const KvRunSpec& spec, const EtcdRun& run, const Determinism& det,
                                      const std::optional<std::string>& scenario_error) {
  checker::suite::WorldFindings world = world::kv_run_findings(run.world);
  world.determinism_checked = det.checked;
  world.deterministic = det.deterministic;
  world.determinism_report = det.report;
  world.scenario_error = scenario_error;
  checker::suite::SuiteOptions options;
  options.required = {spec.require_linearizable, spec.require_watch, spec.require_liveness, spec.require_durability};
  return checker::suite::run_check_suite(run.history(), world, options);
}

void print_world(const KvRunSpec& spec, const EtcdRun& run) {
  const world::KvRunResult& w = run.world;
  const client::WorkloadStats& s = w.workload;
  std::printf("workload          %s: %llu operations (%llu ok, %llu failed, %llu unknown)\n",
              std::string(client::profile_name(spec.options.workload.profile)).c_str(), static_cast<unsigned long long>(s.operations),
              static_cast<unsigned long long>(s.ok), static_cast<unsigned long long>(s.failed),
              static_cast<unsigned long long>(s.unknown));
  std::printf("watches           %llu events in %llu segments, %llu canceled by compaction",
              static_cast<unsigned long long>(s.watch_events), static_cast<unsigned long long>(s.watch_segments),
              static_cast<unsigned long long>(s.watches_canceled));
  if (s.watches_rewound > 0) std::printf(", %llu rewound by faults", static_cast<unsigned long long>(s.watches_rewound));
  std::printf("\n");
  if (s.fanout_watches > 0) {
    // Responses naming no watch of their stream: a member answering for a watch it never had or
    // had canceled. Not a check of its own (the watch checker cannot place them); shown here.
    std::printf("fan-out           %llu logical watches on %llu streams opened, %llu responses naming no watch\n",
                static_cast<unsigned long long>(s.fanout_watches), static_cast<unsigned long long>(s.fanout_streams_opened),
                static_cast<unsigned long long>(s.fanout_stray_responses));
  }
  const std::vector<std::string> kube_lines = spec.kube_lines ? spec.kube_lines() : std::vector<std::string>{};
  if (!kube_lines.empty()) std::printf("kube              %zu processes\n", kube_lines.size());
  for (const std::string& line : kube_lines) std::printf("  %s\n", line.c_str());
  std::printf("faults            %zu actions\n", w.fault_log.size());  // random and scripted, in order
  for (size_t i = 0; i < w.fault_log.size() && i < 10; ++i) std::printf("  %s\n", w.fault_log[i].c_str());
  if (w.fault_log.size() > 10) std::printf("  ... (%zu more)\n", w.fault_log.size() - 10);
  if (!w.exits.empty()) std::printf("member exits      %zu (first: %s)\n", w.exits.size(), w.exits.front().c_str());
  for (size_t i = 1; i < w.exits.size() && i < 5; ++i) std::printf("  %s\n", w.exits[i].c_str());
}

Status open_run_db(const KvRunSpec& spec, int64_t started_ms, std::unique_ptr<history::RunDbWriter>& writer) {
  std::error_code ec;
  std::filesystem::create_directories(*spec.out, ec);
  if (ec) return Status(StatusCode::kInvalidArgument, "--out " + *spec.out + ": " + ec.message());
  auto w = history::RunDbWriter::create(*spec.out + "/run.db");
  if (!w.is_ok()) return w.status();
  writer = std::move(w).value();
  history::RunInfo info;
  info.seed = spec.seed;
  info.scenario = spec.scenario;
  info.options = spec.reproduce;
  info.dst_version = "dst (built " __DATE__ ")";
  info.started_unix_ms = started_ms;
  return writer->begin_run(info);
}

// Runs the world once (or twice for --check-determinism, recording the first run in memory).
uint64_t simulate(const KvRunSpec& spec, history::RunDbWriter* writer, EtcdRun& run, Determinism& det) {
  if (spec.check_determinism) {
    sim::DeterminismReport report = sim::check_determinism(spec.seed, [&](sim::Simulator& sim) {
      run = EtcdRun{};
      run_once(sim, spec, run);
      run.simulated_ns = sim.now();
    });
    det = Determinism{true, report.deterministic, report.describe()};
    if (writer) {  // the world ran twice: write the first run now
      Status st = writer->add_history(run.history());
      for (const history::Metric& m : run.memory.metrics()) {
        if (!st.is_ok()) break;
        st = writer->metric(m.at_ns, m.member, m.name, m.value);
      }
      if (!st.is_ok()) std::fprintf(stderr, "%s: writing the run database: %s\n", spec.command.c_str(), st.to_string().c_str());
    }
    return report.hash_first;
  }
  sim::Simulator sim(spec.seed);
  if (writer) run.db = std::make_unique<history::RunDbRecorder>(*writer);
  run_once(sim, spec, run);
  run.simulated_ns = sim.now();
  return sim.trace().hash();
}

// Finishes the run database with the verdict and its checks, then writes the report; false if
// the database could not be completed.
bool finish_run_db(const KvRunSpec& spec, const EtcdRun& run, history::RunDbWriter& writer,
                   const std::vector<CheckRow>& checks, const history::RunVerdict& verdict, uint64_t hash) {
  history::RunResult result;
  result.finished_unix_ms = sim::unix_time_ms();
  result.trace_hash = hash;
  result.verdict = verdict.name;
  result.exit_code = verdict.exit_code;
  result.checker_summary = checker::suite::render_check_lines(run.suite);
  result.checks = checks;
  result.coverage = run.coverage;
  Status st = run.db ? run.db->status() : Status::ok();
  if (st.is_ok()) st = writer.finish_run(result);
  if (st.is_ok()) st = writer.close();
  if (!st.is_ok()) {
    std::fprintf(stderr, "%s: the run database is incomplete: %s\n", spec.command.c_str(), st.to_string().c_str());
    return false;
  }
  std::printf("run database      %s\n", writer.path().c_str());
  // A report that cannot be written (no gnuplot) does not change the run's verdict.
  Result<reports::RunReportPaths> report = reports::write_run_report(writer.path(), *spec.out + "/report");
  if (!report.is_ok()) {
    std::fprintf(stderr, "%s: the report is incomplete: %s\n", spec.command.c_str(), report.status().to_string().c_str());
  } else {
    std::printf("report            %s\n", report->index_html.c_str());
    if (report->violation_page) std::printf("violation page    %s/violation.html\n", report->dir.c_str());
  }
  return true;
}

// "41 of 64 probes, 57 API uses": how much of the catalogue the run reached (dst sweep adds up
// the seeds' coverage and names what none reached).
std::string coverage_line(const history::Coverage& coverage) {
  size_t probes = 0, api = 0;
  for (const auto& [name, hits] : coverage) (name.rfind("api.", 0) == 0 ? api : probes) += 1;
  return std::to_string(probes) + " of " + std::to_string(static_cast<size_t>(Probe::kCount)) + " probes, " +
         std::to_string(api) + " API uses";
}

// What the run was, for the result file (`dst shrink` reduces it and reports before and after).
std::map<std::string, std::string> run_shape(const world::KvRunOptions& options, const EtcdRun& run) {
  const client::WorkloadOptions& w = options.workload;
  std::map<std::string, std::string> shape = {
      {"nodes", std::to_string(options.nodes)},
      {"profile", std::string(client::profile_name(w.profile))},
      {"clients", std::to_string(w.clients)},
      {"watchers", std::to_string(w.watchers)},
      {"keys", std::to_string(w.keys)},
      {"run_for_ns", std::to_string(options.duration)},
      {"phase_start_ns", std::to_string(run.world.phase_start)},
      {"operations", std::to_string(run.history().operations.size())}};
  char rate[40];
  std::snprintf(rate, sizeof rate, "%.17g", w.rate);
  shape["rate"] = rate;
  if (w.profile == client::Profile::kEtcdKv) {  // the other profiles send no KvMix kinds
    std::string kinds;
    for (const std::string& k : client::kv_kinds_sent(w.kv_mix)) kinds += (kinds.empty() ? "" : ",") + k;
    shape["kinds"] = kinds;
  }
  return shape;
}

}  // namespace

int run_kv_command(const KvRunSpec& spec) {
  std::printf("seed %llu   reproduce: %s\n", static_cast<unsigned long long>(spec.seed), spec.reproduce.c_str());
  for (const std::string& line : spec.header_lines) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  std::unique_ptr<history::RunDbWriter> writer;
  if (spec.out) {
    if (Status st = open_run_db(spec, sim::unix_time_ms(), writer); !st.is_ok()) {
      std::fprintf(stderr, "%s: %s\n", spec.command.c_str(), st.to_string().c_str());
      return kExitUsage;
    }
  }
  EtcdRun run;
  Determinism det;
  const int64_t wall_start = sim::wall_clock_ns();
  const uint64_t hash = simulate(spec, writer.get(), run, det);
  const double wall_s = static_cast<double>(sim::wall_clock_ns() - wall_start) / 1e9;
  std::optional<std::string> scenario_error = spec.runtime_error ? spec.runtime_error() : std::nullopt;
  if (!scenario_error && run.world.fault_error) scenario_error = *run.world.fault_error;
  // The verdict as data: one row per check, one function deciding (checker/suite, history/checks.h).
  run.suite = check_run(spec, run, det, scenario_error);
  const std::vector<CheckRow>& checks = run.suite.rows;
  const history::RunVerdict& verdict = run.suite.verdict;
  print_world(spec, run);
  std::printf("%s", checker::suite::render_check_lines(run.suite).c_str());
  std::printf("coverage          %s\n", coverage_line(run.coverage).c_str());
  // The speed a sweep is as wide as: simulated seconds per wall second, checks included.
  const double simulated_s = static_cast<double>(run.simulated_ns) / 1e9;
  std::printf("wall time         %.3fs for %.1fs simulated (%.1fx real time)\n", wall_s, simulated_s,
              wall_s > 0 ? simulated_s / wall_s : 0.0);
  if (det.checked) std::printf("determinism       %s\n", det.report.c_str());
  if (scenario_error) {
    std::printf("scenario error    %s\n", scenario_error->c_str());
    std::fprintf(stderr, "dst run: scenario error: %s\n", scenario_error->c_str());  // where load errors go too
  }
  const bool db_ok = !writer || finish_run_db(spec, run, *writer, checks, verdict, hash);
  if (verdict.deciding && verdict.name == "violation")
    std::printf("first violation:  %s\n", history::describe_failure(checks[*verdict.deciding]).c_str());
  std::printf("verdict           %s\n", history::verdict_line(verdict));
  std::printf("trace hash %s\n", sim::format_trace_hash(hash).c_str());
  const int exit_code = db_ok ? verdict.exit_code : kExitUsage;
  if (spec.result_file) {
    RunResultFile result = make_result_file(spec.seed, hash, verdict, exit_code, checks);
    result.coverage = run.coverage;
    result.must_reach = spec.must_reach;
    result.shape = run_shape(spec.options, run);
    write_result_file_or_warn(*spec.result_file, std::move(result));
  }
  return exit_code;
}

}  // namespace dst
