// The etcd-model linearizability checker for recorded runs (issue 5's fast path): revisions pin the
// order. Every acknowledged write's response revision places it; watch events and the key-values
// reads return reveal writes with unknown outcome, lease expiries and range-delete keys. Merged,
// they form the truth timeline (revision -> its events), replayed into every key's state at every
// revision; then every operation is checked against the state at its revision and against real
// time. Where nothing pins a revision (a gap) the checker tries the unknown-outcome writes and
// lease expiries that could explain it (observations rule many out: a key seen created or
// unchanged across it); if exactly one fits it is taken; if several do, a depth-first search
// takes each in turn and backtracks at the first failing check (etcd_search.cc). Where nothing
// fits but the state is not fully known, the keys it may have touched become uncertain and
// checks that need them are skipped (and counted), which turns the verdict into Unknown rather
// than a guess; so does a search that runs out of budget.
//
// Rules (EtcdViolation::rule):
//   duplicate-revision     two acknowledged writes answered with the same revision
//   sources-disagree       two observations (watch events, returned key-values) of one
//                          (revision, key) differ
//   write-effect           an acknowledged write's effects differ from what was observed at its
//                          revision (or from what it must do on the state before it)
//   write-response         its response (prev_kv, deleted, nested range results) differs from the
//                          state before it
//   txn-succeeded          a txn's `succeeded` differs from its compares on the state
//   lost-write             a watch that covered the write's revision and key did not see it
//   misplaced-write        an acknowledged write's value observed at another revision
//   real-time              an acknowledged write (or lease/compaction op) ordered against real
//                          time, or observed before it was sent
//   stale-read             a linearizable read's revision is older than something that completed
//                          before the read started
//   read-result            a read's key-values/count/more differ from the state at its revision
//   value-never-written    a value observed that no request ever wrote
//   failed-write-visible   the effect of a write that certainly failed was observed
//   unknown-write-too-early  a write with unknown outcome took effect before it was sent
//   unexplained-event      an observed event that no request or lease expiry can explain
//   future-revision        a revision served that no write created or can have created (or a
//                          read of a future revision)
//   compaction             a compaction that did not raise the compact revision, or a
//                          linearizable read of a revision compacted before it started
//   lease                  a key kept or attached a lease after its acknowledged revoke
//   restore-revision       after a restore from a snapshot, an answer below the revision the
//                          restored cluster starts at (the snapshot's plus the bump): revisions
//                          went back (history/restore_epochs.h; each timeline of revisions across
//                          restores is otherwise checked on its own, labelled in the message)
//   lease-expired-early    a lease expired before its TTL ran out since the client last refreshed
//                          it: seen gone before t + TTL / (1 + the fastest clock drift), t the
//                          send time of its last acknowledged grant or keep-alive (etcd_lease.cc)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/limits.h"
#include "base/status.h"
#include "checker/linearizability/verdict.h"
#include "history/history.h"

namespace dst::checker::etcd {

struct EtcdCheckOptions {
  // Work units (keys visited, requests executed); past it the verdict is Unknown.
  uint64_t step_budget = limits::kCheckerStepsDefault;
  size_t violations_max = 10;  // violations collected before the check stops looking
  // The history was imported from a format that does not record every field of a key-value
  // (etcd's robustness reports: history/import_etcd_report.h): create_revision 0 and version 0
  // mean "not recorded" (never valid for a present key), and a key-value's lease, a range's `more`
  // and prev_kv(s) are not compared. Never set for dst's own runs, which record everything.
  bool partial_kvs = false;
};

struct EtcdViolation {
  std::string rule;
  std::string message;            // one line: what is wrong
  int64_t revision = 0;           // the revision concerned (0: none)
  std::vector<uint64_t> ops;      // operation ids involved
  std::vector<std::string> lines;  // the operations / events / state involved, one per line
  std::string to_string() const;
};

struct EtcdStats {
  size_t operations = 0;
  int64_t revisions = 0;             // the highest revision seen (revisions are 2..this)
  size_t revisions_by_ok_write = 0;  // pinned by an acknowledged write
  size_t revisions_by_unknown_write = 0;
  size_t revisions_by_lease = 0;  // lease revoke or expiry deletions
  size_t unknown_writes = 0;
  size_t gaps = 0;             // revisions nothing observed
  size_t gaps_explained = 0;   // ... of which exactly one candidate explained
  size_t uncertain_revisions = 0;  // revisions whose effect is not fully known
  size_t revisions_searched = 0;   // made by one of several candidates, chosen by the search
  size_t combinations_tried = 0;   // complete or failed assignments the search went through
  size_t choices_pruned = 0;       // branch points met again in an explored state (not tried twice)
  size_t checks = 0;           // operation checks made
  size_t checks_skipped = 0;   // skipped because they need an uncertain key
  uint64_t steps = 0;
};

struct EtcdVerdict {
  Verdict verdict = Verdict::kUnknown;
  std::vector<EtcdViolation> violations;  // kViolation: the first ones found (in check order)
  std::string unknown_reason;             // kUnknown
  std::vector<std::string> skipped;       // the first few skipped checks, with the reason
  EtcdStats stats;
  std::string summary() const;  // verdict, counts, the first violation
  int exit_code() const;        // 0 linearizable, 1 violation, 3 unknown
};

// kInvalidArgument for a history the checker cannot read (ids not dense, too many operations).
Result<EtcdVerdict> check_etcd(const history::History& history, const EtcdCheckOptions& options = {});

// One operation in a line: "op 12 c3 n2 [1.234567s, 1.250000s] ok put key/3=c3.17 -> rev 45".
std::string describe_operation(const history::Operation& op);
std::string describe_response(const etcdserverpb::ApiResponse& response);

}  // namespace dst::checker::etcd
