// A Recorder that keeps the history in memory (for the checkers at the end of the run) and writes
// every call through to the run database as it happens, so a run killed half-way still leaves a
// readable file with everything up to its last batch. Recorder's calls cannot fail; the first
// write error is kept and reported by status() (the run then reports it and fails).
#pragma once

#include <map>
#include <memory>

#include "history/recorder.h"
#include "history/run_db.h"

namespace dst::history {

class RunDbRecorder : public Recorder {
 public:
  explicit RunDbRecorder(RunDbWriter& writer) : writer_(writer) {}

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
  // Kept in memory as well (metrics()) and written to the metrics table.
  void metric(int64_t at_ns, uint32_t member, std::string_view name, int64_t value) override;
  uint64_t informer_started(uint32_t client, const std::string& prefix) override;
  void informer_list(uint64_t informer, const KubeList& list) override;
  void informer_watch_started(uint64_t informer, const KubeWatch& watch) override;
  void informer_watch_event(uint64_t informer, const KubeWatchEvent& event) override;
  void informer_watch_ended(uint64_t informer, const std::string& end, int64_t at_ns) override;
  void informer_processed(uint64_t informer, const KubeProcessed& processed) override;
  void informer_finished(uint64_t informer, int64_t at_ns, int64_t resource_version,
                         const std::vector<KubeObject>& objects) override;

  const History& history() const { return memory_.history(); }
  const std::vector<Metric>& metrics() const { return memory_.metrics(); }
  // The first error writing the database (ok if none).
  const Status& status() const { return status_; }

 private:
  void keep(const Status& s) {
    if (status_.is_ok() && !s.is_ok()) status_ = s;
  }

  RunDbWriter& writer_;
  MemoryRecorder memory_;
  std::map<uint64_t, int64_t> fault_rows_;  // our fault id -> the database's row id
  Status status_;
};

}  // namespace dst::history
