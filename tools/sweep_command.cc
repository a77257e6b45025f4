// See sweep_command.h. The sweep is a harness around processes, not a simulation: it may read the
// wall clock (through sim/wall_clock.h) for progress and timing, and it runs its children with
// posix_spawn and reaps them with waitpid, one thread, in seed order. Everything it reports is
// sorted by seed, so its output does not depend on which child finished first (except the progress
// lines on stderr, which are about time by nature).
#include "tools/sweep_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "sim/time.h"
#include "sim/wall_clock.h"
#include "runs/child_pool.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "tools/run_result_file.h"
#include "tools/sweep_coverage.h"
#include "tools/sweep_results.h"


namespace dst {
namespace {

using sweep::SeedResult;
using sweep::Verdict;

// At most this many children at once: beyond it a machine thrashes, whatever its core count.
constexpr uint64_t kMaxJobs = 256;
// How often the reaping loop looks for finished children and overdue ones while none finished.
constexpr int64_t kPollNs = 20'000'000;
// How often the progress line on a terminal is redrawn while nothing finishes.
constexpr int64_t kTtyRefreshNs = 250'000'000;
// A seed that runs longer than this is killed and counted as a timeout: a simulated run that hangs
// is a bug, and a sweep must end. Generous, since scenarios may simulate long stretches.

struct SweepOptions {
  std::string dst_path;         // the binary the children run
  sweep::SweepHeader header;    // scenario, run args, the range and this shard
  uint64_t jobs = 1;
  std::string out_dir;          // where logs and sweep.tsv go: --out DIR, or a temporary directory
  bool out_given = false;       // --out given: logs and results stay there
  bool run_out = false;         // each child gets --out DIR/seed-S (with --out, unless --no-run-out)
  bool keep_passing = false;    // keep DIR/seed-S of passing seeds (removed by default: they pass)
  bool fail_fast = false;       // start no seed after the first one that fails
  int64_t timeout_ns = kChildTimeoutDefaultNs;  // 0: no limit
};

std::string log_path(const SweepOptions& o, uint64_t seed) { return o.out_dir + "/seed-" + std::to_string(seed) + ".log"; }
std::string run_dir(const SweepOptions& o, uint64_t seed) { return o.out_dir + "/seed-" + std::to_string(seed); }
std::string result_path(const SweepOptions& o, uint64_t seed) {
  return o.out_dir + "/seed-" + std::to_string(seed) + ".result";
}

std::string format_seconds(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fs", static_cast<double>(ns) / 1e9);
  return buf;
}

const char* kMoreHelp =
    "\nRuns `DST run SCENARIO --seed S [--out DIR/seed-S] RUN ARGS...` for each seed S of A..B that this\n"
    "shard owns (S mod N == I), at most J at once; each child's stdout and stderr go to DIR/seed-S.log.\n"
    "Shard index from --shard I/N, else JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID with the count\n"
    "from --shards N or DST_SHARDS. Writes DIR/sweep.tsv and DIR/coverage.tsv (what the seeds reached:\n"
    "probes and the API surface; merge shards with `dst merge`).\n"
    "Exit: 1 a seed violated, crashed or timed out, or a must_reach{} name was reached by no seed; else\n"
    "3 a checker gave up; else 2 usage or scenario error; else 0. See docs/sweep.md.\n";

// Parses the command line into `o`; returns an exit code when the command is done (help, usage error).
std::optional<int> parse_options(const std::string& self, const std::vector<std::string>& argv, SweepOptions* o) {
  cli::Args args("dst sweep", argv);
  args.positional("SCENARIO", "what `dst run` runs: a built-in world (etcd, raft, demo) or a scenario file", false);
  args.option("seeds", "A..B", "the seeds to run, inclusive (or a single seed N); required");
  args.option("jobs", "J", "children at once (default: the number of online CPUs)");
  args.option("shard", "I/N", "run only the seeds S with S mod N == I");
  args.option("shards", "N", "the shard count, with the index from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID");
  args.option("out", "DIR", "logs, sweep.tsv and each seed's --out DIR/seed-S (default: a temporary directory)");
  args.option("dst", "PATH", "the dst binary the children run (default: this one)");
  args.option("timeout", "D", "kill a seed after this much wall time, e.g. 10m; 0 for none (default 30m)");
  args.flag("keep-passing", "keep DIR/seed-S of passing seeds (by default only their logs stay)");
  args.flag("fail-fast", "start no seed after the first failing one; the seeds already running finish");
  args.flag("no-run-out", "do not pass --out DIR/seed-S to the runs: logs only (for worlds without --out: raft, demo)");
  if (std::optional<int> done = args.parse_or_exit(kMoreHelp)) return done;

  o->header.scenario = *args.positional_value("SCENARIO");
  o->header.extra = args.passthrough();
  if (!args.has("seeds")) return args.usage_error("dst sweep: --seeds A..B is required");
  Result<sweep::SeedRange> range = sweep::parse_seed_range(*args.value("seeds"));
  if (!range.is_ok()) return args.usage_error("dst sweep: " + range.status().message());
  o->header.seeds = {*range};
  Result<sweep::Shard> shard =
      sweep::resolve_shard(sweep::shard_sources_from_environment(args.value("shard"), args.value("shards")));
  if (!shard.is_ok()) return args.usage_error("dst sweep: " + shard.status().message());
  o->header.shard = *shard;
  if (sweep::shard_seed_count(*range, *shard) > sweep::kMaxSweepSeeds) {
    return args.usage_error("dst sweep: --seeds " + range->to_string() + " gives this process more than " +
                           std::to_string(sweep::kMaxSweepSeeds) + " seeds; shard the sweep");
  }
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  Result<uint64_t> jobs = args.u64("jobs", cpus > 0 ? static_cast<uint64_t>(cpus) : 1);
  if (!jobs.is_ok()) return args.usage_error(jobs.status().message());
  if (*jobs < 1 || *jobs > kMaxJobs) return args.usage_error("dst sweep: --jobs must be 1.." + std::to_string(kMaxJobs));
  o->jobs = *jobs;
  Result<int64_t> timeout = args.value("timeout") == "0" ? Result<int64_t>(0) : args.duration_ns("timeout", kChildTimeoutDefaultNs, sim::seconds(1), sim::seconds(24 * 3600));
  if (!timeout.is_ok()) return args.usage_error(timeout.status().message());
  o->timeout_ns = *timeout;
  if (Status st = sweep::check_extra_args(o->header.extra); !st.is_ok()) return args.usage_error("dst sweep: " + st.message());
  for (const std::string& a : o->header.extra) {
    // The sweep owns these: every child gets its own seed and output directory.
    if (a == "--seed" || a.rfind("--seed=", 0) == 0 || a == "--out" || a.rfind("--out=", 0) == 0 || a == "--result" ||
        a.rfind("--result=", 0) == 0) {
      return args.usage_error("dst sweep: '" + a + "' after -- would clash with the sweep's own per-seed value");
    }
  }
  o->dst_path = args.value("dst").value_or(self);
  o->out_given = args.has("out");
  o->out_dir = args.value("out").value_or("");
  o->run_out = o->out_given && !args.has("no-run-out");
  o->keep_passing = args.has("keep-passing");
  o->fail_fast = args.has("fail-fast");
  return std::nullopt;
}

// Creates the output directory (or a temporary one); an error message, or "" on success.
std::string prepare_out_dir(SweepOptions* o) {
  if (o->out_given) {
    std::error_code ec;
    std::filesystem::create_directories(o->out_dir, ec);
    return ec ? "dst sweep: --out " + o->out_dir + ": " + ec.message() : "";
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/dst-sweep-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) return "dst sweep: cannot create a temporary directory " + templ + ": " + std::strerror(errno);
  o->out_dir = templ;
  return "";
}

// Starts `dst run SCENARIO --seed S ...` with stdin from /dev/null and stdout+stderr into the log.
Result<pid_t> spawn_seed(const SweepOptions& o, uint64_t seed) {
  std::vector<std::string> args = {o.dst_path, "run", o.header.scenario, "--seed", std::to_string(seed)};
  if (o.run_out) {
    args.push_back("--out");
    args.push_back(run_dir(o, seed));
  }
  // The child reports through a result file (run_result_file.h), not through its output; one left
  // by an earlier sweep in the same DIR must not pass for this child's.
  std::error_code ec;
  std::filesystem::remove(result_path(o, seed), ec);
  std::filesystem::remove(result_path(o, seed) + ".tmp", ec);
  args.push_back("--result");
  args.push_back(result_path(o, seed));
  args.insert(args.end(), o.header.extra.begin(), o.header.extra.end());
  return spawn_logged(args, log_path(o, seed));
}

struct Running {
  uint64_t seed = 0;
  int64_t started_ns = 0;
  bool killed_for_timeout = false;
};

// Turns a reaped child into its row: verdict from the exit status; hash, violation and what it
// reached (into `coverage`) from its result file.
SeedResult finish_seed(const SweepOptions& o, const Running& run, int status, int64_t now_ns, sweep::SweepCoverage& coverage) {
  SeedResult r;
  r.seed = run.seed;
  r.wall_ms = (now_ns - run.started_ns) / 1'000'000;
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else {
    DST_ASSERT(WIFSIGNALED(status));
    r.exit_code = 128 + WTERMSIG(status);  // the shell's convention
  }
  r.verdict = run.killed_for_timeout ? Verdict::kTimeout : sweep::verdict_from_exit_code(r.exit_code);
  // The verdict is the exit status; what failed and the trace hash come from the result file.
  Result<RunResultFile> result = read_result_file(result_path(o, run.seed));
  if (result.is_ok() && (result->seed != run.seed || result->exit_code != r.exit_code))
    result = Status(StatusCode::kInvalidArgument, result_path(o, run.seed) + ": written for another seed or exit code");
  if (result.is_ok()) {
    r.trace_hash = result->trace_hash;
    if (r.verdict != Verdict::kPass) r.first_violation = sweep::one_line(result->first_failure);
    coverage.add_seed(run.seed, result->coverage, result->must_reach);
  }
  if (r.verdict == Verdict::kTimeout) {
    r.first_violation = "timed out after " + format_seconds(o.timeout_ns) + " of wall time (killed)";
    std::ofstream(log_path(o, run.seed), std::ios::app) << "\ndst sweep: " << r.first_violation << "\n";
  } else if (!result.is_ok() && r.verdict != Verdict::kPass) {
    r.first_violation = sweep::stop_reason_from_log(read_log_bounded(log_path(o, run.seed)));
    if (r.verdict == Verdict::kViolation || r.verdict == Verdict::kUnknown)
      r.first_violation = "no result file (" + result.status().message() + "); " + r.first_violation;
  }
  if (r.verdict == Verdict::kCrash && r.first_violation.empty()) {
    r.first_violation = WIFSIGNALED(status) ? std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                                                  strsignal(WTERMSIG(status)) + ")"
                                            : "unexpected exit code " + std::to_string(r.exit_code);
  }
  if (r.verdict == Verdict::kPass && o.run_out && !o.keep_passing) {
    std::error_code ec;  // best effort: the seed passed and reproduces from its seed anyway
    std::filesystem::remove_all(run_dir(o, run.seed), ec);
  }
  return r;
}

// The progress report on stderr: a line redrawn in place on a terminal, one line per seed otherwise.
class Progress {
 public:
  Progress(std::string scenario, uint64_t total, int64_t start_ns)
      : scenario_(std::move(scenario)), total_(total), start_ns_(start_ns), tty_(isatty(STDERR_FILENO) == 1) {}

