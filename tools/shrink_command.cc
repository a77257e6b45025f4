#include "tools/shrink_command.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <variant>

#include "base/limits.h"
#include "base/parse_number.h"
#include "faults/schedule_text.h"
#include "scenarios/scenario.h"
#include "scenarios/schedule_file.h"
#include "sim/wall_clock.h"
#include "runs/child_pool.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "tools/run_result_file.h"
#include "tools/shrink_runner.h"

namespace dst {
namespace {

constexpr uint64_t kMaxJobs = 256;
constexpr uint64_t kMaxRunsCeiling = 100'000;

const char kMoreHelp[] =
    "\nRuns SCENARIO with --seed N (and the arguments after --, e.g. -- --bug stale-read), and if it fails,\n"
    "replays its fault schedule with fewer and fewer steps (delta debugging), then with a smaller cluster,\n"
    "a shorter run, fewer clients, watchers, keys and request kinds, a lower rate, and each step moved\n"
    "(windows shorter, starts later), keeping each change while the same check still fails. Writes\n"
    "DIR/shrunk.schedule.lua (replay: dst run --schedule FILE) and DIR/minimal (its run database and\n"
    "report). The result depends on the input and --max-runs only, not on --jobs.\n"
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
  bool same_rule = false;
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
  args.flag("same-rule", "keep a candidate only if the same rule inside the check fails (e.g. State Machine Safety, "
                         "not any Raft invariant)");
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
  o->same_rule = args.has("same-rule");
  if (o->any_violation && o->same_rule) return args.usage_error("dst shrink: --any-violation and --same-rule contradict each other");
  return std::nullopt;
}

shrink::RunnerConfig runner_config(const ShrinkOptions& o) {
  shrink::RunnerConfig c;
  c.dst_path = o.dst_path;
  c.scenario = o.scenario;
  c.out_dir = o.out_dir;
  c.extra = o.extra;
  c.jobs = o.jobs;
  c.max_runs = o.max_runs;
  c.any_violation = o.any_violation;
  return c;
}

// One child `dst run` and its result file; an error says why there is no result.
Result<RunResultFile> run_child(const ShrinkOptions& o, std::vector<std::string> args, const std::string& stem) {
  const std::vector<ChildExit> exits =
      run_children({shrink::run_command(runner_config(o), std::move(args), stem)}, 1, kChildTimeoutDefaultNs);
  if (!exits[0].spawn_error.empty()) return Status(StatusCode::kUnavailable, exits[0].spawn_error);
  return read_result_file(stem + ".result");
}

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

// "clients 4 -> 1" for each part of the run that the shrink made smaller (from the result files'
// shape), the fault steps and the virtual time first.
std::vector<std::string> reductions(const RunResultFile& before, const shrink::Shrunk& after) {
  std::vector<std::string> out = {"fault steps " + std::to_string(after.steps_before) + " -> " +
                                  std::to_string(after.steps_after)};
  auto value = [](const RunResultFile& r, const char* k) {
    auto it = r.shape.find(k);
    return it == r.shape.end() ? std::string("?") : it->second;
  };
  auto seconds = [&](const RunResultFile& r) {
    const std::string ns = value(r, "run_for_ns");
    const std::optional<int64_t> parsed = parse_i64(ns);
    return parsed ? sim::format_seconds(*parsed) : std::string("?");
  };
  out.push_back("virtual time " + seconds(before) + (seconds(before) == seconds(after.result) ? "" : " -> " + seconds(after.result)));
  for (const char* k : {"operations", "nodes", "clients", "watchers", "keys", "rate"}) {
    const std::string a = value(before, k), b = value(after.result, k);
    out.push_back(std::string(k) + " " + a + (a == b ? "" : " -> " + b));
  }
  auto kinds = [&](const RunResultFile& r) {
    const std::string v = value(r, "kinds");
    return v == "?" ? size_t{0} : static_cast<size_t>(std::count(v.begin(), v.end(), ',') + (v.empty() ? 0 : 1));
  };
  if (kinds(before) > 0)
    out.push_back("request kinds " + std::to_string(kinds(before)) +
                  (kinds(before) == kinds(after.result) ? "" : " -> " + std::to_string(kinds(after.result))));
  return out;
}

std::string search_line(const ShrinkOptions& o, const shrink::Shrunk& r, int64_t start_ns) {
  char line[400];
  std::snprintf(line, sizeof line, "%zu runs (%zu made with --jobs %zu), %.1f s of wall time%s", r.runs, r.runs_made,
                o.jobs, static_cast<double>(sim::wall_clock_ns() - start_ns) / 1e9,
                r.budget_spent ? "; --max-runs spent: fails, but may not be minimal"
                : r.stopped    ? "; stopped (interrupted or --budget spent): fails, but may not be minimal"
                               : "; 1-minimal in its fault steps");
  return line;
}

// The comment the shrunk schedule starts with: where it came from, the check, the reduction.
std::string shrunk_header(const ShrinkOptions& o, const shrink::Shrunk& r, const RunResultFile& original, int64_t start_ns) {
  std::string extra;
  for (const std::string& a : o.extra) extra += " " + a;
  std::string failure = original.first_failure.substr(0, 300);
  for (char& c : failure)
    if (c == '\n' || c == '\r') c = ' ';
  std::string out = "-- Shrunk by: dst shrink " + (o.run_db.empty() ? o.scenario + " --seed " + o.seed : o.run_db) +
                    (extra.empty() ? "" : " --" + extra) + "\n-- The check that fails: " + failure + "\n-- reduction:";
  for (const std::string& item : reductions(original, r)) out += "\n--   " + item;
  out += "\n-- search: " + search_line(o, r, start_ns) + "\n";
  for (const std::string& note : r.notes) out += "-- note: " + note + "\n";
  return out + "--\n";
}

// Writes the shrunk schedule, runs it recorded in DIR/minimal and checks that it fails again the
// same way (same trace hash as its candidate run); the exit code.
int finish(const ShrinkOptions& o, const shrink::RunnerConfig& config, const shrink::Shrunk& r, const RunResultFile& original,
           int64_t start_ns) {
  const std::string file = o.out_dir + "/shrunk.schedule.lua";
  std::error_code removed;
  std::filesystem::remove(file, removed);
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << shrunk_header(o, r, original, start_ns) << faults::schedule_to_lua(r.schedule, o.scenario);
    out.close();
    if (!out) {
      std::fprintf(stderr, "dst shrink: cannot write %s\n", file.c_str());
      return kExitUsage;
    }
  }
  const std::string stem = o.out_dir + "/minimal";
  std::error_code ec;
  std::filesystem::remove_all(stem, ec);
  Result<RunResultFile> again = run_child(o, {"--schedule", file, "--out", stem}, stem);
  for (const std::string& item : reductions(original, r)) std::printf("reduced           %s\n", item.c_str());
  for (const std::string& note : r.notes) std::printf("note              %s\n", note.c_str());
  std::printf("search            %s\n", search_line(o, r, start_ns).c_str());
  std::printf("shrunk schedule   %s  (dst run --schedule %s)\n", file.c_str(), file.c_str());
  // The run that showed this schedule fail (for the unedited schedule, the original run: its
  // replay gives the original trace hash).
  if (!again.is_ok() || !shrink::same_failure(config, *again) || again->trace_hash != r.result.trace_hash) {
    std::printf("verdict           NOT REPRODUCED: the shrunk schedule's run in %s did not fail the same way again\n",
                stem.c_str());
    return kExitViolation;
  }
  std::printf("failure           %s\n", again->first_failure.c_str());
  std::printf("minimal run       %s (run.db and report/), trace hash %s\n", stem.c_str(), again->trace_hash.c_str());
  const std::string page = stem + "/report/violation.html";
  if (std::filesystem::exists(page, ec))
    std::printf("violation page    %s (the minimal run's history around the violation)\n", page.c_str());
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

// The scenario's text, read once (after the original run) and embedded in every candidate and in
// the result: an edit of the file during the search cannot change it, and the shrunk file runs
// wherever it is copied. Not embedded (said on stdout) when it could not come back exactly (a
// carriage return) or would make schedule files too long to read; an exit code when unreadable.
std::optional<int> embed_scenario(const ShrinkOptions& o, faults::Schedule& schedule) {
  Result<std::string> text = scenarios::Scenario::read_file(o.scenario);
  if (!text.is_ok()) {
    std::fprintf(stderr, "dst shrink: %s\n", text.status().message().c_str());
    return kExitUsage;
  }
  if (text->find('\r') != std::string::npos || text->size() > limits::kScenarioFileBytesMax / 2) {
    std::printf("note              %s is not embedded in the schedule files (carriage returns, or over %llu bytes): "
                "they name it\n", o.scenario.c_str(), static_cast<unsigned long long>(limits::kScenarioFileBytesMax / 2));
    return std::nullopt;
  }
  schedule.source = std::move(text).value();
  return std::nullopt;
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
  if (std::optional<int> code = embed_scenario(o, schedule)) return *code;
  shrink::RunnerConfig config = runner_config(o);
  config.check = shrink::deciding_check(failed);
  if (o.same_rule) config.rule = shrink::deciding_rule(failed);
  config.start_ns = start_ns;
  catch_interrupts();
  config.stop = [&] { return g_interrupted != 0 || (o.budget_ns > 0 && sim::wall_clock_ns() - start_ns >= o.budget_ns); };
  const shrink::Shrunk r = shrink::shrink_schedule(config, schedule, failed);
  return finish(o, config, r, failed, start_ns);
}

}  // namespace dst
