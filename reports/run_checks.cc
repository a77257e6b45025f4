// See run_checks.h.
#include "reports/run_checks.h"

#include <cstdio>
#include <optional>
#include <sstream>

namespace dst::reports {

const char* check_state_name(CheckOutcome::State s) {
  switch (s) {
    case CheckOutcome::State::kPassed: return "passed";
    case CheckOutcome::State::kFailed: return "FAILED";
    case CheckOutcome::State::kGaveUp: return "gave up";
    case CheckOutcome::State::kNotRecorded: return "not recorded";
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

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool is_watch_line(const std::string& line) { return starts_with(line, "watch"); }
// The kube checks' report (checker/kube) follows the watch report in the summary.
bool is_kube_line(const std::string& line) { return starts_with(line, "kube: "); }

CheckOutcome linearizability(const std::vector<std::string>& lines) {
  CheckOutcome c;
  c.name = "linearizability";
  size_t i = 0;
  while (i < lines.size() && !starts_with(lines[i], "etcd model: ") && !is_watch_line(lines[i])) ++i;
  if (i == lines.size() || is_watch_line(lines[i])) {
    if (!lines.empty() && !is_watch_line(lines[0])) {
      c.state = CheckOutcome::State::kGaveUp;
      c.message = "could not check: " + lines[0];
    } else {
      c.message = "no linearizability result in the run's checker summary";
    }
    return c;
  }
  for (size_t j = i; j < lines.size() && !is_watch_line(lines[j]); ++j) c.detail += lines[j] + "\n";
  const std::string verdict = lines[i].substr(12);
  if (starts_with(verdict, "linearizable")) {
    c.state = CheckOutcome::State::kPassed;
    c.message = "linearizable (etcd model)";
  } else if (starts_with(verdict, "NOT linearizable")) {
    c.state = CheckOutcome::State::kFailed;
    // The first violation follows the statistics line.
    c.message = i + 1 < lines.size() && !is_watch_line(lines[i + 1]) ? "NOT linearizable: " + lines[i + 1]
                                                                      : "NOT linearizable (etcd model)";
  } else {
    c.state = CheckOutcome::State::kGaveUp;
    c.message = "no verdict: the checker gave up (" + verdict.substr(0, verdict.find(';')) + ")";
  }
  return c;
}

CheckOutcome watch_guarantees(const std::vector<std::string>& lines) {
  CheckOutcome c;
  c.name = "watch guarantees";
  size_t i = 0;
  while (i < lines.size() && !is_watch_line(lines[i])) ++i;
  if (i == lines.size()) {
    c.message = "no watch result in the run's checker summary";
    return c;
  }
  for (size_t j = i; j < lines.size() && !is_kube_line(lines[j]); ++j) c.detail += lines[j] + "\n";
  if (lines[i] == "watch guarantees ok" || starts_with(lines[i], "watch: ok")) {
    c.state = CheckOutcome::State::kPassed;
    c.message = "ok: ordered, unique, atomic, resumable, reliable, ...";
  } else {
    c.state = CheckOutcome::State::kFailed;
    c.message = i + 1 < lines.size() ? "VIOLATED: " + lines[i + 1] : "VIOLATED";
  }
  return c;
}

// Only runs with informers have kube checks: none when the summary has no kube report.
std::optional<CheckOutcome> kube_checks(const std::vector<std::string>& lines) {
  size_t i = 0;
  while (i < lines.size() && !is_kube_line(lines[i])) ++i;
  if (i == lines.size()) return std::nullopt;
  CheckOutcome c;
  c.name = "kube checks";
  for (size_t j = i; j < lines.size(); ++j) c.detail += lines[j] + "\n";
  if (starts_with(lines[i], "kube: ok")) {
    c.state = CheckOutcome::State::kPassed;
    c.message = "ok: LISTs, WATCH streams, informer stores and workqueues agree with etcd";
    return c;
  }
  c.state = CheckOutcome::State::kFailed;
  c.message = "VIOLATED";
  // The first violation: the first indented line after the counts.
  for (size_t j = i + 1; j < lines.size(); ++j) {
    if (!starts_with(lines[j], "  ") || starts_with(lines[j], "  checked:") || starts_with(lines[j], "  skipped:")) continue;
    c.message = "VIOLATED: " + lines[j].substr(2);
    break;
  }
  return c;
}

CheckOutcome verdict(const history::RunRecord& run, const std::vector<CheckOutcome>& checkers) {
  CheckOutcome c;
  c.name = "run verdict";
  if (!run.result) {
    c.state = CheckOutcome::State::kGaveUp;
    c.message = "the run did not finish (killed or crashed): no verdict recorded";
    return c;
  }
  const history::RunResult& r = *run.result;
  const std::string code = " (exit " + std::to_string(r.exit_code) + ")";
  if (r.verdict == "pass" && r.exit_code == 0) {
    c.state = CheckOutcome::State::kPassed;
    c.message = "pass" + code + ": raft invariants, liveness, member agreement and the checkers above";
    return c;
  }
  bool explained = false;
  for (const CheckOutcome& k : checkers) explained |= k.state == CheckOutcome::State::kFailed;
  c.state = r.verdict == "unknown" || r.exit_code == 3 ? CheckOutcome::State::kGaveUp : CheckOutcome::State::kFailed;
  c.message = r.verdict + code;
  if (!explained && c.state == CheckOutcome::State::kFailed)
    c.message += ": a check outside the history checkers failed (raft invariants, liveness, member agreement or "
                 "determinism); the run's output says which";
  c.detail = r.checker_summary;
  return c;
}

}  // namespace

std::vector<CheckOutcome> run_checks(const history::RunRecord& run) {
  std::vector<std::string> lines;
  if (run.result) {
    std::istringstream in(run.result->checker_summary);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) lines.push_back(line);
  }
  std::vector<CheckOutcome> out;
  out.push_back(linearizability(lines));
  out.push_back(watch_guarantees(lines));
  if (std::optional<CheckOutcome> kube = kube_checks(lines)) out.push_back(std::move(*kube));
  out.push_back(verdict(run, out));
  return out;
}

}  // namespace dst::reports
