#include "tools/run_raft.h"

#include <cstdio>

#include "base/limits.h"
#include "node/raft/config.h"
#include "world/raft_world.h"
#include "sim/determinism.h"
#include "sim/wall_clock.h"
#include "base/bugs.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "tools/run_result_file.h"

namespace dst {

namespace {

// The raft world's checks as data (history/checks.h): the invariants, liveness, determinism.
std::vector<history::CheckRow> raft_checks(const world::RaftWorldResult& r, bool determinism_checked, bool deterministic,
                                           const std::string& determinism_report) {
  std::vector<history::CheckRow> out(3);
  out[0].name = "raft-invariants";
  out[0].status = r.invariants_ok ? history::CheckStatus::kPass : history::CheckStatus::kFail;
  out[0].violations = r.violation_count;
  if (!r.violations.empty()) out[0].first_message = r.violations.front();
  out[0].summary = r.invariants_ok ? "ok" : std::to_string(r.violation_count) + " violations";
  out[1].name = "liveness";
  out[1].status = r.liveness_ok ? history::CheckStatus::kPass : history::CheckStatus::kFail;
  out[1].first_message = r.liveness_ok ? "" : r.liveness.detail;
  out[1].summary = r.liveness_ok ? "recovered in " + sim::format_duration(r.liveness.recovery) : r.liveness.detail;
  out[2] = history::determinism_check(determinism_checked, deterministic, determinism_report);
  return out;
}

// `dst run raft`'s options into `options` and `seed`; the exit code of a usage error or --help.
std::optional<int> parse_raft_options(cli::Args& args, uint64_t& seed_out, world::RaftWorldOptions& options) {
  args.option("seed", "N", "the seed (default: a fresh random seed, printed)");
  args.option("nodes", "N", "cluster size, 1 to 9 (default 3)");
  args.option("duration", "D", "how long the nemesis injects faults, e.g. 20s (default 20s)");
  args.flag("no-faults", "run without the nemesis");
  args.flag("kv", "apply a mixed etcd KV load (put, delete, txn, compaction) to SQLite-backed MVCC stores");
  std::string raft_bugs;
  for (Bug b : all_bugs())
    if (bug_layer(b) == BugLayer::kRaft) raft_bugs += (raft_bugs.empty() ? "" : ", ") + std::string(bug_name(b));
  args.option("bug", "NAMES", "switch on Raft safety bugs, comma-separated: " + raft_bugs);
  args.option("result", "FILE", "write the verdict and every check to FILE as a result file (what dst sweep reads)");
  args.flag("check-determinism", "run the seed twice and report the first diverging event");
  if (std::optional<int> done = args.parse_or_exit()) return done;
  Result<uint64_t> seed = args.has("seed") ? args.u64("seed", 0) : Result<uint64_t>(sim::fresh_seed());
  Result<uint64_t> nodes = args.u64("nodes", 3);
  Result<int64_t> duration = args.duration_ns("duration", sim::seconds(20), limits::kScenarioRunForNsMin, limits::kScenarioRunForNsMax);
  for (const Status* st : {&seed.status(), &nodes.status(), &duration.status()}) {
    if (!st->is_ok()) {
      std::fprintf(stderr, "%s\n\n%s", st->message().c_str(), args.usage().c_str());
      return kExitUsage;
    }
  }
  if (*nodes < 1 || *nodes > 9) {
    std::fprintf(stderr, "dst run raft: --nodes must be between 1 and 9, got %llu\n",
                 static_cast<unsigned long long>(*nodes));
    return kExitUsage;
  }
  options.nodes = *nodes;
  options.duration = *duration;
  options.faults = !args.has("no-faults");
  options.kv = args.has("kv");
  if (auto bugs = args.value("bug")) {
    Result<Bugs> bits = parse_bugs(*bugs);
    if (!bits.is_ok()) {
      std::fprintf(stderr, "dst run raft: --bug: %s\n", bits.status().message().c_str());
      return kExitUsage;
    }
    if (bits->any_in(BugLayer::kMember) || bits->any_in(BugLayer::kKube)) {
      std::fprintf(stderr, "dst run raft: --bug: %s is a bug of the KV node or the kube layer; the raft world has only Raft's\n",
                   bugs->c_str());
      return kExitUsage;
    }
    options.bugs = *bits;
  }
  seed_out = *seed;
  return std::nullopt;
}

}  // namespace

int run_raft_command(const std::string& self, const std::vector<std::string>& argv) {
  cli::Args args("dst run raft", argv);
  uint64_t seed = 0;
  world::RaftWorldOptions options;
  if (std::optional<int> done = parse_raft_options(args, seed, options)) return *done;
  std::string reproduce = self + " run raft --seed " + std::to_string(seed);
  for (const char* opt : {"nodes", "duration", "bug"})
    if (args.has(opt)) reproduce += std::string(" --") + opt + " " + *args.value(opt);
  if (!options.faults) reproduce += " --no-faults";
  if (options.kv) reproduce += " --kv";
  std::printf("seed %llu   reproduce: %s\n", static_cast<unsigned long long>(seed), reproduce.c_str());
  std::fflush(stdout);

  world::RaftWorldResult result;
  auto world = [&](sim::Simulator& sim) { result = world::run_raft_world(sim, options); };
  uint64_t hash = 0;
  bool deterministic = true;
  std::string determinism_report;
  const int64_t wall_start = sim::wall_clock_ns();
  if (args.has("check-determinism")) {
    sim::DeterminismReport report = sim::check_determinism(seed, world);
    deterministic = report.deterministic;
    determinism_report = report.describe();
    hash = report.hash_first;
  } else {
    sim::Simulator sim(seed);
    world(sim);
    hash = sim.trace().hash();
  }
  const double wall_s = static_cast<double>(sim::wall_clock_ns() - wall_start) / 1e9;
  std::printf("%s", result.summary.c_str());
  std::printf("wall time         %.3fs\n", wall_s);
  if (!determinism_report.empty()) std::printf("determinism       %s\n", determinism_report.c_str());
  const std::vector<history::CheckRow> checks = raft_checks(result, args.has("check-determinism"), deterministic,
                                                           determinism_report);
  const history::RunVerdict verdict = history::decide_verdict(checks);
  if (verdict.deciding) std::printf("first violation:  %s\n", history::describe_failure(checks[*verdict.deciding]).c_str());
  std::printf("verdict           %s\n", verdict.exit_code == 0 ? "PASS" : "FAIL");
  std::printf("trace hash %s\n", sim::format_trace_hash(hash).c_str());
  if (auto file = args.value("result")) write_result_file_or_warn(*file, make_result_file(seed, hash, verdict, verdict.exit_code, checks));
  return verdict.exit_code;
}

}  // namespace dst
