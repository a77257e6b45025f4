// The check suite: every check of a run, in one place. Given a run's history and what the world
// decided itself (plain data: checker/ knows nothing of world/), it runs the history checkers
// (watch guarantees, kube, the etcd model, lease keep-alives), turns everything into CheckRows
// (history/checks.h) and asks decide_verdict() for the verdict. `dst run` (every world), `dst check`
// of a run database or an etcd robustness report, `dst report`'s violation page, and through the
// runs they start `dst sweep`, `explore` and `shrink`, all come here.
//
// Adding a check: its checker, a field for its typed result in SuiteResult, and one line in the
// table of check_suite.cc (kChecks). Its row then reaches `dst run`'s and `dst check`'s output
// (suite_text.h), the run database's `checks` table, the report, the result file and sweeps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/limits.h"
#include "base/status.h"
#include "checker/kube/kube_checker.h"
#include "checker/linearizability/etcd_checker.h"
#include "checker/suite/evidence.h"
#include "checker/suite/lease_keepalive.h"
#include "checker/watch/watch_checker.h"
#include "history/checks.h"
#include "history/history.h"

namespace dst::checker::suite {

// One thing the world decided by watching the cluster itself, not its clients.
struct WorldFinding {
  bool ok = true;
  std::string summary;        // one line: what was decided
  std::string first_message;  // the first thing that broke ("" when ok)
  uint64_t violations = 0;
};

// What the world itself found; nullopt where the target does not let it look (an imported
// history, or a real cluster whose Raft state is hidden): that row is skipped, saying why.
struct WorldFindings {
  std::optional<WorldFinding> raft_invariants;
  std::optional<WorldFinding> liveness;
  std::optional<WorldFinding> member_agreement;
  std::string not_observed = "not observed: no cluster of dst's";  // the skipped rows' summary
  // --check-determinism: the seed ran twice; the report says where the runs parted, if they did.
  bool determinism_checked = false;
  bool deterministic = true;
  std::string determinism_report;
  std::optional<std::string> scenario_error;  // the scenario itself failed: the run is an error (exit 2)
};

// Which checks fail the run (a scenario's check{}); the others are reported only.
struct Requirements {
  bool linearizable = true;  // linearizability and the lease keep-alive answers
  bool watch = true;         // the watch guarantees and the kube checks
  bool liveness = true;
  bool durability = true;    // raft invariants and member agreement
  bool operator==(const Requirements&) const = default;
};

struct SuiteOptions {
  Requirements required;
  uint64_t step_budget = limits::kCheckerStepsDefault;  // the etcd model's
  // The history was imported from a format that does not record every field of a key-value
  // (an etcd robustness report): the checkers compare only what was recorded.
  bool partial_kvs = false;
};

struct SuiteResult {
  // The checkers' typed results.
  watch::Report watch;
  std::optional<kube::Report> kube;  // only when the history has informers
  std::optional<Result<etcd::EtcdVerdict>> linearizability;
  KeepAliveReport keepalive;
  // One row per check, in the suite's order, and each row's first violation (parallel to rows).
  std::vector<history::CheckRow> rows;
  std::vector<std::optional<Evidence>> evidence;
  history::RunVerdict verdict;  // decide_verdict(rows)

  const history::CheckRow* row(std::string_view name) const;  // nullptr when the suite has none
  // The deciding check's first violation, when the verdict is a violation the history shows
  // (nullptr for a pass, or a verdict decided outside the history: raft invariants, liveness, ...).
  const Evidence* first_violation() const;
  const Evidence* evidence_of(std::string_view check) const;
};

SuiteResult run_check_suite(const history::History& history, const WorldFindings& world, const SuiteOptions& options);

// A recorded run read back: what its world found and required, as its stored rows say, so that
// `dst check RUN.db` and `dst report` decide as the `dst run` that wrote them. Rows a run did not
// store (an unfinished run, or an older dst) are taken as not observed, and required.
WorldFindings findings_from_rows(const std::vector<history::CheckRow>& rows);
Requirements requirements_from_rows(const std::vector<history::CheckRow>& rows);

// The names of the suite's checks, in order (the world's, the history's, determinism, scenario).
std::vector<std::string> check_names();

}  // namespace dst::checker::suite
