// The Kubernetes-layer checks (issue #8): what every informer saw from the apiservers, judged
// against etcd's events under the informer's prefix P as the watch checker's truth knows them
// (checker/watch/truth.h: write responses and etcd watch streams, the apiservers' own included).
//
// The checks, each named in its violations:
//   list-rv               a LIST "not older than" R answered below R; a consistent LIST (R = 0)
//                         answered below a revision etcd had before the LIST was sent
//   list-state            a LIST at resourceVersion V does not hold exactly etcd's objects under P
//                         at V (key, value, resourceVersion = mod_revision)
//   watch-events          a WATCH from R does not deliver etcd's P-events after R in revision order,
//                         each once, none missing (a prefix of that sequence: it may end any time),
//                         with the right type (ADDED iff the key did not exist before) and value;
//                         or the informer watched from above the resourceVersion it held, skipping
//                         events
//   watch-bookmark        a BOOKMARK at B arrived before a P-event <= B, or an event <= B after it
//   never-back            along the informer's life the resourceVersion it was given went back: a
//                         LIST answered or a WATCH started below it, an event or bookmark at or
//                         below the last one (one revision may carry several keys)
//   informer-convergence  the final store differs from etcd's P-state at the final resourceVersion,
//                         or that resourceVersion is below a P-event etcd made before the end
//   workqueue             a key whose last P-event (revision r) the informer was told of was never
//                         processed by its controller at an informer resourceVersion >= r
//
// Soundness first: a comparison is made only where the truth proves etcd's side (prefix_truth.h
// says how); the others are counted as skipped, never guessed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "history/history.h"

namespace dst::checker::kube {

enum class Check : uint8_t {
  kListRv,
  kListState,
  kWatchEvents,
  kWatchBookmark,
  kNeverBack,
  kInformerConvergence,
  kWorkqueue,
};
inline constexpr size_t kCheckCount = 7;
const char* check_name(Check c);  // "list-rv", "list-state", ...

// Violations a report keeps (the earliest in time); the rest are only counted.
inline constexpr size_t kViolationsKept = 20;
// Violations kept per (informer, check): one broken informer must not crowd out the others.
inline constexpr size_t kViolationsPerInformerCheckMax = 5;
// Lines of expected/seen objects or events one violation lists; a last line counts the rest.
inline constexpr size_t kEvidenceLinesMax = 6;

struct Violation {
  Check check = Check::kWatchEvents;
  uint64_t informer = 0;
  uint32_t client = 0;
  uint32_t apiserver = 0;  // the apiserver that served the offending LIST/WATCH (0: not one answer's fault)
  int64_t at_ns = 0;       // when the offending answer/event arrived (or the run ended)
  std::string what;        // one sentence: what was expected and what was seen
  std::vector<std::string> evidence;

  // "watch-events: informer 2 (client 7, apiserver 1) at 1.250000s: ...\n    evidence"
  std::string to_string() const;
};

// What one check compared, and what it could not because the truth did not know etcd's side.
// Units per check: list-rv lists; list-state and informer-convergence keys of a list / final
// store; watch-events events; watch-bookmark bookmarks; never-back lists, watches and events;
// workqueue keys.
struct Tally {
  size_t checked = 0;
  size_t skipped = 0;
};

struct Report {
  std::vector<Violation> violations;  // the first kViolationsKept in time
  size_t violations_total = 0;
  std::array<size_t, kCheckCount> violations_by_check{};
  std::array<Tally, kCheckCount> tallies{};
  size_t informers = 0;
  size_t lists = 0;    // LISTs answered (ok)
  size_t watches = 0;
  size_t events = 0;   // watch events other than bookmarks
  size_t bookmarks = 0;

  bool ok() const { return violations_total == 0; }
  // The verdict, the counts, what was checked and skipped, and every kept violation.
  std::string to_string() const;
};

Report check(const history::History& history);

}  // namespace dst::checker::kube
