#include "tools/run_etcd.h"

#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/limits.h"
#include "world/kv_run_world.h"
#include "sim/wall_clock.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "tools/kv_run_command.h"

namespace dst {


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
  args.option("result", "FILE", "write the verdict and every check to FILE as a result file (what dst sweep reads)");
  args.option("out", "DIR", "write the run database to DIR/run.db (docs/run-db.md) and the report to DIR/report/ "
                            "(index.html, plots, summary.md, junit.xml, violation.html; docs/report.md)");
  args.flag("check-determinism", "run the seed twice and report the first diverging event");
  if (std::optional<int> done = args.parse_or_exit()) return *done;
  Result<uint64_t> seed = args.has("seed") ? args.u64("seed", 0) : Result<uint64_t>(sim::fresh_seed());
  Result<uint64_t> clients = args.u64("clients", 4);
  Result<uint64_t> rate = args.u64("rate", 50);
  Result<uint64_t> watchers = args.u64("watchers", 2);
  Result<int64_t> duration = args.duration_ns("duration", sim::seconds(20), limits::kScenarioRunForNsMin, limits::kScenarioRunForNsMax);
  Result<int64_t> fault_interval = args.duration_ns("fault-interval", sim::milliseconds(700), sim::milliseconds(10), limits::kScenarioRunForNsMax);
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
  world::KvRunOptions options;
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
  KvRunSpec spec;
  spec.command = "dst run etcd";
  spec.scenario = "dst run etcd";
  spec.seed = *seed;
  spec.reproduce = reproduce;
  spec.options = options;
  spec.out = args.value("out");
  spec.result_file = args.value("result");
  spec.check_determinism = args.has("check-determinism");
  return run_kv_command(spec);
}

}  // namespace dst
