// See explore_command.h. A harness around processes (tools/child_pool.h): wall time appears only in
// progress lines on stderr; explore.tsv and progress.tsv depend on the explorer seed, the budget
// in runs and the runs' outcomes alone.
#include "tools/explore_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "scenarios/scenario.h"
#include "sim/wall_clock.h"
#include "runs/child_pool.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"
#include "tools/explore_corpus.h"
#include "tools/run_result_file.h"
#include "tools/sweep_results.h"

namespace dst {
namespace {

using sweep::Verdict;

constexpr uint64_t kDefaultRuns = 200;
constexpr uint64_t kMaxJobs = 256;

struct ExploreOptions {
  std::string dst_path;
  std::string scenario;
  std::vector<std::string> extra;  // after --: passed to every run
  uint64_t seed = 0;
  uint64_t runs = kDefaultRuns;
  uint64_t jobs = 1;
  std::string out_dir;
  bool keep_going = false;
  bool fresh_only = false;
  int64_t timeout_ns = kChildTimeoutDefaultNs;
};

// One finished run, as explore.tsv and the summary show it.
struct RunRow {
  size_t index = 0;
  explore::Candidate candidate;
  Verdict verdict = Verdict::kPass;
  size_t first_features = 0;  // features no earlier run reached
  std::string trace_hash;
  std::string first_failure;
};

const char* kMoreHelp =
    "\nProposes batches of 8 runs, `DST run SCENARIO --seed X [--fork AT:SALT[:PCT],...] RUN ARGS...`: fresh seeds,\n"
    "or a run that reached something new forked (the same seed, so the same run up to AT, then other\n"
    "random faults), favouring runs whose states few runs reached. Writes DIR/explore.tsv (every run),\n"
    "DIR/progress.tsv (coverage after each batch) and keeps the logs of failing runs. The same --seed\n"
    "and --runs give the same runs, whatever --jobs. Stops after the batch of the first violation\n"
    "unless --keep-going. Exit: 1 a run violated, crashed or timed out; else 3 a checker gave up;\n"
    "else 2 usage or scenario error; else 0. See docs/explore.md.\n";

std::optional<int> parse_options(const std::string& self, const std::vector<std::string>& argv, ExploreOptions* o) {
  cli::Args args("dst explore", argv);
  args.positional("SCENARIO", "a scenario file (SCENARIO.lua)", false);
  args.option("seed", "S", "the explorer's seed (default: a fresh one, printed)");
  args.option("runs", "N", "the budget: runs in all (default 200)");
  args.option("jobs", "J", "children at once (default: the number of online CPUs); never changes what is run");
  args.option("out", "DIR", "explore.tsv, progress.tsv and failing runs' logs (default: a temporary directory)");
  args.option("dst", "PATH", "the dst binary the children run (default: this one)");
  args.option("timeout", "D", "kill a run after this much wall time, e.g. 10m (default 30m)");
  args.flag("keep-going", "do not stop after the batch of the first violation");
  args.flag("fresh-only", "no forks: every run a fresh seed (swarm alone, the baseline to compare with)");
  if (std::optional<int> done = args.parse_or_exit(kMoreHelp)) return done;
  o->scenario = *args.positional_value("SCENARIO");
  o->extra = args.passthrough();
  if (Status st = sweep::check_extra_args(o->extra); !st.is_ok()) return args.usage_error("dst explore: " + st.message());
  for (const std::string& a : o->extra) {
    for (const char* own : {"--seed", "--out", "--result", "--fork", "--schedule", "--swarm-salt"}) {
      if (a == own || a.rfind(std::string(own) + "=", 0) == 0)
        return args.usage_error("dst explore: '" + a + "' after -- would clash with what explore gives each run");
    }
  }
  Result<uint64_t> seed = args.has("seed") ? args.u64("seed", 0) : Result<uint64_t>(sim::fresh_seed());
  Result<uint64_t> runs = args.u64("runs", kDefaultRuns);
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  Result<uint64_t> jobs = args.u64("jobs", cpus > 0 ? static_cast<uint64_t>(cpus) : 1);
  Result<int64_t> timeout = args.duration_ns("timeout", kChildTimeoutDefaultNs, sim::seconds(1), sim::seconds(24 * 3600));
  for (const Status& st : {seed.status(), runs.status(), jobs.status(), timeout.status()})
    if (!st.is_ok()) return args.usage_error(st.message());
  if (*runs < 1 || *runs > explore::kRunsMax) return args.usage_error("dst explore: --runs must be 1.." + std::to_string(explore::kRunsMax));
  if (*jobs < 1 || *jobs > kMaxJobs) return args.usage_error("dst explore: --jobs must be 1.." + std::to_string(kMaxJobs));
  o->seed = *seed;
  o->runs = *runs;
  o->jobs = *jobs;
  o->timeout_ns = *timeout;
  o->dst_path = args.value("dst").value_or(self);
  o->out_dir = args.value("out").value_or("");
  o->keep_going = args.has("keep-going");
  o->fresh_only = args.has("fresh-only");
  return std::nullopt;
}

// What the explorer needs to know of the scenario: its fault phase (forks fall inside it) and the
// parts of its swarm{} draw a mutation may redraw.
struct ScenarioShape {
  sim::DurationNs phase = 0;
  std::vector<size_t> swarm_parts;
};

Result<ScenarioShape> scenario_shape(const std::string& path) {
  Result<std::string> text = scenarios::Scenario::read_file(path);
  if (!text.is_ok()) return text.status();
  Result<std::unique_ptr<scenarios::Scenario>> s = scenarios::Scenario::load_source(path, *text, 1, {}, [](std::string_view) {});
  if (!s.is_ok()) return s.status();
  ScenarioShape shape{.phase = (*s)->config().run.duration};
  if (!(*s)->config().swarm_log.empty()) {
    for (size_t p = 0; p < scenarios::kSwarmParts.size(); ++p)
      if (scenarios::kSwarmParts[p] != "kube" || (*s)->config().kube) shape.swarm_parts.push_back(p);
  }
  return shape;
}

std::string run_file(const ExploreOptions& o, size_t index, const char* ext) {
  return o.out_dir + "/run-" + std::to_string(index) + ext;
}

// `dst run` arguments of a candidate, without the binary (the reproduce command starts the same).
std::vector<std::string> run_args(const ExploreOptions& o, const explore::Candidate& c) {
  std::vector<std::string> args = {"run", o.scenario, "--seed", std::to_string(c.seed)};
  if (!c.forks.empty()) args.insert(args.end(), {"--fork", faults::format_forks(c.forks)});
  if (!c.salts.empty()) args.insert(args.end(), {"--swarm-salt", scenarios::format_swarm_salts(c.salts)});
  args.insert(args.end(), o.extra.begin(), o.extra.end());
  return args;
}

std::string reproduce(const ExploreOptions& o, const explore::Candidate& c) {
  std::string line = o.dst_path;
  for (const std::string& a : run_args(o, c)) line += " " + a;
  return line;
}

// Runs one batch (in parallel; the rows come back in proposal order) and feeds the corpus.
std::vector<RunRow> run_batch(const ExploreOptions& o, explore::Corpus& corpus, const std::vector<explore::Candidate>& batch) {
  std::vector<ChildCommand> commands;
  for (size_t i = 0; i < batch.size(); ++i) {
    const size_t index = corpus.runs() + i;
    std::error_code ec;  // a result file left by an earlier exploration in DIR must not count
    std::filesystem::remove(run_file(o, index, ".result"), ec);
    std::vector<std::string> argv = {o.dst_path};
    for (std::string& a : run_args(o, batch[i])) argv.push_back(std::move(a));
    argv.insert(argv.end(), {"--result", run_file(o, index, ".result")});
    commands.push_back(ChildCommand{std::move(argv), run_file(o, index, ".log")});
  }
  const std::vector<ChildExit> exits = run_children(commands, o.jobs, o.timeout_ns);
  std::vector<RunRow> rows;
  for (size_t i = 0; i < batch.size(); ++i) {
    RunRow r{.index = corpus.runs(), .candidate = batch[i]};
    r.verdict = exits[i].timed_out ? Verdict::kTimeout : sweep::verdict_from_exit_code(exits[i].exit_code);
    explore::Outcome outcome{.exit_code = exits[i].exit_code};
    Result<RunResultFile> result = read_result_file(run_file(o, r.index, ".result"));
    if (result.is_ok() && result->seed == batch[i].seed && result->exit_code == exits[i].exit_code) {
      outcome.coverage = result->coverage;
      r.trace_hash = result->trace_hash;
      r.first_failure = sweep::one_line(result->first_failure);
    } else if (r.verdict != Verdict::kPass) {
      r.first_failure = exits[i].spawn_error.empty() ? sweep::one_line(sweep::stop_reason_from_log(read_log_bounded(run_file(o, r.index, ".log"))))
                                                     : exits[i].spawn_error;
    }
    if (r.verdict == Verdict::kTimeout) r.first_failure = "timed out (killed)";
    r.first_features = corpus.record(batch[i], outcome);
    std::error_code ec;  // a passing run reproduces from its command: its files are not kept
    std::filesystem::remove(run_file(o, r.index, ".result"), ec);
    if (r.verdict == Verdict::kPass) std::filesystem::remove(run_file(o, r.index, ".log"), ec);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string tsv_row(const ExploreOptions& o, const RunRow& r) {
  const std::string forks = r.candidate.forks.empty() ? "-" : faults::format_forks(r.candidate.forks);
  const std::string salts = r.candidate.salts.empty() ? "-" : scenarios::format_swarm_salts(r.candidate.salts);
  return std::to_string(r.index) + "\t" + std::to_string(r.candidate.seed) + "\t" + forks + "\t" + salts + "\t" +
         (r.candidate.parent < 0 ? "-" : std::to_string(r.candidate.parent)) + "\t" + sweep::verdict_name(r.verdict) + "\t" +
         std::to_string(r.first_features) + "\t" + (r.trace_hash.empty() ? "-" : r.trace_hash) + "\t" + reproduce(o, r.candidate) +
         "\t" + r.first_failure + "\n";
}

int exit_code_of(const std::vector<RunRow>& rows) {
  bool unknown = false, error = false;
  for (const RunRow& r : rows) {
    if (r.verdict == Verdict::kViolation || r.verdict == Verdict::kCrash || r.verdict == Verdict::kTimeout) return kExitViolation;
    unknown |= r.verdict == Verdict::kUnknown;
    error |= r.verdict == Verdict::kError;
  }
  return unknown ? kExitGaveUp : error ? kExitUsage : kExitPass;
}

bool failing(const RunRow& r) { return r.verdict != Verdict::kPass && r.verdict != Verdict::kUnknown && r.verdict != Verdict::kError; }

// The summary on stdout: what was reached, and every failing run with its reproduce command.
void print_summary(const ExploreOptions& o, const explore::Corpus& corpus, const std::vector<RunRow>& rows) {
  size_t failed = 0;
  for (const RunRow& r : rows) failed += failing(r) ? 1 : 0;
  std::printf("explored %zu runs: %zu coverage names, %zu features, corpus %zu, %zu failing\n", corpus.runs(), corpus.names(),
              corpus.features(), corpus.corpus_size(), failed);
  for (const RunRow& r : rows) {
    if (!failing(r)) continue;
    std::printf("run %zu %s: %s\n  reproduce: %s\n", r.index, sweep::verdict_name(r.verdict), r.first_failure.c_str(),
                reproduce(o, r.candidate).c_str());
  }
  std::printf("files: %s/explore.tsv, %s/progress.tsv\n", o.out_dir.c_str(), o.out_dir.c_str());
}

std::string make_out_dir(ExploreOptions* o) {
  std::error_code ec;
  if (!o->out_dir.empty()) {
    std::filesystem::create_directories(o->out_dir, ec);
    return ec ? "dst explore: --out " + o->out_dir + ": " + ec.message() : "";
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/dst-explore-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) return "dst explore: cannot create a temporary directory " + templ;
  o->out_dir = templ;
  return "";
}

}  // namespace

int explore_command(const std::string& self, const std::vector<std::string>& argv) {
  ExploreOptions o;
  if (std::optional<int> done = parse_options(self, argv, &o)) return *done;
  Result<ScenarioShape> shape = scenario_shape(o.scenario);
  if (!shape.is_ok()) {
    std::fprintf(stderr, "dst explore: scenario error: %s\n", shape.status().message().c_str());
    return kExitUsage;
  }
  if (std::string err = make_out_dir(&o); !err.empty()) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return kExitUsage;
  }
  std::string again = o.dst_path + " explore " + o.scenario + " --seed " + std::to_string(o.seed) + " --runs " + std::to_string(o.runs) +
                      (o.fresh_only ? " --fresh-only" : "");
  if (!o.extra.empty()) again += " --";
  for (const std::string& a : o.extra) again += " " + a;
  std::printf("explorer seed %llu\nreproduce: %s\n", static_cast<unsigned long long>(o.seed), again.c_str());
  std::fflush(stdout);
  std::ofstream runs_tsv(o.out_dir + "/explore.tsv", std::ios::trunc);
  std::ofstream progress_tsv(o.out_dir + "/progress.tsv", std::ios::trunc);
  runs_tsv << "run\tseed\tforks\tswarm_salts\tparent\tverdict\tnew_features\ttrace_hash\treproduce\tfirst_failure\n";
  progress_tsv << "runs\tnames\tfeatures\tcorpus\tfailing\n";
  explore::Corpus corpus(o.seed, shape->phase, o.fresh_only, shape->swarm_parts);
  std::vector<RunRow> rows;
  const int64_t start = sim::wall_clock_ns();
  size_t failed = 0;
  while (corpus.runs() < o.runs && (failed == 0 || o.keep_going)) {
    std::vector<explore::Candidate> batch = corpus.next_batch();
    batch.resize(std::min<size_t>(batch.size(), o.runs - corpus.runs()));
    for (RunRow& r : run_batch(o, corpus, batch)) {
      runs_tsv << tsv_row(o, r);
      failed += failing(r) ? 1 : 0;
      if (failing(r)) std::fprintf(stderr, "explore: run %zu %s: %s\n", r.index, sweep::verdict_name(r.verdict), r.first_failure.c_str());
      rows.push_back(std::move(r));
    }
    runs_tsv.flush();
    progress_tsv << corpus.runs() << "\t" << corpus.names() << "\t" << corpus.features() << "\t" << corpus.corpus_size() << "\t" << failed << "\n";
    progress_tsv.flush();
    std::fprintf(stderr, "explore: %zu/%llu runs, %zu names, %zu features, corpus %zu, %zu failing, %.1fs\n", corpus.runs(),
                 static_cast<unsigned long long>(o.runs), corpus.names(), corpus.features(), corpus.corpus_size(), failed,
                 static_cast<double>(sim::wall_clock_ns() - start) / 1e9);
  }
  print_summary(o, corpus, rows);
  return exit_code_of(rows);
}

}  // namespace dst
