// See plot_data.h: the operation-derived numbers (latency, percentiles, throughput, unavailability)
// and the time extent. The leader timeline is in plot_leader.cc.
#include "reports/plot_data.h"

#include <algorithm>
#include <map>

#include <google/protobuf/descriptor.h>

#include "base/assert.h"
#include "reports/plot_limits.h"

namespace dst::reports {

std::string request_kind(const etcdserverpb::ApiRequest& request) {
  // The oneof's field name, as history/run_db_writer.cc stores it in operations.kind.
  const google::protobuf::FieldDescriptor* field =
      etcdserverpb::ApiRequest::descriptor()->FindFieldByNumber(request.request_case());
  return field == nullptr ? "none" : field->name();
}

int64_t percentile_nearest_rank(const std::vector<int64_t>& sorted, int q_permille) {
  DST_ASSERT(q_permille > 0 && q_permille <= 1000);
  if (sorted.empty()) return 0;
  // rank = ceil(q * n), 1-based; in integers so that p99 of 100 values is exactly the 99th.
  const uint64_t n = sorted.size();
  const uint64_t rank = (static_cast<uint64_t>(q_permille) * n + 999) / 1000;
  DST_ASSERT(rank >= 1 && rank <= n);
  return sorted[rank - 1];
}

std::vector<TimeWindow> find_unavailable(const std::vector<int64_t>& ok_returns_sorted, int64_t workload_start_ns,
                                         int64_t workload_end_ns, int64_t min_ns) {
  DST_ASSERT(std::is_sorted(ok_returns_sorted.begin(), ok_returns_sorted.end()));
  DST_ASSERT(min_ns > 0);
  std::vector<TimeWindow> out;
  if (workload_end_ns <= workload_start_ns) return out;
  int64_t last = workload_start_ns;  // the last moment something was known to work
  for (const int64_t t : ok_returns_sorted) {
    const int64_t at = std::min(t, workload_end_ns);
    if (at - last >= min_ns) out.push_back({last, at});
    last = std::max(last, at);
  }
  if (workload_end_ns - last >= min_ns) out.push_back({last, workload_end_ns});
  return out;
}

namespace {

// The last moment the run recorded anything, rounded up to a whole second (at least 1 s).
int64_t run_end_ns(const history::History& h, const std::vector<history::MetricSample>& metrics) {
  int64_t end = 0;
  for (const history::Operation& o : h.operations) {
    end = std::max(end, o.invoke_ns);
    if (o.return_ns != history::kNeverReturned) end = std::max(end, o.return_ns);
  }
  for (const history::Fault& f : h.faults) {
    end = std::max(end, f.start_ns);
    if (f.end_ns != history::kNeverReturned) end = std::max(end, f.end_ns);
  }
  for (const history::MetricSample& m : metrics) end = std::max(end, m.at_ns);
  const int64_t s = 1'000'000'000;
  return std::max<int64_t>(s, (end + s - 1) / s * s);
}

void fill_percentiles(KindStats& k, std::vector<int64_t>& ok_latencies) {
  std::sort(ok_latencies.begin(), ok_latencies.end());
  k.p50_ns = percentile_nearest_rank(ok_latencies, 500);
  k.p90_ns = percentile_nearest_rank(ok_latencies, 900);
  k.p99_ns = percentile_nearest_rank(ok_latencies, 990);
  k.max_ns = percentile_nearest_rank(ok_latencies, 1000);
}

void count_outcome(KindStats& k, const history::Operation& o) {
  switch (o.outcome) {
    case history::Outcome::kOk: ++k.ok; break;
    case history::Outcome::kFailed: ++k.failed; break;
    case history::Outcome::kUnknown: ++k.unknown; break;
  }
  if (o.return_ns == history::kNeverReturned) ++k.never_returned;
}

// Latency points, counts and percentiles per kind, and the ok return times (for unavailability).
void add_operations(const history::History& h, RunPlotData& d, std::vector<int64_t>& ok_returns) {
  std::map<std::string, size_t> index;  // kind -> position in d.kinds (ordered: kinds by name)
  for (const history::Operation& o : h.operations) index.emplace(request_kind(o.request), 0);
  for (auto& [kind, i] : index) {
    i = d.kinds.size();
    d.kinds.push_back(KindStats{kind});
  }
  d.latency.resize(d.kinds.size());
  std::vector<std::vector<int64_t>> ok_latencies(d.kinds.size());
  std::vector<int64_t> all_ok;
  d.all.kind = "all";
  for (const history::Operation& o : h.operations) {
    const size_t k = index.at(request_kind(o.request));
    const bool never = o.return_ns == history::kNeverReturned;
    LatencyPoint p{o.id, o.invoke_ns, (never ? d.end_ns : o.return_ns) - o.invoke_ns, o.outcome, never};
    DST_ASSERT_GE(p.latency_ns, 0);
    d.latency[k].push_back(p);
    count_outcome(d.kinds[k], o);
    count_outcome(d.all, o);
    if (o.outcome == history::Outcome::kOk) {
      DST_ASSERT(!never);
      ok_latencies[k].push_back(p.latency_ns);
      all_ok.push_back(p.latency_ns);
      ok_returns.push_back(o.return_ns);
    }
  }
  for (size_t k = 0; k < d.kinds.size(); ++k) fill_percentiles(d.kinds[k], ok_latencies[k]);
  fill_percentiles(d.all, all_ok);
}

void add_throughput(const history::History& h, RunPlotData& d) {
  const size_t buckets =
      std::min<size_t>(static_cast<size_t>(d.end_ns / kThroughputBucketNs), kThroughputBucketsMax);
  d.ok_per_bucket.assign(buckets, std::vector<uint64_t>(d.kinds.size(), 0));
  d.not_ok_per_bucket.assign(buckets, 0);
  std::map<std::string, size_t> index;
  for (size_t k = 0; k < d.kinds.size(); ++k) index.emplace(d.kinds[k].kind, k);
  for (const history::Operation& o : h.operations) {
    if (o.return_ns == history::kNeverReturned) continue;
    const auto b = static_cast<size_t>(o.return_ns / kThroughputBucketNs);
    if (b >= buckets) continue;  // past kThroughputBucketsMax
    if (o.outcome == history::Outcome::kOk) {
      ++d.ok_per_bucket[b][index.at(request_kind(o.request))];
    } else {
      ++d.not_ok_per_bucket[b];
    }
  }
}

}  // namespace

RunPlotData build_plot_data(const history::History& history, const std::vector<history::MetricSample>& metrics) {
  RunPlotData d;
  d.end_ns = run_end_ns(history, metrics);
  if (!history.operations.empty()) {
    d.workload_start_ns = history.operations.front().invoke_ns;
    for (const history::Operation& o : history.operations) {
      d.workload_start_ns = std::min(d.workload_start_ns, o.invoke_ns);
      d.workload_end_ns = std::max(d.workload_end_ns, o.invoke_ns);
    }
  }
  std::vector<int64_t> ok_returns;
  add_operations(history, d, ok_returns);
  add_throughput(history, d);
  std::sort(ok_returns.begin(), ok_returns.end());
  d.unavailable = find_unavailable(ok_returns, d.workload_start_ns, d.workload_end_ns, kUnavailableMinNs);
  d.leader = build_leader_timeline(metrics);
  d.faults = history.faults;
  std::stable_sort(d.faults.begin(), d.faults.end(),
                   [](const history::Fault& a, const history::Fault& b) { return a.start_ns < b.start_ns; });
  d.faults_total = d.faults.size();
  if (d.faults.size() > kFaultsDrawnMax) d.faults.resize(kFaultsDrawnMax);
  d.restores = summarize_restores(history);
  d.defrags = summarize_defrags(history);
  return d;
}

}  // namespace dst::reports
