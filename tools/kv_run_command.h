// Running a KV world and checking it, the part `dst run etcd` and `dst run SCENARIO.lua` share:
// the run database, --check-determinism, the checkers, the printed summary, the violation page,
// the verdict and exit code. The first line printed is the seed and reproduce command, the last
// the trace hash.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "world/kv_run_world.h"

namespace dst {

struct KvRunSpec {
  std::string command;   // "dst run etcd", for messages
  std::string scenario;  // what the run database records as the scenario
  uint64_t seed = 0;
  std::string reproduce;  // the exact command line that reproduces the run
  world::KvRunOptions options;
  std::optional<std::string> out;  // DIR for run.db and the pages
  bool check_determinism = false;
  // What the checks require (a scenario's check{}); off means reported but not failing.
  bool require_linearizable = true;
  bool require_watch = true;
  bool require_liveness = true;
  bool require_durability = true;
  // Called before each simulated run (twice with --check-determinism) to give it fresh per-run
  // hooks (a scenario's Lua state and nemesis); may be empty.
  std::function<void(world::KvRunOptions&)> prepare_run;
  // After the (last) run: a scenario error raised while running (exit 2), and lines to print.
  // (The fault lines come from the world's nemesis: KvRunResult::fault_log.)
  std::function<std::optional<std::string>()> runtime_error;
  std::function<std::vector<std::string>()> kube_lines;  // what the apiservers and controllers did
  std::vector<std::string> header_lines;  // printed after the seed line (e.g. what swarm{} drew)
  // --result FILE: the verdict and the checks as a result file (run_result_file.h), for dst sweep.
  std::optional<std::string> result_file;
  // Coverage names the scenario declared its sweeps must reach (must_reach{}): written to the
  // result file, so that the sweep fails when no seed reached one.
  std::vector<std::string> must_reach;
};

// Runs it, prints the report and returns the exit code (0 pass, 1 violation, 2 usage/scenario
// error, 3 a checker gave up).
int run_kv_command(const KvRunSpec& spec);

}  // namespace dst