  void seed_done(const SeedResult& r, size_t running, int64_t now_ns) {
    ++done_;
    if (r.verdict != Verdict::kPass) ++failing_;
    if (!tty_) {
      std::fprintf(stderr, "sweep: [%llu/%llu] seed %llu %s %.3fs (%llu failing, %s elapsed)\n", ull(done_), ull(total_),
                   ull(r.seed), sweep::verdict_name(r.verdict), static_cast<double>(r.wall_ms) / 1e3, ull(failing_),
                   format_seconds(now_ns - start_ns_).c_str());
      return;
    }
    if (r.verdict != Verdict::kPass) {  // a failure stays on screen above the progress line
      std::fprintf(stderr, "\r\033[Kseed %llu %s: %s\n", ull(r.seed), sweep::verdict_name(r.verdict), r.first_violation.c_str());
    }
    redraw(running, now_ns);
  }

  void tick(size_t running, int64_t now_ns) {
    if (tty_ && now_ns - last_draw_ns_ >= kTtyRefreshNs) redraw(running, now_ns);
  }

  void finish() {
    if (tty_ && last_draw_ns_ != 0) std::fprintf(stderr, "\n");
  }

 private:
  static unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }
  void redraw(size_t running, int64_t now_ns) {
    std::fprintf(stderr, "\r\033[Ksweep %s: %llu/%llu done, %llu failing, %zu running, %s", scenario_.c_str(), ull(done_),
                 ull(total_), ull(failing_), running, format_seconds(now_ns - start_ns_).c_str());
    std::fflush(stderr);
    last_draw_ns_ = now_ns;
  }

