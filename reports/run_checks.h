// The checks a run recorded, as the report lists them (index.html, summary.md, junit.xml): read
// back from the run database's `checks` table (history/checks.h), never by running the checkers
// again and never from the checkers' text. One outcome per recorded check, then the run's
// verdict with the check that decided it.
#pragma once

#include <string>
#include <vector>

#include "history/run_db.h"

namespace dst::reports {

struct CheckOutcome {
  enum class State { kPassed, kFailed, kGaveUp, kSkipped };
  std::string name;     // the check's name ("raft-invariants", "watch", "linearizability", ...) or "run verdict"
  State state = State::kSkipped;
  std::string message;  // one line: what was decided
  std::string detail;   // counts and the first violation, may be empty
  double seconds = 0;   // wall time the check took
};

const char* check_state_name(CheckOutcome::State s);  // "passed", "FAILED", "gave up", "skipped"

// The reproduce command of a run: its recorded options with the program path shortened to
// `dst` ("dst run etcd --seed 3 --duration 30s"), or `dst run SCENARIO --seed N` without options.
std::string reproduce_command(const history::RunRecord& run);

// "0x" and 16 hex digits, as `dst run` prints it.
std::string trace_hash_text(uint64_t hash);

// Every recorded check in the order the run made them, then the run verdict (always last).
std::vector<CheckOutcome> run_checks(const history::RunRecord& run);

}  // namespace dst::reports
