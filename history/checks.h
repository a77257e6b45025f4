// Verdicts as data: one CheckRow per check a run made (raft invariants, liveness, member
// agreement, the watch guarantees, the kube checks, linearizability, determinism, the scenario
// itself), with its status, whether the run requires it, what it looked at, and its first
// violation. The run database keeps them in its `checks` table; the report, JUnit, the sweep and
// `dst run`'s own output are built from them, and decide_verdict() is the one place the run's
// verdict and exit code come from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "history/history.h"

namespace dst::history {

enum class CheckStatus : uint8_t { kPass, kFail, kGaveUp, kSkipped };

const char* check_status_name(CheckStatus status);  // "pass", "fail", "gave-up", "skipped"
std::optional<CheckStatus> parse_check_status(std::string_view name);

// The check that says whether the scenario itself ran (its script raised no error, a replayed
// schedule's steps could all be applied): when it fails the run is an error (exit 2), not a
// violation.
inline constexpr std::string_view kScenarioCheck = "scenario";

struct CheckRow {
  std::string name;  // "raft-invariants", "liveness", "member-agreement", "watch", "kube", "linearizability", ...
  CheckStatus status = CheckStatus::kPass;
  bool required = true;  // false: reported, but its failure does not fail the run (a scenario's check{})
  uint64_t checked = 0;     // how much it looked at (operations, events, ...; 0 where it has no count)
  uint64_t violations = 0;  // how many violations it found
  // The first violation: the rule it broke (may be empty), one line saying what, and when
  // (virtual time; kNeverReturned when not known).
  std::string first_rule;
  std::string first_message;
  int64_t first_at_ns = kNeverReturned;
  std::string summary;  // one line: what was decided
  int64_t wall_us = 0;  // wall time the check took: metadata, never part of a verdict
  bool operator==(const CheckRow&) const = default;
};

struct RunVerdict {
  std::string name;  // "pass", "violation", "unknown" (a required check gave up), "error"
  int exit_code = 0;  // 0, 1, 3, 2 (tools/exit_codes.h)
  // The check that decided it: the failed scenario check, else the first failed required check,
  // else the first required check that gave up; none for a pass.
  std::optional<size_t> deciding;
};

// The verdict of a run from its checks: an error if the scenario check failed; else a violation
// if any required check failed; else unknown if any required check gave up; else a pass.
RunVerdict decide_verdict(const std::vector<CheckRow>& checks);

// The `determinism` check every run has: skipped unless --check-determinism ran the seed twice;
// `report` is what sim::DeterminismReport::describe() said.
CheckRow determinism_check(bool checked, bool deterministic, const std::string& report);

// What `dst run` and `dst check` print on their verdict line: "PASS", "FAIL", "UNKNOWN (the
// checker gave up)", "ERROR (the scenario failed)".
const char* verdict_line(const RunVerdict& verdict);

// "watch: bookmarkable: watch 0 ... at 1.2s: event at revision 179 after ..." for the deciding
// check (name, rule when there is one, message), one line.
std::string describe_failure(const CheckRow& check);

}  // namespace dst::history