  std::string scenario_;
  uint64_t total_;
  int64_t start_ns_;
  bool tty_;
  uint64_t done_ = 0, failing_ = 0;
  int64_t last_draw_ns_ = 0;
};

void sleep_ns(int64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

// Runs every seed (with --fail-fast, until one fails), at most o.jobs at once; returns the rows
// (in completion order) and adds up what the seeds reached.
std::vector<SeedResult> run_seeds(const SweepOptions& o, const std::vector<uint64_t>& seeds, int64_t start_ns,
                                  sweep::SweepCoverage& coverage) {
  std::vector<SeedResult> rows;
  std::map<pid_t, Running> running;
  Progress progress(o.header.scenario, seeds.size(), start_ns);
  size_t next = 0;
  auto stopping = [&] {
    return o.fail_fast && std::any_of(rows.begin(), rows.end(), [](const SeedResult& r) { return r.verdict != Verdict::kPass; });
  };
  while ((next < seeds.size() && !stopping()) || !running.empty()) {
    while (running.size() < o.jobs && next < seeds.size() && !stopping()) {
      const uint64_t seed = seeds[next++];
      Result<pid_t> pid = spawn_seed(o, seed);
      if (pid.is_ok()) {
        running[*pid] = Running{seed, sim::wall_clock_ns(), false};
        continue;
      }
      // Not starting is the harness's problem, not the seed's: an error row, and the sweep goes on.
      SeedResult r{seed, kExitUsage, Verdict::kError, "", 0, pid.status().message()};
      rows.push_back(r);
      progress.seed_done(r, running.size(), sim::wall_clock_ns());
    }
    if (running.empty()) continue;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    const int64_t now = sim::wall_clock_ns();
    if (pid > 0) {
      auto it = running.find(pid);
      DST_ASSERT_MSG(it != running.end(), "reaped a child the sweep did not start");
      rows.push_back(finish_seed(o, it->second, status, now, coverage));
      running.erase(it);
      progress.seed_done(rows.back(), running.size(), now);
      continue;
    }
    DST_ASSERT_MSG(pid == 0 || errno == EINTR, std::string("waitpid: ") + std::strerror(errno));
    for (auto& [child, run] : running) {
      if (o.timeout_ns > 0 && !run.killed_for_timeout && now - run.started_ns > o.timeout_ns) {
        run.killed_for_timeout = true;
        kill(child, SIGKILL);  // reaped by the next waitpid like any other exit
      }
    }
    progress.tick(running.size(), now);
    sleep_ns(kPollNs);
  }
  progress.finish();
  return rows;
}

Status write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) return Status(StatusCode::kIoError, "cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status(StatusCode::kIoError, "cannot rename " + tmp + " to " + path + ": " + ec.message());
  return Status::ok();
}

}  // namespace

