// See run_checks.h.
#include "reports/run_checks.h"

#include <cstdio>

namespace dst::reports {

const char* check_state_name(CheckOutcome::State s) {
  switch (s) {
    case CheckOutcome::State::kPassed: return "passed";
    case CheckOutcome::State::kFailed: return "FAILED";
    case CheckOutcome::State::kGaveUp: return "gave up";
    case CheckOutcome::State::kSkipped: return "skipped";
  }
  return "?";
}

std::string reproduce_command(const history::RunRecord& run) {
  const std::string& o = run.info.options;
  // `dst run` records "<argv[0]> run ..." (tools/run_etcd.cc): the path of the binary is local.
  const size_t at = o.find(" run ");
  if (at != std::string::npos && o.find('\n') == std::string::npos) return "dst" + o.substr(at);
  const std::string seed = " --seed " + std::to_string(run.info.seed);
  if (run.info.scenario.rfind("dst run ", 0) == 0) return run.info.scenario + seed;
  return "dst run " + run.info.scenario + seed;
}

std::string trace_hash_text(uint64_t hash) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

namespace {

CheckOutcome::State state_of(history::CheckStatus s) {
  switch (s) {
    case history::CheckStatus::kPass: return CheckOutcome::State::kPassed;
    case history::CheckStatus::kFail: return CheckOutcome::State::kFailed;
    case history::CheckStatus::kGaveUp: return CheckOutcome::State::kGaveUp;
    case history::CheckStatus::kSkipped: return CheckOutcome::State::kSkipped;
  }
  return CheckOutcome::State::kSkipped;
}

CheckOutcome outcome_of(const history::CheckRow& row) {
  CheckOutcome c;
  c.name = row.name;
  c.state = state_of(row.status);
  const bool failed = row.status == history::CheckStatus::kFail;
  c.message = failed && !row.first_message.empty()
                  ? (row.first_rule.empty() ? "" : row.first_rule + ": ") + row.first_message
                  : row.summary;
  if (!row.required) c.message += " (not required by the scenario's check{})";
  if (row.checked > 0 || row.violations > 0)
    c.detail = "checked " + std::to_string(row.checked) + ", " + std::to_string(row.violations) + " violation(s)";
  if (row.first_at_ns != history::kNeverReturned) {
    char at[48];
    std::snprintf(at, sizeof at, "; the first at %.6fs", static_cast<double>(row.first_at_ns) / 1e9);
    c.detail += at;
  }
  if (failed && row.summary != c.message) c.detail += (c.detail.empty() ? "" : "\n") + row.summary;
  c.seconds = static_cast<double>(row.wall_us) / 1e6;
  return c;
}

CheckOutcome verdict(const history::RunRecord& run) {
  CheckOutcome c;
  c.name = "run verdict";
  if (!run.result) {
    c.state = CheckOutcome::State::kGaveUp;
    c.message = "the run did not finish (killed or crashed): no verdict recorded";
    return c;
  }
  const history::RunResult& r = *run.result;
  const std::string code = " (exit " + std::to_string(r.exit_code) + ")";
  c.message = r.verdict + code;
  c.state = r.exit_code == 0 ? CheckOutcome::State::kPassed
            : r.exit_code == 3 ? CheckOutcome::State::kGaveUp
                               : CheckOutcome::State::kFailed;
  const history::RunVerdict decided = history::decide_verdict(r.checks);
  if (r.checks.empty()) c.message += ": no checks recorded";
  else if (decided.deciding) c.message += ": decided by " + history::describe_failure(r.checks[*decided.deciding]);
  else if (r.exit_code == 0) c.message += ": every required check passed";
  else c.message += ": every check passed, but the run failed (its run database could not be completed)";
  return c;
}

}  // namespace

std::vector<CheckOutcome> run_checks(const history::RunRecord& run) {
  std::vector<CheckOutcome> out;
  if (run.result)
    for (const history::CheckRow& row : run.result->checks) out.push_back(outcome_of(row));
  out.push_back(verdict(run));
  return out;
}

}  // namespace dst::reports
