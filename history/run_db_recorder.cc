#include "history/run_db_recorder.h"

namespace dst::history {

uint64_t RunDbRecorder::invoke(const Operation& op) {
  const uint64_t id = memory_.invoke(op);
  keep(writer_.operation_invoked(memory_.history().operations[id]));
  return id;
}

void RunDbRecorder::complete(uint64_t id, Outcome outcome, const etcdserverpb::ApiResponse& response,
                             int64_t return_ns) {
  memory_.complete(id, outcome, response, return_ns);
  keep(writer_.operation_returned(id, return_ns, outcome, response));
}

uint64_t RunDbRecorder::watch_started(uint32_t client) {
  const uint64_t id = memory_.watch_started(client);
  keep(writer_.watch_created(id, client));
  return id;
}

void RunDbRecorder::segment_started(uint64_t watch, const WatchSegment& segment) {
  memory_.segment_started(watch, segment);
  keep(writer_.watch_segment_started(watch, segment.member, segment.created_ns, segment.request));
}

void RunDbRecorder::watch_response(uint64_t watch, WatchResponse response) {
  keep(writer_.watch_response(watch, response.at_ns, response.response));
  memory_.watch_response(watch, std::move(response));
}

void RunDbRecorder::segment_broken(uint64_t watch) {
  memory_.segment_broken(watch);
  keep(writer_.watch_segment_broken(watch));
}

uint64_t RunDbRecorder::fault_started(const Fault& fault) {
  const uint64_t id = memory_.fault_started(fault);
  auto row = writer_.fault_started(fault.kind, fault.target, fault.start_ns);
  if (row.is_ok()) fault_rows_[id] = *row;
  else keep(row.status());
  return id;
}

void RunDbRecorder::schedule_step(const ScheduleStep& step) {
  memory_.schedule_step(step);
  keep(writer_.schedule_step(step));
}

void RunDbRecorder::restored(const Restore& restore) {
  memory_.restored(restore);
  keep(writer_.restored(restore));
}

void RunDbRecorder::fault_ended(uint64_t fault, int64_t end_ns) {
  memory_.fault_ended(fault, end_ns);
  auto it = fault_rows_.find(fault);
  if (it != fault_rows_.end()) keep(writer_.fault_ended(it->second, end_ns));
}

void RunDbRecorder::metric(int64_t at_ns, uint32_t member, std::string_view name, int64_t value) {
  memory_.metric(at_ns, member, name, value);
  keep(writer_.metric(at_ns, member, name, value));
}

// Informers: the memory copy first (it asserts the recorder's limits and invariants), then the
// same call to the database.
uint64_t RunDbRecorder::informer_started(uint32_t client, const std::string& prefix) {
  const uint64_t id = memory_.informer_started(client, prefix);
  keep(writer_.informer_started(id, client, prefix));
  return id;
}

void RunDbRecorder::informer_list(uint64_t informer, const KubeList& list) {
  memory_.informer_list(informer, list);
  keep(writer_.informer_list(informer, list));
}

void RunDbRecorder::informer_watch_started(uint64_t informer, const KubeWatch& watch) {
  memory_.informer_watch_started(informer, watch);
  keep(writer_.informer_watch_started(informer, watch));
}

void RunDbRecorder::informer_watch_event(uint64_t informer, const KubeWatchEvent& event) {
  memory_.informer_watch_event(informer, event);
  keep(writer_.informer_watch_event(informer, event));
}

void RunDbRecorder::informer_watch_ended(uint64_t informer, const std::string& end, int64_t at_ns) {
  memory_.informer_watch_ended(informer, end, at_ns);
  keep(writer_.informer_watch_ended(informer, end, at_ns));
}

void RunDbRecorder::informer_processed(uint64_t informer, const KubeProcessed& processed) {
  memory_.informer_processed(informer, processed);
  keep(writer_.informer_processed(informer, processed));
}

void RunDbRecorder::informer_finished(uint64_t informer, int64_t at_ns, int64_t resource_version,
                                      const std::vector<KubeObject>& objects) {
  memory_.informer_finished(informer, at_ns, resource_version, objects);
  keep(writer_.informer_finished(informer, at_ns, resource_version, objects));
}

}  // namespace dst::history
