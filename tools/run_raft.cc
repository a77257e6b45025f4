#include "tools/run_raft.h"

#include <cstdio>

#include "base/limits.h"
#include "node/raft/config.h"
#include "world/raft_world.h"
#include "sim/determinism.h"
#include "sim/wall_clock.h"
#include "tools/bug_flags.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"

namespace dst {

int run_raft_command(const std::string& self, const std::vector<std::string>& argv) {
  cli::Args args("dst run raft", argv);
  args.option("seed", "N", "the seed (default: a fresh random seed, printed)");
  args.option("nodes", "N", "cluster size, 1 to 9 (default 3)");
  args.option("duration", "D", "how long the nemesis injects faults, e.g. 20s (default 20s)");
  args.flag("no-faults", "run without the nemesis");
  args.flag("kv", "apply a mixed etcd KV load (put, delete, txn, compaction) to SQLite-backed MVCC stores");
  args.option("bug", "NAMES", bug_names_help());
  args.flag("check-determinism", "run the seed twice and report the first diverging event");
  if (std::optional<int> done = args.parse_or_exit()) return *done;
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
  world::RaftWorldOptions options;
  options.nodes = *nodes;
  options.duration = *duration;
  options.faults = !args.has("no-faults");
  options.kv = args.has("kv");
  if (auto bugs = args.value("bug")) {
    Result<BugSet> bits = parse_bug_list(*bugs);
    if (!bits.is_ok()) {
      std::fprintf(stderr, "dst run raft: --bug: %s\n", bits.status().message().c_str());
      return kExitUsage;
    }
    if (bits->node != 0 || bits->kube != 0) {
      std::fprintf(stderr, "dst run raft: --bug: %s is a bug of the KV node or the kube layer; the raft world has only Raft's\n",
                   bugs->c_str());
      return kExitUsage;
    }
    options.bugs = bits->raft;
  }

  std::string reproduce = self + " run raft --seed " + std::to_string(*seed);
  for (const char* opt : {"nodes", "duration", "bug"})
    if (args.has(opt)) reproduce += std::string(" --") + opt + " " + *args.value(opt);
  if (!options.faults) reproduce += " --no-faults";
  if (options.kv) reproduce += " --kv";
  std::printf("seed %llu   reproduce: %s\n", static_cast<unsigned long long>(*seed), reproduce.c_str());
  std::fflush(stdout);

  world::RaftWorldResult result;
  auto world = [&](sim::Simulator& sim) { result = world::run_raft_world(sim, options); };
  uint64_t hash = 0;
  bool deterministic = true;
  std::string determinism_report;
  const int64_t wall_start = sim::wall_clock_ns();
  if (args.has("check-determinism")) {
    sim::DeterminismReport report = sim::check_determinism(*seed, world);
    deterministic = report.deterministic;
    determinism_report = report.describe();
    hash = report.hash_first;
  } else {
    sim::Simulator sim(*seed);
    world(sim);
    hash = sim.trace().hash();
  }
  const double wall_s = static_cast<double>(sim::wall_clock_ns() - wall_start) / 1e9;
  std::printf("%s", result.summary.c_str());
  std::printf("wall time         %.3fs\n", wall_s);
  if (!determinism_report.empty()) std::printf("determinism       %s\n", determinism_report.c_str());
  const bool pass = result.pass() && deterministic;
  std::printf("verdict           %s\n", pass ? "PASS" : "FAIL");
  std::printf("trace hash %s\n", sim::format_trace_hash(hash).c_str());
  return pass ? kExitPass : kExitViolation;
}

}  // namespace dst
