#include "tools/run_scenario.h"

#include <cstdio>
#include <memory>
#include <optional>

#include "base/bugs.h"
#include "faults/nemesis_fork.h"
#include "scenarios/scenario.h"
#include "scenarios/schedule_file.h"
#include "sim/wall_clock.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "tools/kv_run_command.h"

namespace dst {

namespace {

// --fork: the random nemesis diverges from each fork's time on (faults/nemesis_fork.h). A scenario
// without random faults gets them from the first fork on, of every kind, besides its own.
void fork_nemesis(world::KvRunOptions& options, const std::vector<faults::NemesisFork>& forks) {
  options.nemesis.forks = forks;
  if (!options.faults) {
    options.faults = true;
    options.nemesis.quiet_until_first_fork = true;
  }
}

// What changes a run of the scenario besides its seed: the command line's --bug, --schedule,
// --fork and --swarm-salt.
struct RunVariation {
  Bugs bugs;
  std::optional<faults::Schedule> replay;
  std::string schedule_file;  // where `replay` was read from
  std::vector<faults::NemesisFork> forks;
  scenarios::SwarmSalts salts;
};

// What runs before each simulated run: loads the scenario afresh into *current (its state
// changes as its functions run) and sets the run's options from it, with the variation.
std::function<void(world::KvRunOptions&)> load_for_each_run(std::shared_ptr<std::unique_ptr<scenarios::Scenario>> current,
                                                            const std::string& path, const std::string& script, uint64_t seed,
                                                            RunVariation v) {
  auto runs = std::make_shared<int>(0);
  return [current, path, script, seed, runs, v](world::KvRunOptions& options) {
    const bool quiet = (*runs)++ > 0;  // --check-determinism's second run prints nothing twice
    Result<std::unique_ptr<scenarios::Scenario>> loaded = scenarios::Scenario::load_source(
        path, script, seed, {}, quiet ? scenarios::PrintSink([](std::string_view) {}) : nullptr, v.salts);
    DST_ASSERT_MSG(loaded.is_ok(), "the scenario loaded once but not again: " + loaded.status().message());
    *current = std::move(loaded).value();
    (*current)->set_bugs(v.bugs);
    if (v.replay) {
      (*current)->set_replay(*v.replay);
      const Status reduced = (*current)->set_reduction(v.replay->reduce);
      DST_ASSERT_MSG(reduced.is_ok(), "a reduction taken once but not again: " + reduced.message());
    }
    options = (*current)->run_options();
    if (!v.forks.empty()) fork_nemesis(options, v.forks);
    std::function<void(world::ClusterOptions&)> scenario_cluster = options.configure_cluster;
    options.configure_cluster = [scenario_cluster, bugs = v.bugs](world::ClusterOptions& co) {
      if (scenario_cluster) scenario_cluster(co);
      co.server.bugs = bugs;  // the member hands the same value to its Raft
    };
  };
}

// --swarm-salt; false after saying why on stderr.
bool parse_salt_option(const cli::Args& args, scenarios::SwarmSalts& salts) {
  std::optional<std::string> spec = args.value("swarm-salt");
  if (!spec) return true;
  Result<scenarios::SwarmSalts> parsed = scenarios::parse_swarm_salts(*spec);
  if (!parsed.is_ok()) {
    std::fprintf(stderr, "dst run: %s\n", parsed.status().message().c_str());
    return false;
  }
  salts = *parsed;
  return true;
}

// The scenario's text: the schedule's embedded one, or the file's; none after saying why.
std::optional<std::string> scenario_text(const std::string& path, const RunVariation& v, bool embedded) {
  if (embedded) return v.replay->source;
  Result<std::string> text = scenarios::Scenario::read_file(path);
  if (text.is_ok()) return std::move(text).value();
  std::fprintf(stderr, "dst run: scenario error: %s\n", text.status().message().c_str());
  return std::nullopt;
}

// The schedule's reduce{} on the scenario's configuration; false after saying why on stderr.
bool take_reduction(scenarios::Scenario& scenario, const RunVariation& v) {
  if (!v.replay) return true;
  const Status st = scenario.set_reduction(v.replay->reduce);
  if (!st.is_ok()) std::fprintf(stderr, "dst run: --schedule %s: %s\n", v.schedule_file.c_str(), st.message().c_str());
  return st.is_ok();
}

// --bug and --schedule; false (after saying why on stderr) when either is bad.
bool parse_bugs_and_schedule(const cli::Args& args, Bugs& bugs, std::optional<faults::Schedule>& replay,
                             std::string& schedule_file) {
  if (auto names = args.value("bug")) {
    Result<Bugs> bits = parse_bugs(*names);
    if (!bits.is_ok()) {
      std::fprintf(stderr, "dst run: --bug: %s\n", bits.status().message().c_str());
      return false;
    }
    bugs = *bits;
  }
  if (auto file = args.value("schedule")) {
    schedule_file = *file;
    Result<faults::Schedule> loaded = scenarios::load_schedule(*file);
    if (!loaded.is_ok()) {
      std::fprintf(stderr, "dst run: --schedule: %s\n", loaded.status().message().c_str());
      return false;
    }
    replay = std::move(loaded).value();
  }
  return true;
}

// --fork (inside the fault phase of `phase`; not with --schedule); false after saying why on stderr.
bool parse_fork_option(const cli::Args& args, sim::DurationNs phase, bool replaying, std::vector<faults::NemesisFork>& forks) {
  std::optional<std::string> spec = args.value("fork");
  if (!spec) return true;
  Result<std::vector<faults::NemesisFork>> parsed = faults::parse_forks(*spec, phase);
  if (!parsed.is_ok() || replaying) {
    std::fprintf(stderr, "dst run: %s\n", parsed.is_ok() ? "--fork and --schedule: a replay has no random faults to fork"
                                                         : parsed.status().message().c_str());
    return false;
  }
  forks = std::move(parsed).value();
  return true;
}

// The run's command line, from `self`, the scenario (none: the schedule file embeds it), the
// seed and the variation.
std::string reproduce_command(const std::string& self, const std::string& scenario, uint64_t seed, const cli::Args& args,
                              const RunVariation& v) {
  std::string head = self + " run";
  std::optional<std::string> file = args.value("schedule");
  if (scenario.empty() && file) head += " --schedule " + *file;  // first: dst run --schedule FILE ...
  else head += " " + scenario;
  head += " --seed " + std::to_string(seed);
  if (auto names = args.value("bug")) head += " --bug " + *names;
  if (file && !scenario.empty()) head += " --schedule " + *file;
  if (!v.forks.empty()) head += " --fork " + faults::format_forks(v.forks);
  if (!v.salts.empty()) head += " --swarm-salt " + scenarios::format_swarm_salts(v.salts);
  return head;
}

// What the scenario requires of the run (checks{}, must_reach{}) and what swarm{} drew.
void take_checks(const scenarios::ScenarioConfig& config, KvRunSpec& spec) {
  spec.require_linearizable = config.checks.linearizable;
  spec.require_watch = config.checks.watch;
  spec.require_liveness = config.checks.liveness;
  spec.require_durability = config.checks.durability;
  spec.must_reach = config.must_reach;
  spec.header_lines = config.swarm_log;
}

}  // namespace

int run_scenario_command(const std::string& self, const std::string& path, const std::vector<std::string>& argv,
                         bool embedded) {
  cli::Args args("dst run " + path, argv);
  args.option("seed", "N", "the seed (default: a fresh random seed, printed)");
  args.option("result", "FILE", "write the verdict and every check to FILE as a result file (what dst sweep reads)");
  args.option("out", "DIR", "write the run database to DIR/run.db (docs/run-db.md) and the report to DIR/report/ "
                            "(index.html, plots, summary.md, junit.xml, violation.html; docs/report.md)");
  args.flag("check-determinism", "run the seed twice and report the first diverging event");
  args.option("bug", "NAMES", bug_names_help());
  args.option("schedule", "FILE", "replay the fault schedule in FILE (as `dst schedule RUN.db` writes it) instead of "
                                  "drawing faults: the same steps at the same times (docs/scenarios.md)");
  args.option("fork", "AT:SALT[:PCT],...", "from AT into the fault phase on, draw random faults from another stream "
                                           "(at PCT % of the mean interval): what dst explore mutates (docs/explore.md)");
  args.option("swarm-salt", "PART=N,...", "redraw parts of swarm{}'s draw (faults, nodes, timing, workload, kube) "
                                          "from salted streams, the others as the seed gives them (docs/explore.md)");
  if (std::optional<int> done = args.parse_or_exit()) return *done;
  Result<uint64_t> seed = args.has("seed") ? args.u64("seed", 0) : Result<uint64_t>(sim::fresh_seed());
  if (!seed.is_ok()) {
    std::fprintf(stderr, "%s\n\n%s", seed.status().message().c_str(), args.usage().c_str());
    return kExitUsage;
  }
  RunVariation v;
  if (!parse_bugs_and_schedule(args, v.bugs, v.replay, v.schedule_file) || !parse_salt_option(args, v.salts))
    return kExitUsage;
  // Read once: every load below runs the same text, even if the file changes meanwhile.
  embedded = embedded && v.replay && !v.replay->source.empty();
  const std::optional<std::string> text = scenario_text(path, v, embedded);
  if (!text) return kExitUsage;
  // Loaded once here to report script errors before anything runs (its print() output is not
  // shown: the run's own load prints it); every simulated run loads its own copy (the script's
  // state changes as its functions run).
  Result<std::unique_ptr<scenarios::Scenario>> first =
      scenarios::Scenario::load_source(path, *text, *seed, {}, [](std::string_view) {}, v.salts);
  if (!first.is_ok()) {
    std::fprintf(stderr, "dst run: scenario error: %s\n", first.status().message().c_str());
    return kExitUsage;
  }
  if (!take_reduction(**first, v)) return kExitUsage;
  const scenarios::ScenarioConfig& config = (*first)->config();
  if (v.bugs.any_in(BugLayer::kKube) && !config.kube) {
    std::fprintf(stderr, "dst run: --bug: a kube bug needs a scenario with kube{} (apiservers and controllers); %s has none\n",
                 path.c_str());
    return kExitUsage;
  }
  if (!parse_fork_option(args, config.run.duration, v.replay.has_value(), v.forks)) return kExitUsage;
  KvRunSpec spec;
  spec.command = "dst run " + path;
  spec.scenario = path;
  spec.seed = *seed;
  // An embedded scenario is found in the schedule file, wherever its named file is.
  spec.reproduce = reproduce_command(self, embedded ? "" : path, *seed, args, v);
  spec.options = config.run;
  spec.out = args.value("out");
  spec.result_file = args.value("result");
  spec.check_determinism = args.has("check-determinism");
  take_checks(config, spec);
  if (!v.forks.empty())
    spec.header_lines.push_back("forked: random faults from stream raft-nemesis/fork-SALT from each AT on: " + faults::format_forks(v.forks));
  if (!v.salts.empty())
    spec.header_lines.push_back("swarm salted: these parts drawn from salted streams: " + scenarios::format_swarm_salts(v.salts));
  // The Scenario of the current simulated run: replaced before each one.
  auto current = std::make_shared<std::unique_ptr<scenarios::Scenario>>();
  spec.prepare_run = load_for_each_run(current, path, *text, *seed, v);
  spec.runtime_error = [current]() -> std::optional<std::string> {
    return *current ? (*current)->runtime_error() : std::nullopt;
  };
  spec.kube_lines = [current] { return *current ? (*current)->kube_summary() : std::vector<std::string>{}; };
  return run_kv_command(spec);
}

int run_schedule_command(const std::string& self, const std::vector<std::string>& argv) {
  // dst run --schedule FILE [options]: the scenario, seed and bugs come from the file unless given.
  DST_ASSERT(!argv.empty() && argv[0] == "--schedule");
  if (argv.size() < 2) {
    std::fprintf(stderr, "dst run --schedule: expected a schedule file (as `dst schedule RUN.db` writes it)\n");
    return kExitUsage;
  }
  Result<faults::Schedule> schedule = scenarios::load_schedule(argv[1]);
  if (!schedule.is_ok()) {
    std::fprintf(stderr, "dst run: --schedule: %s\n", schedule.status().message().c_str());
    return kExitUsage;
  }
  const std::string& scenario = schedule->scenario;
  if (scenario.size() < 4 || scenario.compare(scenario.size() - 4, 4, ".lua") != 0) {
    std::fprintf(stderr, "dst run --schedule: %s was recorded by '%s', not by a scenario (SCENARIO.lua); only a "
                 "scenario's schedule can be replayed\n", argv[1].c_str(), scenario.c_str());
    return kExitUsage;
  }
  std::vector<std::string> rest(argv.begin(), argv.end());
  const auto given = [&](const char* flag) {
    for (const std::string& a : rest)
      if (a == flag || a.rfind(std::string(flag) + "=", 0) == 0) return true;
    return false;
  };
  if (!given("--seed")) rest.insert(rest.end(), {"--seed", std::to_string(schedule->seed)});
  if (!given("--bug") && !schedule->bugs.empty()) rest.insert(rest.end(), {"--bug", schedule->bugs});
  return run_scenario_command(self, schedule->scenario, rest, true);
}

bool is_schedule_file(const std::string& path) {
  Result<std::string> text = scenarios::Scenario::read_file(path);
  if (!text.is_ok()) return false;  // run_scenario_command says why
  for (size_t at = 0; at < text->size();) {
    const size_t start = text->find_first_not_of(" \t", at);
    if (start != std::string::npos && text->compare(start, 7, "replay{") == 0) return true;
    const size_t end = text->find('\n', at);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return false;
}

}  // namespace dst
