// Child processes of the harness (`dst sweep`, `dst explore`): started with posix_spawn, stdin from
// /dev/null, stdout and stderr into a log file, reaped with waitpid on the calling thread. These
// commands are harnesses around processes, not simulations: they may read the wall clock (through
// sim/wall_clock.h) for timeouts and progress.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace dst {

// Starts argv[0] (looked up on PATH when it has no '/', as the shell would) with `argv`, stdin from
// /dev/null and stdout+stderr into `log` (created or truncated).
Result<pid_t> spawn_logged(const std::vector<std::string>& argv, const std::string& log);

// A log's text; of a huge log only its head and tail (the verdict lines are at the start and the
// end), with a line saying where it was cut.
std::string read_log_bounded(const std::string& path);

// How long a child `dst run` may take before a harness kills it, unless told otherwise (dst sweep
// and dst explore --timeout; dst shrink's candidates).
inline constexpr int64_t kChildTimeoutDefaultNs = 30LL * 60 * 1'000'000'000;

struct ChildCommand {
  std::vector<std::string> argv;
  std::string log;
};

struct ChildExit {
  int exit_code = 0;          // the child's, or 128 + signal as the shell reports a signal
  bool timed_out = false;     // killed because it ran longer than the pool's timeout
  int64_t wall_ns = 0;
  std::string spawn_error;    // not started (exit_code is then 2)
};

// Runs every command, at most `jobs` at once, each killed after `timeout_ns` of wall time (0: never);
// returns their exits in the order of `commands`, whatever order they finished in.
std::vector<ChildExit> run_children(const std::vector<ChildCommand>& commands, size_t jobs, int64_t timeout_ns);

}  // namespace dst
