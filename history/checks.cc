#include "history/checks.h"

#include <array>

#include "base/assert.h"

namespace dst::history {

namespace {
constexpr std::array<const char*, 4> kStatusNames = {"pass", "fail", "gave-up", "skipped"};
}  // namespace

const char* check_status_name(CheckStatus status) {
  DST_ASSERT_LT(static_cast<size_t>(status), kStatusNames.size());
  return kStatusNames[static_cast<size_t>(status)];
}

std::optional<CheckStatus> parse_check_status(std::string_view name) {
  for (size_t i = 0; i < kStatusNames.size(); ++i)
    if (name == kStatusNames[i]) return static_cast<CheckStatus>(i);
  return std::nullopt;
}

RunVerdict decide_verdict(const std::vector<CheckRow>& checks) {
  std::optional<size_t> failed, gave_up;
  for (size_t i = 0; i < checks.size(); ++i) {
    const CheckRow& c = checks[i];
    if (c.name == kScenarioCheck && c.status == CheckStatus::kFail) return RunVerdict{"error", 2, i};
    if (!c.required) continue;
    if (c.status == CheckStatus::kFail && !failed) failed = i;
    if (c.status == CheckStatus::kGaveUp && !gave_up) gave_up = i;
  }
  if (failed) return RunVerdict{"violation", 1, failed};
  if (gave_up) return RunVerdict{"unknown", 3, gave_up};
  return RunVerdict{"pass", 0, std::nullopt};
}

CheckRow determinism_check(bool checked, bool deterministic, const std::string& report) {
  CheckRow d;
  d.name = "determinism";
  d.status = !checked ? CheckStatus::kSkipped : deterministic ? CheckStatus::kPass : CheckStatus::kFail;
  d.summary = checked ? report : "not asked (--check-determinism)";
  if (checked && !deterministic) {
    d.first_message = report.substr(0, report.find('\n'));
    d.violations = 1;
  }
  return d;
}

const char* verdict_line(const RunVerdict& v) {
  if (v.name == "error") return "ERROR (the scenario failed)";
  if (v.name == "pass") return "PASS";
  if (v.name == "unknown") return "UNKNOWN (the checker gave up)";
  return "FAIL";
}

std::string describe_failure(const CheckRow& c) {
  std::string out = c.name + ": ";
  if (!c.first_rule.empty()) out += c.first_rule + ": ";
  out += c.first_message.empty() ? c.summary : c.first_message;
  for (char& ch : out)
    if (ch == '\n' || ch == '\t' || ch == '\r') ch = ' ';
  return out;
}

}  // namespace dst::history
