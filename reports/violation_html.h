// A violation as one self-contained HTML page (issue 5): the history around it on a timeline (a
// lane per client and per watch, operations as bars from invoke to return colored by outcome, the
// involved ones highlighted, watch responses as ticks with their revisions, faults as shaded
// bands), then tables of the involved operations and watch responses, and the checker's evidence.
//
// The page is static: inline CSS, inline SVG, a few lines of vanilla JS for hover; no network.
// Deterministic (same input, same bytes) and bounded (report_limits.h): however long the history,
// only the window around the violation is drawn, and what is left out is counted.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/linearizability/etcd_checker.h"
#include "base/status.h"
#include "checker/linearizability/verdict.h"
#include "checker/suite/check_suite.h"
#include "checker/watch/violation.h"
#include "checker/watch/watch_checker.h"
#include "history/history.h"
#include "history/imported_history.h"

namespace dst::reports {

struct ViolationView {
  std::string title;        // "Not linearizable: stale-read at revision 412"
  std::string rule;         // the rule or guarantee broken: "stale-read", "reliable"
  std::string explanation;  // one paragraph: what the rule says and what was seen
  std::vector<uint64_t> ops;        // operation ids involved (highlighted)
  std::vector<uint64_t> watches;    // watch ids involved (their lanes come first, highlighted)
  std::vector<int64_t> revisions;   // revisions involved (watch ticks carrying them are highlighted)
  // The time window drawn, virtual ns; unset: from a bit before the earliest involved operation's
  // invoke to a bit after the latest return (or detection time).
  std::optional<int64_t> window_start_ns;
  std::optional<int64_t> window_end_ns;
  int64_t detected_at_ns = -1;      // where the violation showed (a dashed line), -1: none
  std::vector<std::string> lines;   // the checker's own evidence, one per line
};

std::string render_violation_html(const history::History& history, const ViolationView& view);

// The etcd-model checker's violation: its rule, message, revision, operations and lines.
ViolationView from_etcd_violation(const history::History& history, const checker::etcd::EtcdViolation& violation);
// A watch checker violation: its guarantee, the watch, the offending response (its revisions and
// time), and the operations its evidence names ("op 12 ...").
ViolationView from_watch_violation(const history::History& history, const checker::watch::Violation& violation);

// A history imported from Porcupine/Jepsen and its search result: the counterexample's prefix
// (outlined) and the operations that cannot come next (highlighted), on an axis of event
// positions; only operations of the counterexample's key when they all share one. Without a
// counterexample, a page saying so.
std::string render_imported_html(const history::ImportedHistory& history, const checker::CheckResult& result);

// Any check's first violation from its plain evidence (checker/suite/evidence.h): the kube checks,
// the lease keep-alive answers, and whatever check the suite gains next.
ViolationView from_evidence(const history::History& history, const checker::suite::Evidence& evidence);

// The view of the first violation of `check` in a suite's result: the etcd checker's and the
// watch checker's through their own adapters, any other check's from its evidence; nullopt when
// that check found none in the history (or is one the world decided: raft invariants, ...).
std::optional<ViolationView> suite_violation_view(const history::History& history,
                                                  const checker::suite::SuiteResult& suite, std::string_view check);

// The page of a checked run's first violation, as `dst check --html` and `dst report` write it:
// the check that decided the verdict (history/checks.h), or when that one is not a check of the
// history, the first failed history check; nullopt when no history check found a violation.
std::optional<std::string> render_suite_violation_html(const history::History& history,
                                                       const checker::suite::SuiteResult& suite);

// Writes a page (replacing the file); kIoError naming the path if it cannot.
Status write_report_file(const std::string& path, const std::string& content);

}  // namespace dst::reports
