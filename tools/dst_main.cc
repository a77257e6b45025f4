// The dst command line: `dst run`, `dst bench`, `dst help`.
//
// Exit codes (DESIGN.md): 0 pass, 1 a guarantee was violated, 2 usage or input error, 3 a checker
// gave up. `dst run` prints its seed and reproduce command first and its trace hash last.
#include <cstdio>
#include <string>
#include <vector>

#include "base/limits.h"
#include "bench/bench_runner.h"
#include "demo/demo_world.h"
#include "sim/determinism.h"
#include "sim/simulator.h"
#include "sim/wall_clock.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "tools/check_command.h"
#include "tools/export_command.h"
#include "tools/run_etcd.h"
#include "tools/run_raft.h"
#include "tools/coverage_command.h"
#include "tools/merge_command.h"
#include "tools/report_command.h"
#include "tools/run_result_file.h"
#include "tools/schedule_command.h"
#include "tools/shrink_command.h"
#include "tools/run_scenario.h"
#include "tools/explore_command.h"
#include "tools/sweep_command.h"
#include "tools/shell_command.h"

namespace dst {
namespace {


const char* kTopUsage =
    "dst: deterministic simulation and verification of etcd-style clusters\n"
    "\n"
    "usage: dst <command> [options]      (dst <command> --help for its options)\n"
    "\n"
    "commands:\n"
    "  run SCENARIO.lua  run a Lua scenario (scenarios/*.lua) with a seed, then its checks\n"
    "  run [WORLD]    a built-in world instead: demo (the default); raft: a Raft cluster under\n"
    "                 random faults; etcd: clients and watchers against a KV cluster under random\n"
    "                 faults, then the checkers\n"
    "  sweep SCENARIO --seeds A..B  many seeds as local processes (--jobs, --shard I/N), a summary\n"
    "                 table and the failing seeds' reproduce commands (docs/sweep.md)\n"
    "  explore SCENARIO  guided exploration: forks the runs that reach new states (--seed, --runs,\n"
    "                 --jobs), reports coverage growth and failing runs (docs/explore.md)\n"
    "  merge FILE...  combine the results files of sweep shards into one summary\n"
    "  coverage FILE...  add up sweeps' coverage.tsv files: what a suite reached, what it never did\n"
    "  report RUN.db  the report of a recorded run: index.html, plots (gnuplot), summary.md, junit.xml\n"
    "  schedule RUN.db  the run's fault schedule as Lua; dst run --schedule FILE replays it exactly\n"
    "  shrink SCENARIO --seed N  the smallest fault schedule that still fails the same check (--jobs,\n"
    "                 --max-runs, --out; arguments after -- go to every run)\n"
    "  check FILE...  check recorded histories (run databases, Jepsen or Porcupine logs; files or\n"
    "                 directories): the verdict first, then a minimal explanation\n"
    "  export RUN.db --format jepsen-log  a run's registers as Jepsen's log lines, for other tools\n"
    "  shell          etcdctl command lines on stdin against a simulated cluster, etcdctl's output\n"
    "  bench sim      benchmark the simulation kernel (fiber switches, events/s, messages/s)\n"
    "  bench raft     committed Raft entries per wall second, 3 and 5 nodes in simulation\n"
    "  bench kv       etcd KV requests applied per wall second through a 3-node cluster\n"
    "  bench checker  the linearizability checker on Porcupine's kv logs and on Jepsen register sets\n"
    "                 next to Porcupine itself (ci/porcupine-helper.sh)\n"
    "  bench cluster  a 3-node cluster at 1,000 QPS with watches and recording: x real time, checked ops/s\n"
    "  help           this text\n"
    "\n"
    "exit codes: 0 pass, 1 violation, 2 usage or input error, 3 checker gave up\n";

int usage_error(const Status& st, const cli::Args& args) {
  std::fprintf(stderr, "%s\n\n%s", st.message().c_str(), args.usage().c_str());
  return kExitUsage;
}

// `dst run [demo]`'s options into `options` and `seed`; the exit code of a usage error or --help.
std::optional<int> parse_demo_options(cli::Args& args, uint64_t& seed, demo::DemoOptions& options) {
  args.positional("WORLD", "the world to run: 'demo' (the built-in demo world) or 'raft' (see dst run raft --help)", true);
  args.option("seed", "N", "the seed (default: a fresh random seed, printed)");
  args.option("duration", "D", "virtual time to run, e.g. 10s (default 10s)");
  args.option("peers", "N", "peers in the demo world (default 5)");
  args.flag("no-faults", "run without the nemesis");
  args.option("bug", "NAME", "switch on a deliberate bug: ack-before-fsync");
  args.option("result", "FILE", "write the verdict and every check to FILE as a result file (what dst sweep reads)");
  args.flag("check-determinism", "run the seed twice and report the first diverging event");
  if (Status st = args.parse(); !st.is_ok()) return usage_error(st, args);
  if (args.has("help")) {
    std::printf("%s", args.usage().c_str());
    return kExitPass;
  }
  const std::string world = args.positional_value("WORLD").value_or("demo");
  if (world != "demo") {
    std::fprintf(stderr, "dst run: unknown world '%s'; built-in worlds: demo, raft\n", world.c_str());
    return kExitUsage;
  }
  Result<uint64_t> s = args.has("seed") ? args.u64("seed", 0) : Result<uint64_t>(sim::fresh_seed());
  Result<int64_t> duration = args.duration_ns("duration", sim::seconds(10), sim::milliseconds(1), limits::kScenarioRunForNsMax);
  Result<uint64_t> peers = args.u64("peers", 5);
  for (const Status* st : {&s.status(), &duration.status(), &peers.status()}) {
    if (!st->is_ok()) return usage_error(*st, args);
  }
  seed = *s;
  options.duration = *duration;
  options.peers = static_cast<int>(*peers);
  options.faults = !args.has("no-faults");
  if (auto bug = args.value("bug")) {
    Result<Bugs> bugs = parse_bugs(*bug);
    if (!bugs.is_ok()) {
      std::fprintf(stderr, "dst run: --bug: %s\n", bugs.status().message().c_str());
      return kExitUsage;
    }
    if (!(*bugs == Bugs::of(Bug::kAckBeforePersist))) {
      std::fprintf(stderr, "dst run: --bug '%s': the demo world has one bug, ack-before-fsync (ack-before-persist); "
                   "the others need `dst run raft` or a scenario\n", bug->c_str());
      return kExitUsage;
    }
    options.bugs = *bugs;
  }
  if (*peers < 2 || *peers > 64) {
    std::fprintf(stderr, "dst run: --peers must be between 2 and 64, got %llu\n", static_cast<unsigned long long>(*peers));
    return kExitUsage;
  }
  return std::nullopt;
}

// The demo world's checks as data: no acknowledged record lost, and determinism when asked.
std::vector<history::CheckRow> demo_checks(const demo::DemoStats& stats, bool determinism_checked,
                                           const sim::DeterminismReport& report) {
  std::vector<history::CheckRow> checks(1);
  checks[0].name = "durability";
  checks[0].status = stats.violations.empty() ? history::CheckStatus::kPass : history::CheckStatus::kFail;
  checks[0].violations = stats.violations.size();
  if (!stats.violations.empty()) checks[0].first_message = stats.violations.front();
  checks.push_back(history::determinism_check(determinism_checked, report.deterministic,
                                              determinism_checked ? report.describe() : ""));
  return checks;
}

int run_demo_command(const std::string& self, const std::vector<std::string>& argv) {
  cli::Args args("dst run", argv);
  uint64_t seed = 0;
  demo::DemoOptions options;
  if (std::optional<int> done = parse_demo_options(args, seed, options)) return *done;
  // The reproduce command repeats every option that changes the run.
  std::string reproduce = self + " run demo --seed " + std::to_string(seed);
  if (args.has("duration")) reproduce += " --duration " + *args.value("duration");
  if (args.has("peers")) reproduce += " --peers " + *args.value("peers");
  if (!options.faults) reproduce += " --no-faults";
  if (!options.bugs.empty()) reproduce += " --bug " + options.bugs.names();
  std::printf("seed %llu   reproduce: %s\n", static_cast<unsigned long long>(seed), reproduce.c_str());
  std::fflush(stdout);
  demo::DemoStats stats;
  std::string summary;
  auto world_fn = [&](sim::Simulator& sim) {
    stats = demo::run_demo_world(sim, options);
    summary = demo::format_demo_summary(stats, sim);
  };
  const bool check_determinism = args.has("check-determinism");
  sim::DeterminismReport report;
  const int64_t wall_start = sim::wall_clock_ns();
  if (check_determinism) {
    report = sim::check_determinism(seed, world_fn);
  } else {
    sim::Simulator sim(seed);
    world_fn(sim);
    report.hash_first = sim.trace().hash();
  }
  const double wall_s = static_cast<double>(sim::wall_clock_ns() - wall_start) / 1e9;
  std::printf("%s", summary.c_str());
  if (!stats.fault_log.empty()) {
    std::printf("fault schedule    (first 10 of %zu)\n", stats.fault_log.size());
    for (size_t i = 0; i < stats.fault_log.size() && i < 10; ++i) std::printf("  %s\n", stats.fault_log[i].c_str());
  }
  std::printf("wall time         %.3fs\n", wall_s);
  if (check_determinism) std::printf("determinism       %s\n", report.describe().c_str());
  const std::vector<history::CheckRow> checks = demo_checks(stats, check_determinism, report);
  const history::RunVerdict verdict = history::decide_verdict(checks);
  if (verdict.deciding) std::printf("first violation:  %s\n", history::describe_failure(checks[*verdict.deciding]).c_str());
  std::printf("verdict           %s\n", verdict.exit_code == 0 ? "PASS" : "FAIL");
  std::printf("trace hash %s\n", sim::format_trace_hash(report.hash_first).c_str());
  if (auto file = args.value("result")) write_result_file_or_warn(*file, make_result_file(seed, report.hash_first, verdict, verdict.exit_code, checks));
  return verdict.exit_code;
}

int run_command(const std::string& self, const std::vector<std::string>& argv) {
  if (!argv.empty() && argv[0] == "raft") return run_raft_command(self, {argv.begin() + 1, argv.end()});
  if (!argv.empty() && argv[0] == "etcd") return run_etcd_command(self, {argv.begin() + 1, argv.end()});
  if (!argv.empty() && argv[0] == "--schedule") return run_schedule_command(self, argv);
  if (!argv.empty() && argv[0].size() > 4 && argv[0].substr(argv[0].size() - 4) == ".lua") {
    if (is_schedule_file(argv[0])) {  // dst run shrunk.schedule.lua: the replay it describes
      std::vector<std::string> rest = {"--schedule"};
      rest.insert(rest.end(), argv.begin(), argv.end());
      return run_schedule_command(self, rest);
    }
    return run_scenario_command(self, argv[0], {argv.begin() + 1, argv.end()});
  }
  return run_demo_command(self, argv);
}

int bench_command(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0] == "--help") {
    std::printf(
        "usage: dst bench sim|raft|kv|checker|cluster [--json] [--large] [google benchmark flags, e.g. --benchmark_min_time=1]\n"
        "  --json   print every run (times, counters, errors) as one JSON document on stdout; the table goes to stderr\n"
        "  --large  also the long benchmarks (minutes, gigabytes): the checkers on a 1M-operation history\n"
        "exit status: 0 every benchmark ran; 1 a run broke (its checks failed); 2 usage. A slow run never fails.\n");
    return argv.empty() ? kExitUsage : kExitPass;
  }
  if (argv[0] != "sim" && argv[0] != "raft" && argv[0] != "kv" && argv[0] != "checker" && argv[0] != "cluster") {
    std::fprintf(stderr, "dst bench: unknown suite '%s'; suites: sim, raft, kv, checker, cluster\n", argv[0].c_str());
    return kExitUsage;
  }
  return bench::run_benchmarks(argv[0], std::vector<std::string>(argv.begin() + 1, argv.end()));
}

}  // namespace
}  // namespace dst

