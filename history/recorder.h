// Where clients report what they see, as it happens: an operation at its invocation and again at
// its return, each watch segment and response. The in-memory recorder keeps a History; the run
// database's writer (history/run_db.h) persists the same calls incrementally, so a run that is
// killed still leaves everything up to that moment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "history/history.h"

namespace dst::history {

class Recorder {
 public:
  virtual ~Recorder() = default;
  // An operation was sent: returns its id (dense, in invocation order). `op.id` is ignored.
  virtual uint64_t invoke(const Operation& op) = 0;
  // Its answer (or the client's giving up) arrived.
  virtual void complete(uint64_t id, Outcome outcome, const etcdserverpb::ApiResponse& response, int64_t return_ns) = 0;
  // A logical watch starts (returns its id), and each of its segments / responses / breaks.
  virtual uint64_t watch_started(uint32_t client) = 0;
  virtual void segment_started(uint64_t watch, const WatchSegment& segment) = 0;
  virtual void watch_response(uint64_t watch, WatchResponse response) = 0;
  virtual void segment_broken(uint64_t watch) = 0;
  virtual uint64_t fault_started(const Fault& fault) = 0;
  virtual void fault_ended(uint64_t fault, int64_t end_ns) = 0;
  // A step of the fault schedule was applied (the nemesis's executor calls it once per step).
  virtual void schedule_step(const ScheduleStep& step) = 0;
  // The cluster was restored from a snapshot (history.h Restore), once the new cluster started.
  virtual void restored(const Restore& restore) = 0;
  // A periodic sample of the harness's view of the cluster (leader, term, commit index...) at
  // virtual time `at_ns`; `member` is 1-based, 0 for a cluster-wide value.
  virtual void metric(int64_t at_ns, uint32_t member, std::string_view name, int64_t value) = 0;
  // Informers (kube_history.h): one starts (returns its id, dense), then its LISTs, its WATCHes
  // (each started with no events, then its events, then its end), the keys its controller
  // processed, and its store when the run ended (once).
  virtual uint64_t informer_started(uint32_t client, const std::string& prefix) = 0;
  virtual void informer_list(uint64_t informer, const KubeList& list) = 0;
  virtual void informer_watch_started(uint64_t informer, const KubeWatch& watch) = 0;
  virtual void informer_watch_event(uint64_t informer, const KubeWatchEvent& event) = 0;  // to its latest watch
  virtual void informer_watch_ended(uint64_t informer, const std::string& end, int64_t at_ns) = 0;
  virtual void informer_processed(uint64_t informer, const KubeProcessed& processed) = 0;
  virtual void informer_finished(uint64_t informer, int64_t at_ns, int64_t resource_version,
                                 const std::vector<KubeObject>& objects) = 0;
};

// One metric sample as the in-memory recorder keeps it (the run database's MetricSample).
struct Metric {
  int64_t at_ns = 0;
  uint32_t member = 0;
  std::string name;
  int64_t value = 0;
};

// Metric samples the in-memory recorder keeps: 2M samples (~100 MiB) is hours of virtual time at
// the default sampling (a few dozen values every 500 ms); past it samples are counted, not kept,
// since no verdict depends on them and a long run must not fail for its metrics.
inline constexpr size_t kMemoryMetricsMax = 2'000'000;

// Keeps everything in a History (bounded by the caller's run length; asserts past the limits).
class MemoryRecorder : public Recorder {
 public:
  uint64_t invoke(const Operation& op) override;
  void complete(uint64_t id, Outcome outcome, const etcdserverpb::ApiResponse& response, int64_t return_ns) override;
  uint64_t watch_started(uint32_t client) override;
  void segment_started(uint64_t watch, const WatchSegment& segment) override;
  void watch_response(uint64_t watch, WatchResponse response) override;
  void segment_broken(uint64_t watch) override;
  uint64_t fault_started(const Fault& fault) override;
  void fault_ended(uint64_t fault, int64_t end_ns) override;
  void schedule_step(const ScheduleStep& step) override;
  void restored(const Restore& restore) override;
  void metric(int64_t at_ns, uint32_t member, std::string_view name, int64_t value) override;
  uint64_t informer_started(uint32_t client, const std::string& prefix) override;
  void informer_list(uint64_t informer, const KubeList& list) override;
  void informer_watch_started(uint64_t informer, const KubeWatch& watch) override;
  void informer_watch_event(uint64_t informer, const KubeWatchEvent& event) override;
  void informer_watch_ended(uint64_t informer, const std::string& end, int64_t at_ns) override;
  void informer_processed(uint64_t informer, const KubeProcessed& processed) override;
  void informer_finished(uint64_t informer, int64_t at_ns, int64_t resource_version,
                         const std::vector<KubeObject>& objects) override;

  const History& history() const { return history_; }
  History& history() { return history_; }
  // The metric samples in the order they were recorded (at most kMemoryMetricsMax), and how many
  // more arrived after that limit.
  const std::vector<Metric>& metrics() const { return metrics_; }
  uint64_t metrics_dropped() const { return metrics_dropped_; }

 private:
  History history_;
  std::vector<Metric> metrics_;
  uint64_t metrics_dropped_ = 0;
};

}  // namespace dst::history
