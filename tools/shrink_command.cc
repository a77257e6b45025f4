#include "tools/shrink_command.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <variant>

#include "faults/schedule_text.h"
#include "scenarios/schedule_file.h"
#include "sim/wall_clock.h"
#include "tools/child_pool.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "tools/run_result_file.h"
#include "tools/shrink_search.h"

namespace dst {
namespace {

constexpr uint64_t kMaxJobs = 256;
constexpr uint64_t kMaxRunsCeiling = 100'000;

const char kMoreHelp[] =
    "\nRuns SCENARIO with --seed N (and the arguments after --, e.g. -- --bug stale-read), and if it fails,\n"
    "replays its fault schedule with fewer and fewer steps (delta debugging) while the same check still\n"
    "fails. Writes DIR/shrunk.schedule.lua (replay: dst run --schedule FILE) and DIR/minimal (its run\n"
    "database and report). The result depends on the input and --max-runs only, not on --jobs.\n"
    "Exit: 0 shrunk; 1 the shrunk schedule did not fail again the same way (not deterministic);\n"
    "2 usage error, or the run does not fail; 3 the original run's checker gave up.\n";

// Set by SIGINT or SIGTERM: the search stops and writes the smallest failing schedule so far.
volatile sig_atomic_t g_interrupted = 0;
void on_interrupt(int) { g_interrupted = 1; }

struct ShrinkOptions {
  std::string scenario;
  std::string run_db;  // dst shrink RUN.db: the run to shrink is recorded there
  std::string seed;
  std::vector<std::string> extra;  // after --: passed to every run
  size_t jobs = 1;
  size_t max_runs = 1000;
  int64_t budget_ns = 0;  // wall time; 0: none
  std::string out_dir;
  std::string dst_path;
  bool any_violation = false;
};

std::optional<int> parse_options(const std::string& self, const std::vector<std::string>& argv, ShrinkOptions* o) {
  cli::Args args("dst shrink", argv);
  args.positional("SCENARIO", "the scenario file whose run fails, or the run database (RUN.db) of that run", false);
  args.option("seed", "N", "the failing seed; required with a scenario");
  args.option("jobs", "J", "candidate runs at once (default 1); never changes the result");
  args.option("max-runs", "N", "stop after this many candidate runs, keeping the smallest failing schedule (default 1000)");
  args.option("budget", "D", "stop after this much wall time (e.g. 5m) with the smallest failing schedule so far");
  args.option("out", "DIR", "where the runs, DIR/shrunk.schedule.lua and DIR/minimal go (default: dst-shrink-out)");
  args.option("dst", "PATH", "the dst binary the runs use (default: this one)");
  args.flag("any-violation", "keep a candidate whatever check it fails (default: only the original's check)");
  if (std::optional<int> done = args.parse_or_exit(kMoreHelp)) return done;
  const std::string input = *args.positional_value("SCENARIO");
  const bool db = input.size() > 3 && input.compare(input.size() - 3, 3, ".db") == 0;
  (db ? o->run_db : o->scenario) = input;
  if (db && args.has("seed")) return args.usage_error("dst shrink: a run database names its seed; no --seed");
  if (!db && !args.has("seed")) return args.usage_error("dst shrink: --seed N is required");
  Result<uint64_t> seed = args.u64("seed", 0);
  if (!seed.is_ok()) return args.usage_error(seed.status().message());
  o->seed = std::to_string(*seed);
  Result<int64_t> budget = args.duration_ns("budget", 0, 1'000'000, 7LL * 24 * 3600 * 1'000'000'000);
  if (!budget.is_ok()) return args.usage_error(budget.status().message());
  o->budget_ns = *budget;
  Result<uint64_t> jobs = args.u64("jobs", 1);
  if (!jobs.is_ok() || *jobs < 1 || *jobs > kMaxJobs)
    return args.usage_error("dst shrink: --jobs must be 1.." + std::to_string(kMaxJobs));
  o->jobs = *jobs;
  Result<uint64_t> runs = args.u64("max-runs", 1000);
  if (!runs.is_ok() || *runs < 1 || *runs > kMaxRunsCeiling)
    return args.usage_error("dst shrink: --max-runs must be 1.." + std::to_string(kMaxRunsCeiling));
  o->max_runs = *runs;
  o->extra = args.passthrough();
  for (const std::string& a : o->extra) {
    // The shrink owns these; and dst run refuses a fork (--fork) of a replayed schedule.
    for (const char* owned : {"--seed", "--out", "--result", "--schedule", "--fork"}) {
      if (a == owned || a.rfind(std::string(owned) + "=", 0) == 0)
        return args.usage_error("dst shrink: '" + a + "' after -- would clash with the shrink's own runs");
    }
  }
  o->out_dir = args.value("out").value_or("dst-shrink-out");
  if (db) {
    // DIR/original and DIR/minimal are rewritten by every shrink: an input there would be lost.
    std::error_code ec;
    const std::filesystem::path in = std::filesystem::weakly_canonical(input, ec);
    for (const char* sub : {"/original", "/minimal"}) {
      const std::filesystem::path dir = std::filesystem::weakly_canonical(o->out_dir + sub, ec);
      auto rel = in.lexically_relative(dir);
      if (!rel.empty() && *rel.begin() != "..")
        return args.usage_error("dst shrink: " + input + " is in " + o->out_dir + sub + ", which this shrink rewrites; copy it "
                           "elsewhere or choose another --out");
    }
  }
  o->dst_path = args.value("dst").value_or(self);
  o->any_violation = args.has("any-violation");
  return std::nullopt;
}

// The check a failure names: "linearizability: stale-read: ..." -> "linearizability".
std::string check_name(const std::string& first_failure) { return first_failure.substr(0, first_failure.find(':')); }

// `dst run ARGS --result STEM.result RUN ARGS`, logged to STEM.log; a result file left by an
// earlier shrink in the same directory is removed first, so it cannot pass for this run's.
ChildCommand run_command(const ShrinkOptions& o, std::vector<std::string> args, const std::string& stem) {
  std::error_code ec;
  std::filesystem::remove(stem + ".result", ec);
  args.insert(args.begin(), {o.dst_path, "run"});
  args.insert(args.end(), {"--result", stem + ".result"});
  args.insert(args.end(), o.extra.begin(), o.extra.end());
  return ChildCommand{args, stem + ".log"};
}

// One child `dst run` and its result file; an error says why there is no result.
Result<RunResultFile> run_child(const ShrinkOptions& o, std::vector<std::string> args, const std::string& stem) {
  const std::vector<ChildExit> exits = run_children({run_command(o, std::move(args), stem)}, 1, kChildTimeoutDefaultNs);
  if (!exits[0].spawn_error.empty()) return Status(StatusCode::kUnavailable, exits[0].spawn_error);
  return read_result_file(stem + ".result");
}

// The original schedule cut into what a candidate keeps always (configuration steps and the
// random generator's last wake: they do not act) and the steps the search may drop.
struct Steps {
  faults::Schedule fixed;           // scenario, seed, bugs and the steps every candidate keeps
  std::vector<faults::FaultStep> droppable;
};

Steps split_steps(faults::Schedule original) {
  Steps out;
  out.fixed = original;
  out.fixed.steps.clear();
  for (faults::FaultStep& step : original.steps) {
    const bool fixed = step.origin == faults::Origin::kConfig || step.kind == faults::FaultKind::kStop;
    (fixed ? out.fixed.steps : out.droppable).push_back(std::move(step));
  }
  return out;
}

// The schedule of a candidate: the fixed steps and the kept ones, in the original order by time.
faults::Schedule candidate_schedule(const Steps& steps, const std::vector<size_t>& kept) {
  faults::Schedule s = steps.fixed;
  for (size_t i : kept) s.steps.push_back(steps.droppable[i]);
  std::stable_sort(s.steps.begin(), s.steps.end(),
                   [](const faults::FaultStep& a, const faults::FaultStep& b) { return a.at < b.at; });
  return s;
}

class Shrinker {
 public:
  Shrinker(const ShrinkOptions& o, Steps steps, std::string check, int64_t start_ns)
      : o_(o), steps_(std::move(steps)), check_(std::move(check)), start_ns_(start_ns) {}

  // Runs the candidates (at most --jobs at once) and says what each showed.
  std::vector<shrink::Outcome> run(const std::vector<std::vector<size_t>>& candidates) {
    std::vector<ChildCommand> commands;
    std::vector<std::string> stems;
    for (const auto& kept : candidates) {
      const std::string stem = o_.out_dir + "/runs/c" + std::to_string(next_++);
      std::error_code ec;
      std::filesystem::remove(stem + ".schedule.lua", ec);
      // A file that cannot be written leaves no schedule: the child's run fails and is not kept.
      std::ofstream(stem + ".schedule.lua") << faults::schedule_to_lua(candidate_schedule(steps_, kept), o_.scenario);
      commands.push_back(run_command(o_, {"--schedule", stem + ".schedule.lua"}, stem));
      stems.push_back(stem);
    }
    run_children(commands, o_.jobs, kChildTimeoutDefaultNs);
    std::vector<shrink::Outcome> out;
    for (size_t i = 0; i < candidates.size(); ++i) {
      out.push_back(outcome(stems[i], candidates[i]));
      if (out.back() == shrink::Outcome::kFails && (!smallest_ || candidates[i].size() < smallest_->size()))
        smallest_ = candidates[i];
    }
    made_ += candidates.size();
    progress();
    return out;
  }

  // The trace hash of the run that showed `kept` ("" if it was never run).
  std::string trace_hash_of(const std::vector<size_t>& kept) const {
    auto it = hashes_.find(kept);
    return it == hashes_.end() ? "" : it->second;
  }

 private:
  shrink::Outcome outcome(const std::string& stem, const std::vector<size_t>& kept) {
    Result<RunResultFile> r = read_result_file(stem + ".result");
    if (!r.is_ok()) return shrink::Outcome::kOther;  // crashed or refused the schedule: never kept
    hashes_[kept] = r->trace_hash;
    if (r->verdict == "pass") return shrink::Outcome::kPasses;
    if (r->verdict != "violation") return shrink::Outcome::kOther;
    if (o_.any_violation || check_name(r->first_failure) == check_) return shrink::Outcome::kFails;
    return shrink::Outcome::kOther;
  }

  void progress() const {
    std::fprintf(stderr, "shrink: %zu runs, smallest failing schedule so far %zu of %zu steps, %.1fs elapsed\n", made_,
                 smallest_ ? smallest_->size() : steps_.droppable.size(), steps_.droppable.size(),
                 static_cast<double>(sim::wall_clock_ns() - start_ns_) / 1e9);
  }

  const ShrinkOptions& o_;
  Steps steps_;
  std::string check_;
  int64_t start_ns_;
  size_t next_ = 0;
  size_t made_ = 0;
  std::optional<std::vector<size_t>> smallest_;
  std::map<std::vector<size_t>, std::string> hashes_;
};

// Runs the original (the scenario as given, or the run database's schedule replayed), recorded in
// DIR/original; its result, or an exit code.
std::variant<RunResultFile, int> run_original(const ShrinkOptions& o) {
  const std::string stem = o.out_dir + "/original";
  std::error_code ec;
  std::filesystem::remove_all(stem, ec);
  const std::vector<std::string> args = o.run_db.empty()
                                            ? std::vector<std::string>{o.scenario, "--seed", o.seed, "--out", stem}
                                            : std::vector<std::string>{"--schedule", stem + ".schedule.lua", "--out", stem};
  Result<RunResultFile> r = run_child(o, args, stem);
  if (!r.is_ok()) {
    std::fprintf(stderr, "dst shrink: the run left no result (%s); see %s.log\n", r.status().message().c_str(), stem.c_str());
    return kExitUsage;
  }
  if (r->verdict == "violation") return *r;
  if (r->verdict == "pass") {
    std::fprintf(stderr, "dst shrink: %s --seed %s passes: nothing to shrink\n", o.scenario.c_str(), o.seed.c_str());
    return kExitUsage;
  }
  std::fprintf(stderr, "dst shrink: the run ended '%s', not with a violation: %s (see %s.log)\n", r->verdict.c_str(),
               r->first_failure.c_str(), stem.c_str());
  return r->verdict == "unknown" ? kExitGaveUp : kExitUsage;
}

// The fault schedule of the run recorded in `db`, written by `dst schedule` to
// DIR/original.schedule.lua.
Result<faults::Schedule> original_schedule(const ShrinkOptions& o, const std::string& db) {
  const std::string file = o.out_dir + "/original.schedule.lua";
  const std::vector<ChildExit> exits = run_children({ChildCommand{{o.dst_path, "schedule", db}, file}}, 1, kChildTimeoutDefaultNs);
  if (!exits[0].spawn_error.empty()) return Status(StatusCode::kUnavailable, exits[0].spawn_error);
  if (exits[0].exit_code != kExitPass)
    return Status(StatusCode::kInvalidArgument, "dst schedule failed: " + read_log_bounded(file));
  return scenarios::load_schedule(file);
}

// The comment the shrunk schedule starts with: where it came from, the check, the reduction.
std::string shrunk_header(const ShrinkOptions& o, const Steps& steps, const shrink::SearchResult& r,
                          const RunResultFile& original, int64_t start_ns) {
  std::string extra;
  for (const std::string& a : o.extra) extra += " " + a;
  char line[512];
  std::snprintf(line, sizeof line, "-- reduction: fault steps %zu -> %zu in %zu runs (%.1f s of wall time)%s\n",
                steps.droppable.size(), r.kept.size(), r.runs, static_cast<double>(sim::wall_clock_ns() - start_ns) / 1e9,
                r.budget_spent || r.stopped ? "; stopped early: may not be minimal" : "; 1-minimal");
  std::string failure = original.first_failure.substr(0, 300);
  for (char& c : failure)
    if (c == '\n' || c == '\r') c = ' ';
  return "-- Shrunk by: dst shrink " + (o.run_db.empty() ? o.scenario + " --seed " + o.seed : o.run_db) +
         (extra.empty() ? "" : " --" + extra) + "\n-- The check that fails: " + failure + "\n" + line + "--\n";
}

// Writes the shrunk schedule, runs it recorded in DIR/minimal and checks that it fails again the
// same way (same trace hash as its candidate run); the exit code.
int finish(const ShrinkOptions& o, const Shrinker& shrinker, const Steps& steps, const shrink::SearchResult& r,
           const RunResultFile& original, int64_t start_ns) {
  const std::string check = check_name(original.first_failure);
  const std::string file = o.out_dir + "/shrunk.schedule.lua";
  std::error_code removed;
  std::filesystem::remove(file, removed);
  std::ofstream(file) << shrunk_header(o, steps, r, original, start_ns)
                      << faults::schedule_to_lua(candidate_schedule(steps, r.kept), o.scenario);
  const std::string stem = o.out_dir + "/minimal";
  std::error_code ec;
  std::filesystem::remove_all(stem, ec);
  Result<RunResultFile> again = run_child(o, {"--schedule", file, "--out", stem}, stem);
  // The run that showed this schedule fail; for the whole schedule, the original run (a replay of
  // an unedited schedule gives the original trace hash).
  std::string expected = shrinker.trace_hash_of(r.kept);
  if (expected.empty() && r.kept.size() == steps.droppable.size()) expected = original.trace_hash;
  std::printf("faults            %zu -> %zu steps (%zu fixed: configuration)\n", steps.droppable.size(), r.kept.size(),
              steps.fixed.steps.size());
  std::printf("runs              %zu (%zu made with --jobs %zu)%s\n", r.runs, r.runs_made, o.jobs,
              r.budget_spent ? ", --max-runs spent: the schedule fails but may not be minimal"
              : r.stopped    ? ", stopped (interrupted or --budget spent): the schedule fails but may not be minimal"
                             : ", 1-minimal");
  std::printf("wall time         %.1fs\n", static_cast<double>(sim::wall_clock_ns() - start_ns) / 1e9);
  std::printf("shrunk schedule   %s  (dst run --schedule %s)\n", file.c_str(), file.c_str());
  if (!again.is_ok() || again->verdict != "violation" || (!o.any_violation && check_name(again->first_failure) != check) ||
      again->trace_hash != expected) {
    std::printf("verdict           NOT REPRODUCED: the shrunk schedule's run in %s did not fail the same way again\n",
                stem.c_str());
    return kExitViolation;
  }
  std::printf("failure           %s\n", again->first_failure.c_str());
  std::printf("minimal run       %s (run.db and report/), trace hash %s\n", stem.c_str(), again->trace_hash.c_str());
  return kExitPass;
}

// The original's result and schedule: for a scenario, its run and then that run's schedule; for a
// run database, its schedule and then the replay of it (which names the failing check). Fills in
// the scenario and seed from the schedule.
std::variant<std::pair<RunResultFile, faults::Schedule>, int> original_run_and_schedule(ShrinkOptions& o) {
  std::optional<RunResultFile> failed;
  if (o.run_db.empty()) {
    std::variant<RunResultFile, int> run = run_original(o);
    if (const int* code = std::get_if<int>(&run)) return *code;
    failed = std::get<RunResultFile>(run);
  }
  Result<faults::Schedule> schedule = original_schedule(o, o.run_db.empty() ? o.out_dir + "/original/run.db" : o.run_db);
  if (!schedule.is_ok()) {
    std::fprintf(stderr, "dst shrink: %s\n", schedule.status().message().c_str());
    return kExitUsage;
  }
  o.scenario = schedule->scenario;
  o.seed = std::to_string(schedule->seed);
  if (!failed) {
    std::variant<RunResultFile, int> run = run_original(o);
    if (const int* code = std::get_if<int>(&run)) return *code;
    failed = std::get<RunResultFile>(run);
  }
  return std::make_pair(*failed, std::move(schedule).value());
}

// SIGINT and SIGTERM end the search once the batch in flight is done (a terminal's Ctrl-C reaches
// the children too, in the same process group; a kill of this process alone waits for them); the
// smallest failing schedule so far is still written and checked.
void catch_interrupts() {
  struct sigaction sa = {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace

int shrink_command(const std::string& self, const std::vector<std::string>& argv) {
  ShrinkOptions o;
  if (std::optional<int> done = parse_options(self, argv, &o)) return *done;
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir + "/runs", ec);
  if (ec) {
    std::fprintf(stderr, "dst shrink: --out %s: %s\n", o.out_dir.c_str(), ec.message().c_str());
    return kExitUsage;
  }
  const int64_t start_ns = sim::wall_clock_ns();
  std::string extra;
  for (const std::string& a : o.extra) extra += " " + a;
  const std::string input = o.run_db.empty() ? o.scenario + " --seed " + o.seed : o.run_db;
  std::printf("shrink %s   reproduce: %s shrink %s --max-runs %zu%s%s\n", input.c_str(), o.dst_path.c_str(),
              input.c_str(), o.max_runs, extra.empty() ? "" : " --", extra.c_str());
  std::fflush(stdout);
  auto original = original_run_and_schedule(o);
  if (const int* code = std::get_if<int>(&original)) return *code;
  auto& [failed, schedule] = std::get<0>(original);
  std::printf("original          %s\n", failed.first_failure.c_str());
  std::fflush(stdout);
  Steps steps = split_steps(std::move(schedule));
  Shrinker shrinker(o, steps, check_name(failed.first_failure), start_ns);
  catch_interrupts();
  shrink::SearchOptions search{o.jobs, o.max_runs, {}};
  search.stop = [&] { return g_interrupted != 0 || (o.budget_ns > 0 && sim::wall_clock_ns() - start_ns >= o.budget_ns); };
  const shrink::SearchResult r = shrink::ddmin(
      steps.droppable.size(), [&](const std::vector<std::vector<size_t>>& c) { return shrinker.run(c); }, search);
  return finish(o, shrinker, steps, r, failed, start_ns);
}

}  // namespace dst
