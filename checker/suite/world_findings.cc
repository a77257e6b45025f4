// A recorded run's world findings and requirements read back from its stored check rows
// (check_suite.h): the inverse of what run_check_suite() writes for them.
#include "checker/suite/check_suite.h"

namespace dst::checker::suite {

namespace {

using history::CheckRow;
using history::CheckStatus;

const CheckRow* find_row(const std::vector<CheckRow>& rows, std::string_view name) {
  for (const CheckRow& r : rows)
    if (r.name == name) return &r;
  return nullptr;
}

std::optional<WorldFinding> finding_of(const CheckRow* r) {
  if (r == nullptr || r->status == CheckStatus::kSkipped) return std::nullopt;
  return WorldFinding{r->status == CheckStatus::kPass, r->summary, r->first_message, r->violations};
}

bool required_or_default(const std::vector<CheckRow>& rows, std::string_view name) {
  const CheckRow* r = find_row(rows, name);
  return r == nullptr || r->required;
}

}  // namespace

WorldFindings findings_from_rows(const std::vector<CheckRow>& rows) {
  WorldFindings w;
  w.raft_invariants = finding_of(find_row(rows, "raft-invariants"));
  w.liveness = finding_of(find_row(rows, "liveness"));
  w.member_agreement = finding_of(find_row(rows, "member-agreement"));
  w.not_observed = "not recorded in the run database (the run did not finish, or did not observe it)";
  if (const CheckRow* d = find_row(rows, "determinism"); d != nullptr && d->status != CheckStatus::kSkipped) {
    w.determinism_checked = true;
    w.deterministic = d->status != CheckStatus::kFail;
    w.determinism_report = d->summary;
  }
  if (const CheckRow* s = find_row(rows, history::kScenarioCheck); s != nullptr && s->status == CheckStatus::kFail)
    w.scenario_error = s->first_message.empty() ? s->summary : s->first_message;
  return w;
}

Requirements requirements_from_rows(const std::vector<CheckRow>& rows) {
  Requirements r;
  r.linearizable = required_or_default(rows, "linearizability");
  r.watch = required_or_default(rows, "watch");
  r.liveness = required_or_default(rows, "liveness");
  r.durability = required_or_default(rows, "raft-invariants");
  return r;
}

}  // namespace dst::checker::suite
