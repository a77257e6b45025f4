// The search of `dst shrink` (issue 24), from a failing run's schedule to the smallest one that
// still fails the same check, in phases (each run as a child `dst run --schedule`, --jobs at once):
//   1. delta debugging over the fault steps (shrink_search.h ddmin);
//   2. rounds (until one changes nothing, at most three) of: a smaller cluster; script calls made
//      timed steps; every step earlier together; a shorter run_for(); fewer clients and watchers,
//      a lower rate, fewer keys, fewer request kinds (ddmin); each step moved (windows shorter,
//      starts later) (shrink_phases.h);
//   3. delta debugging over the steps once more (the lighter run may need fewer).
// Every phase keeps the first alternative, in a fixed order, whose run fails the same check; the
// result depends on the input and the budget in runs only, never on --jobs or timing (except an
// interrupt or --budget, which stop with the best so far).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "faults/schedule_text.h"
#include "runs/child_pool.h"
#include "tools/run_result_file.h"

namespace dst::shrink {

struct RunnerConfig {
  std::string dst_path;             // the dst binary the runs use
  std::string scenario;             // as the schedule names it (for the files' comments)
  std::string out_dir;              // candidate runs go to OUT/runs/cN.*
  std::vector<std::string> extra;   // passed to every run (after --)
  size_t jobs = 1;
  size_t max_runs = 1000;
  bool any_violation = false;
  std::string check;                // the check that must fail (the original's deciding one)
  std::string rule;                 // and, when not empty, the rule inside it (--same-rule)
  int64_t start_ns = 0;             // wall clock at the start, for the progress line
  std::function<bool()> stop;       // an interrupt or --budget
};

struct Shrunk {
  faults::Schedule schedule;  // the smallest failing schedule found (steps and reduce{})
  RunResultFile result;       // what its run showed (shape: what the run was)
  size_t steps_before = 0, steps_after = 0;  // fault steps the search could drop, before and after
  size_t runs = 0, runs_made = 0;
  bool budget_spent = false, stopped = false;
  std::vector<std::string> notes;  // phases skipped, and why
};

// The deciding check of a run's result (its `deciding` field, or from an older dst the text before
// the first ':' of its first failure), and that check's first rule (its first_rule, else the text
// before the first ':' of its message, as Raft invariants write theirs; "" when it names none).
std::string deciding_check(const RunResultFile& r);
std::string deciding_rule(const RunResultFile& r);
// Whether a run shows the failure the shrink keeps: a violation of config.check (of any check with
// any_violation), and of config.rule inside it when that is set.
bool same_failure(const RunnerConfig& config, const RunResultFile& r);

// `dst run ARGS --result STEM.result EXTRA`, logged to STEM.log; a result file left by an earlier
// shrink in the same directory is removed first, so it cannot pass for this run's.
ChildCommand run_command(const RunnerConfig& c, std::vector<std::string> args, const std::string& stem);

// The whole search from `original` (the failing run's schedule) and `original_result` (its run).
Shrunk shrink_schedule(const RunnerConfig& config, const faults::Schedule& original, const RunResultFile& original_result);

}  // namespace dst::shrink
