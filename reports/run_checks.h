// The checks a run recorded, as the report lists them (index.html, summary.md, junit.xml): read
// back from the run row (verdict, exit code, checker summary), never by running the checkers
// again. `dst run` writes the summary as the etcd checker's summary ("etcd model: linearizable;
// ...", "etcd model: NOT linearizable; ...") followed by the watch checker's ("watch guarantees ok"
// or "watch: VIOLATED ..."); the run's verdict covers the rest (raft invariants, liveness,
// member agreement, determinism). A check the summary does not mention is "not recorded".
#pragma once

#include <string>
#include <vector>

#include "history/run_db.h"

namespace dst::reports {

struct CheckOutcome {
  enum class State { kPassed, kFailed, kGaveUp, kNotRecorded };
  std::string name;     // "linearizability", "watch guarantees", "kube checks" (runs with informers), "run verdict"
  State state = State::kNotRecorded;
  std::string message;  // one line: what was decided
  std::string detail;   // the checker's own text (several lines), may be empty
};

const char* check_state_name(CheckOutcome::State s);  // "passed", "FAILED", "gave up", "not recorded"

// The reproduce command of a run: its recorded options with the program path shortened to
// `dst` ("dst run etcd --seed 3 --duration 30s"), or `dst run SCENARIO --seed N` without options.
std::string reproduce_command(const history::RunRecord& run);

// "0x" and 16 hex digits, as `dst run` prints it.
std::string trace_hash_text(uint64_t hash);

// Linearizability, watch guarantees, and the run verdict (always three, in that order).
std::vector<CheckOutcome> run_checks(const history::RunRecord& run);

}  // namespace dst::reports
