// The etcd checker on a history with restores from snapshots: every timeline of revisions
// (history/restore_epochs.h) checked on its own, the verdicts merged; plus the split's own rule,
// restore-revision (a restored cluster answering below the revision it starts at). The stats add
// up the timelines' (an operation kept in several is counted in each); the step budget is shared.
#include <algorithm>
#include <set>

#include "checker/linearizability/etcd_internal.h"
#include "history/restore_epochs.h"

namespace dst::checker::etcd {

namespace {

void add_stats(EtcdStats& into, const EtcdStats& s) {
  into.operations = std::max(into.operations, s.operations);  // every timeline holds every id
  into.revisions = std::max(into.revisions, s.revisions);
  into.revisions_by_ok_write += s.revisions_by_ok_write;
  into.revisions_by_unknown_write += s.revisions_by_unknown_write;
  into.revisions_by_lease += s.revisions_by_lease;
  into.unknown_writes += s.unknown_writes;
  into.gaps += s.gaps;
  into.gaps_explained += s.gaps_explained;
  into.uncertain_revisions += s.uncertain_revisions;
  into.revisions_searched += s.revisions_searched;
  into.combinations_tried += s.combinations_tried;
  into.choices_pruned += s.choices_pruned;
  into.checks += s.checks;
  into.checks_skipped += s.checks_skipped;
  into.steps += s.steps;
}

}  // namespace

Result<EtcdVerdict> check_etcd_across_restores(const history::History& history, const EtcdCheckOptions& options) {
  EtcdVerdict out;
  out.verdict = Verdict::kLinearizable;
  for (const history::RevisionWentBack& w : history::revisions_went_back(history)) {
    if (out.violations.size() >= options.violations_max) break;
    EtcdViolation v;
    v.rule = "restore-revision";
    v.message = w.message;
    v.revision = w.revision;
    if (!w.watch) {
      v.ops.push_back(w.op);
      v.lines.push_back(describe_operation(history.operations[w.op]));
    }
    out.violations.push_back(std::move(v));
  }
  EtcdCheckOptions each = options;
  // A violation among operations two timelines share is found in both: reported once.
  std::set<std::pair<std::string, std::vector<uint64_t>>> seen;
  for (size_t k = 0; k <= history.restores.size(); ++k) {
    const history::RestoreTimeline tl = history::restore_timeline(history, k);  // one copy at a time
    // The step budget is the whole check's, shared by the timelines in turn.
    each.step_budget = options.step_budget > out.stats.steps ? options.step_budget - out.stats.steps : 0;
    Result<EtcdVerdict> r = check_etcd_timeline(tl.history, each);
    if (!r.is_ok()) return r.status();
    add_stats(out.stats, r->stats);
    for (EtcdViolation& v : r->violations) {
      if (out.violations.size() >= options.violations_max) break;
      if (!v.ops.empty() && !seen.insert({v.rule, v.ops}).second) continue;
      v.message = "[" + tl.label + "] " + v.message;
      out.violations.push_back(std::move(v));
    }
    if (r->verdict == Verdict::kUnknown && out.unknown_reason.empty())
      out.unknown_reason = "[" + tl.label + "] " + r->unknown_reason;
    for (std::string& s : r->skipped)
      if (out.skipped.size() < 8) out.skipped.push_back("[" + tl.label + "] " + s);
    if (r->verdict == Verdict::kUnknown && out.verdict == Verdict::kLinearizable) out.verdict = Verdict::kUnknown;
  }
  if (!out.violations.empty()) {
    out.verdict = Verdict::kViolation;
    out.unknown_reason.clear();
  }
  return out;
}

}  // namespace dst::checker::etcd