int sweep_command(const std::string& self, const std::vector<std::string>& argv) {
  SweepOptions o;
  if (std::optional<int> done = parse_options(self, argv, &o)) return *done;
  if (std::string err = prepare_out_dir(&o); !err.empty()) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return kExitUsage;
  }
  const std::vector<uint64_t> seeds = sweep::shard_seeds(o.header.seeds.front(), o.header.shard);
  const int64_t start_ns = sim::wall_clock_ns();
  sweep::SweepCoverage coverage;
  sweep::SweepResults results{o.header, run_seeds(o, seeds, start_ns, coverage)};
  const int64_t elapsed_ns = sim::wall_clock_ns() - start_ns;
  std::sort(results.rows.begin(), results.rows.end(), [](const SeedResult& a, const SeedResult& b) { return a.seed < b.seed; });
  if (o.fail_fast && results.rows.size() < seeds.size()) {
    // Stopped early: the seeds run are the first of this shard's, and the files say so.
    DST_ASSERT(!results.rows.empty());
    results.header.seeds = {sweep::SeedRange{o.header.seeds.front().first, results.rows.back().seed}};
  }
  DST_ASSERT_EQ(results.rows.size(), sweep::shard_seed_count(results.header.seeds.front(), results.header.shard));

  const std::string results_path = o.out_dir + "/sweep.tsv";
  Status written = write_file_atomically(results_path, sweep::format_results(results));
  if (written.is_ok()) written = write_file_atomically(o.out_dir + "/coverage.tsv", sweep::format_coverage(coverage));
  // The tables alone, for CI pages and for comparing with `dst merge` of the shards.
  if (written.is_ok())
    written = write_file_atomically(o.out_dir + "/summary.txt",
                                    sweep::format_summary(results) + sweep::format_coverage_summary(coverage));
  int code = sweep::sweep_exit_code(results.rows);
  if (code == kExitPass && !coverage.missed().empty()) code = kExitViolation;  // a must_reach{} name no seed reached
  int64_t seed_ms = 0;
  for (const SeedResult& r : results.rows) seed_ms += r.wall_ms;
  std::printf("%s", sweep::format_summary(results).c_str());
  std::printf("%s", sweep::format_coverage_summary(coverage).c_str());
  if (results.rows.size() < seeds.size())
    std::printf("fail-fast         stopped after %zu of %zu seeds\n", results.rows.size(), seeds.size());
  std::printf("wall time         %s elapsed, %s in seeds, %llu jobs\n", format_seconds(elapsed_ns).c_str(),
              format_seconds(seed_ms * 1'000'000).c_str(), static_cast<unsigned long long>(o.jobs));
  if (!o.out_given && code == kExitPass && written.is_ok()) {
    // Nothing to look at: every seed passed and the summary above says so.
    std::error_code ec;
    std::filesystem::remove_all(o.out_dir, ec);
    std::printf("logs              removed (all passed; --out DIR keeps them)\n");
  } else {
    std::printf("logs              %s/seed-S.log\n", o.out_dir.c_str());
    if (written.is_ok()) std::printf("results           %s\n", results_path.c_str());
  }
  if (!written.is_ok()) {
    std::fprintf(stderr, "dst sweep: %s\n", written.to_string().c_str());
    return code == kExitPass ? kExitUsage : code;
  }
  return code;
}

}  // namespace dst
