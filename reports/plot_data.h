// The numbers behind the run report's plots and tables, computed from a recorded run (its history
// and metric samples): latency points and percentiles per operation kind, ok throughput in 1 s
// buckets, unavailability windows, the leader/term timeline, and the fault windows. Pure and
// deterministic (same run, same numbers); no gnuplot, no files: plot_scripts.h writes them out.
//
// Conventions (docs/report.md):
// - times are virtual ns of the run's clock, as the run database stores them;
// - latency = return_ns - invoke_ns; an unknown outcome that never returned is drawn at the end
//   of the run (it was still outstanding then); percentiles are over ok operations only;
// - throughput counts ok operations by the 1 s bucket of their return;
// - an unavailability window is a gap of >= 1 s, inside the workload's span (first to last
//   invocation), in which no operation completed ok.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/history.h"
#include "reports/defrag_summary.h"
#include "reports/restore_summary.h"
#include "history/run_db.h"

namespace dst::reports {

struct LatencyPoint {
  uint64_t op_id = 0;
  int64_t invoke_ns = 0;
  int64_t latency_ns = 0;  // >= 0; never returned: until the end of the run
  history::Outcome outcome = history::Outcome::kOk;
  bool never_returned = false;
};

// Counts and latency percentiles (nearest rank: the smallest latency with at least q of the ok
// operations at or below it) of one operation kind.
struct KindStats {
  std::string kind;  // the request's name: range, put, delete_range, txn, lease_grant, ...
  uint64_t ok = 0, failed = 0, unknown = 0, never_returned = 0;
  int64_t p50_ns = 0, p90_ns = 0, p99_ns = 0, max_ns = 0;  // of ok operations; 0 when none
  uint64_t total() const { return ok + failed + unknown; }
};

struct TimeWindow {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t length_ns() const { return end_ns - start_ns; }
};

// One stretch of a member's state on the leader timeline.
struct MemberSpan {
  uint32_t member = 0;  // 1-based
  int64_t start_ns = 0, end_ns = 0;
  enum class State : uint8_t { kLeader, kDown } state = State::kLeader;
};

struct TermPoint {
  int64_t at_ns = 0;
  int64_t term = 0;  // the highest term any member that was up reported at that sample
};

struct LeaderTimeline {
  std::vector<uint32_t> members;  // 1-based, sorted
  std::vector<MemberSpan> spans;  // by start, then member
  std::vector<TimeWindow> no_leader;  // no cluster-wide leader (metric leader of member 0 == 0)
  std::vector<TermPoint> terms;   // by time
  uint64_t leader_changes = 0;    // the cluster leader became a different member (none counts not)
  int64_t term_max = 0;
  bool has_samples() const { return !terms.empty() || !spans.empty() || !members.empty(); }
};

struct RunPlotData {
  int64_t end_ns = 0;  // right edge of every time plot: the last thing recorded, up to a whole second
  int64_t workload_start_ns = 0, workload_end_ns = 0;  // first and last invocation (0, 0: no ops)
  std::vector<KindStats> kinds;  // sorted by kind name
  KindStats all;                 // every kind together (kind "all")
  std::vector<std::vector<LatencyPoint>> latency;  // per kinds[i], by operation id
  // ok_per_bucket[b][i]: ok operations of kinds[i] that returned in [b s, b+1 s).
  std::vector<std::vector<uint64_t>> ok_per_bucket;
  std::vector<uint64_t> not_ok_per_bucket;  // failed + unknown returns per bucket (never returned: none)
  std::vector<TimeWindow> unavailable;
  LeaderTimeline leader;
  std::vector<history::Fault> faults;  // by start (stable: recorded order among equal starts)
  uint64_t faults_total = 0;           // faults in the run (faults is capped at kFaultsDrawnMax)
  std::vector<RestoreSummary> restores;  // one per restore from a snapshot (restore_summary.h)
  std::vector<DefragWindow> defrags;     // one per answered defragment request (defrag_summary.h)
};

// The request's kind as the run database names it ("put", "range", ...; "none" if unset).
std::string request_kind(const etcdserverpb::ApiRequest& request);

// Nearest-rank percentile of sorted values, q in per mille (500 = p50, 990 = p99, 1000 = max).
int64_t percentile_nearest_rank(const std::vector<int64_t>& sorted, int q_permille);

// Everything above; `metrics` as RunDbReader::read_metrics returns them (any order).
RunPlotData build_plot_data(const history::History& history, const std::vector<history::MetricSample>& metrics);

// The leader timeline alone (plot_leader.cc): spans run from one sample to the next; the last
// sample closes them.
LeaderTimeline build_leader_timeline(const std::vector<history::MetricSample>& metrics);

// Unavailability windows (>= min_ns without an ok return) inside [workload_start, workload_end],
// given the ok operations' return times sorted.
std::vector<TimeWindow> find_unavailable(const std::vector<int64_t>& ok_returns_sorted, int64_t workload_start_ns,
                                         int64_t workload_end_ns, int64_t min_ns);

}  // namespace dst::reports