int main(int argc, char** argv) {
  const std::string self = argv[0];
  std::vector<std::string> rest(argv + 1, argv + argc);
  if (rest.empty() || rest[0] == "help" || rest[0] == "--help" || rest[0] == "-h") {
    std::printf("%s", dst::kTopUsage);
    return rest.empty() ? dst::kExitUsage : dst::kExitPass;
  }
  const std::string command = rest[0];
  rest.erase(rest.begin());
  if (command == "run") return dst::run_command(self, rest);
  if (command == "bench") return dst::bench_command(rest);
  if (command == "shell") return dst::shell_command(self, rest);
  if (command == "check") return dst::check_command(self, rest);
  if (command == "export") return dst::export_command(rest);
  if (command == "report") return dst::report_command(self, rest);
  if (command == "schedule") return dst::schedule_command(rest);
  if (command == "sweep") return dst::sweep_command(self, rest);
  if (command == "explore") return dst::explore_command(self, rest);
  if (command == "shrink") return dst::shrink_command(self, rest);
  if (command == "merge") return dst::merge_command(self, rest);
  if (command == "coverage") return dst::coverage_command(rest);
  std::fprintf(stderr, "dst: unknown command '%s'\n\n%s", command.c_str(), dst::kTopUsage);
  return dst::kExitUsage;
}
