// See kv_run_findings.h.
#include "world/kv_run_findings.h"

#include "sim/time.h"

namespace dst::world {

namespace {

// Members the recovery had to start again after the heal: shown, since each is a member that went
// down on its own after the faults ended.
std::string restarted_note(const LivenessReport& l) {
  return l.restarted_after_heal.empty() ? "" : "; exited after the heal and restarted: " + l.restarted_after_heal;
}

}  // namespace

checker::suite::WorldFindings kv_run_findings(const KvRunResult& w) {
  checker::suite::WorldFindings f;
  f.raft_invariants = checker::suite::WorldFinding{
      w.invariants_ok,
      w.invariants_ok ? "ok: election, vote, log matching, leader completeness, state machine, read safety"
                      : std::to_string(w.violations.size()) + " violations",
      w.violations.empty() ? "" : w.violations.front(), w.violations.size()};
  f.liveness = checker::suite::WorldFinding{
      w.liveness_ok,
      w.liveness_ok ? "recovered in " + sim::format_duration(w.liveness.recovery) + ", then served in " +
                          sim::format_duration(w.liveness.service) + restarted_note(w.liveness)
                    : w.liveness.detail + restarted_note(w.liveness),
      w.liveness_ok ? "" : w.liveness.detail, w.liveness_ok ? 0u : 1u};
  f.member_agreement = checker::suite::WorldFinding{
      w.members_agree, w.members_agree ? "ok: same state hash at the same applied index" : w.agreement_detail,
      w.members_agree ? "" : w.agreement_detail, w.members_agree ? 0u : 1u};
  if (w.fault_error) f.scenario_error = *w.fault_error;
  return f;
}

}  // namespace dst::world
