// Inside the kube checker: what the checks of one informer share (the informer, etcd's truth under
// its prefix, where violations and counts go) and the checks themselves, one file per concept:
// list_checks.cc (list-rv, list-state), watch_checks.cc (watch-events, watch-bookmark),
// informer_checks.cc (never-back, informer-convergence, workqueue).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "checker/kube/kube_checker.h"
#include "checker/kube/prefix_truth.h"
#include "history/history.h"

namespace dst::checker::kube::internal {

// Violations collected before the report keeps the earliest kViolationsKept: bounds memory on a
// history where everything is wrong, while still letting the report pick the first ones in time.
inline constexpr size_t kViolationsCollectedMax = 10'000;

// Collects violations within the per-(informer, check) and overall bounds; counts every one.
class Sink {
 public:
  explicit Sink(Report& report) : report_(report) {}
  void add(Violation v);
  // Keeps the earliest kViolationsKept in the report.
  void finish();

 private:
  Report& report_;
  std::map<std::pair<uint64_t, int>, size_t> per_informer_check_;
  std::vector<Violation> collected_;
};

struct Context {
  const history::Informer& informer;
  const PrefixTruth& truth;
  Sink& sink;
  Report& report;

  void violation(Check check, uint32_t apiserver, int64_t at_ns, std::string what,
                 std::vector<std::string> evidence) const;
  Tally& tally(Check check) const { return report.tallies[static_cast<size_t>(check)]; }
};

// An informer's lists and watches in the order it made them (their `step`).
struct Step {
  const history::KubeList* list = nullptr;
  const history::KubeWatch* watch = nullptr;
};
std::vector<Step> steps_of(const history::Informer& informer);

// Which step or event of an informer something was, described only when a violation shows it.
struct Where {
  const history::KubeList* list = nullptr;
  const history::KubeWatch* watch = nullptr;
  size_t event = SIZE_MAX;  // with `watch`: SIZE_MAX for its start
  std::string describe() const;
};

// The informer's own store as its recorded steps drive it, with InformerStore's rules (kube/
// informer_store.h): a LIST older than what it has is refused; an event not after its rv, or that
// does not fit (ADDED for a key it holds, MODIFIED/DELETED for one it does not), is refused and
// ends the watch. Tells the rv it really holds and what gave it, and when its handlers last heard
// of each key (a LIST notifies every key it or the store held).
class InformerModel {
 public:
  bool list(const history::KubeList& l);                         // false: refused
  bool event(const history::KubeWatch& w, size_t i);  // false: refused (the informer ends the watch)
  int64_t rv() const { return rv_; }
  const Where& rv_by() const { return rv_by_; }
  const std::map<std::string, int64_t>& told() const { return told_; }

 private:
  std::map<std::string, int64_t> store_;  // key -> object rv
  std::map<std::string, int64_t> told_;   // key -> rv of the last notification
  int64_t rv_ = 0;
  int64_t complete_ = 0;  // a list or bookmark said everything up to here was delivered
  Where rv_by_;
};

void check_lists(const Context& ctx);        // list-rv, list-state
void check_watches(const Context& ctx);      // watch-events, watch-bookmark
void check_never_back(const Context& ctx);   // never-back
void check_convergence(const Context& ctx);  // informer-convergence
void check_workqueue(const Context& ctx);    // workqueue

// How the report shows things.
std::string describe_object(const history::KubeObject& o);                  // "'k'='v' rv 7"
std::string describe_event(const history::KubeWatchEvent& e, size_t index);  // "#3 MODIFIED 'k'='v' rv 7 at 1.2s"
std::string describe_etcd(const PrefixEvent& e);    // "PUT 'k'='v' @7 (op 12 (client 3, member 1) returned 1.2s)"
std::string describe_list(const history::KubeList& l);    // "LIST (step 2, apiserver 1) asked 0, answered rv 9 at 1.2s"
std::string describe_watch(const history::KubeWatch& w);  // "WATCH (step 3, apiserver 1) from rv 9, opened 1.2s"
// Appends at most kEvidenceLinesMax of `lines`, then a line counting the rest.
void append_capped(std::vector<std::string>& evidence, const std::vector<std::string>& lines);

// Compares a set of objects (a LIST's or the final store) with etcd's P-state at `revision`; the
// differences as evidence lines ("missing", "extra", "differs"), counting what was compared.
struct StateDiff {
  size_t missing = 0, extra = 0, differ = 0, outside = 0;
  std::vector<std::string> lines;
  bool empty() const { return missing + extra + differ + outside == 0; }
  std::string summary() const;  // "1 missing, 2 extra, 0 different"
};
StateDiff diff_state(const PrefixTruth& truth, const std::vector<history::KubeObject>& objects, int64_t revision,
                     Tally& tally);

}  // namespace dst::checker::kube::internal
