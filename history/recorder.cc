#include "history/recorder.h"

#include "base/assert.h"
#include "base/limits.h"

namespace dst::history {

uint64_t MemoryRecorder::invoke(const Operation& op) {
  DST_ASSERT_LT(history_.operations.size(), limits::kHistoryOperationsMax);
  Operation o = op;
  o.id = history_.operations.size();
  history_.operations.push_back(std::move(o));
  return history_.operations.back().id;
}

void MemoryRecorder::complete(uint64_t id, Outcome outcome, const etcdserverpb::ApiResponse& response,
                              int64_t return_ns) {
  DST_ASSERT_LT(id, history_.operations.size());
  Operation& o = history_.operations[id];
  o.outcome = outcome;
  o.response = response;
  o.return_ns = return_ns;
}

uint64_t MemoryRecorder::watch_started(uint32_t client) {
  DST_ASSERT_LT(history_.watches.size(), limits::kHistoryWatchesMax);
  Watch w;
  w.id = history_.watches.size();
  w.client = client;
  history_.watches.push_back(std::move(w));
  return history_.watches.back().id;
}

void MemoryRecorder::segment_started(uint64_t watch, const WatchSegment& segment) {
  DST_ASSERT_LT(watch, history_.watches.size());
  history_.watches[watch].segments.push_back(segment);
}

void MemoryRecorder::watch_response(uint64_t watch, WatchResponse response) {
  DST_ASSERT_LT(watch, history_.watches.size());
  Watch& w = history_.watches[watch];
  DST_ASSERT_MSG(!w.segments.empty(), "a watch response before the watch's first segment");
  DST_ASSERT_LT(w.segments.back().responses.size(), limits::kHistoryWatchResponsesMax);
  w.segments.back().responses.push_back(std::move(response));
}

void MemoryRecorder::segment_broken(uint64_t watch) {
  DST_ASSERT_LT(watch, history_.watches.size());
  Watch& w = history_.watches[watch];
  if (!w.segments.empty()) w.segments.back().broken = true;
}

uint64_t MemoryRecorder::fault_started(const Fault& fault) {
  DST_ASSERT_LT(history_.faults.size(), limits::kHistoryOperationsMax);
  history_.faults.push_back(fault);
  return history_.faults.size() - 1;
}

void MemoryRecorder::schedule_step(const ScheduleStep& step) {
  DST_ASSERT_LT(history_.schedule.size(), limits::kHistoryOperationsMax);
  history_.schedule.push_back(step);
}

void MemoryRecorder::restored(const Restore& restore) {
  DST_ASSERT_LT(history_.restores.size(), kRestoresMax);
  DST_ASSERT(restore.disaster_ns <= restore.restore_ns && restore.revision >= 1 && restore.bump >= 0);
  DST_ASSERT(restore.revision <= kRestoreRevisionMax && restore.bump <= kRestoreRevisionMax);
  DST_ASSERT(history_.restores.empty() || history_.restores.back().restore_ns <= restore.disaster_ns);
  history_.restores.push_back(restore);
}

void MemoryRecorder::fault_ended(uint64_t fault, int64_t end_ns) {
  DST_ASSERT_LT(fault, history_.faults.size());
  history_.faults[fault].end_ns = end_ns;
}

void MemoryRecorder::metric(int64_t at_ns, uint32_t member, std::string_view name, int64_t value) {
  if (metrics_.size() >= kMemoryMetricsMax) {
    ++metrics_dropped_;
    return;
  }
  metrics_.push_back(Metric{at_ns, member, std::string(name), value});
}

namespace {
Informer& informer_at(History& h, uint64_t informer) {
  DST_ASSERT_LT(informer, h.informers.size());
  return h.informers[informer];
}
}  // namespace

uint64_t MemoryRecorder::informer_started(uint32_t client, const std::string& prefix) {
  DST_ASSERT_LT(history_.informers.size(), limits::kHistoryInformersMax);
  Informer i;
  i.id = history_.informers.size();
  i.client = client;
  i.prefix = prefix;
  history_.informers.push_back(std::move(i));
  return history_.informers.back().id;
}

void MemoryRecorder::informer_list(uint64_t informer, const KubeList& list) {
  Informer& i = informer_at(history_, informer);
  DST_ASSERT_LT(i.lists.size(), limits::kHistoryInformerItemsMax);
  i.lists.push_back(list);
}

void MemoryRecorder::informer_watch_started(uint64_t informer, const KubeWatch& watch) {
  Informer& i = informer_at(history_, informer);
  DST_ASSERT_LT(i.watches.size(), limits::kHistoryInformerItemsMax);
  i.watches.push_back(watch);
}

void MemoryRecorder::informer_watch_event(uint64_t informer, const KubeWatchEvent& event) {
  Informer& i = informer_at(history_, informer);
  DST_ASSERT_MSG(!i.watches.empty(), "an informer's watch event before its first watch");
  DST_ASSERT_LT(i.watches.back().events.size(), limits::kHistoryInformerItemsMax);
  i.watches.back().events.push_back(event);
}

void MemoryRecorder::informer_watch_ended(uint64_t informer, const std::string& end, int64_t at_ns) {
  Informer& i = informer_at(history_, informer);
  DST_ASSERT_MSG(!i.watches.empty(), "an informer's watch ended before its first watch");
  i.watches.back().end = end;
  i.watches.back().ended_ns = at_ns;
}

void MemoryRecorder::informer_processed(uint64_t informer, const KubeProcessed& processed) {
  Informer& i = informer_at(history_, informer);
  DST_ASSERT_LT(i.processed.size(), limits::kHistoryInformerItemsMax);
  i.processed.push_back(processed);
}

void MemoryRecorder::informer_finished(uint64_t informer, int64_t at_ns, int64_t resource_version,
                                       const std::vector<KubeObject>& objects) {
  Informer& i = informer_at(history_, informer);
  DST_ASSERT_MSG(!i.finished, "an informer finished twice");
  i.finished = true;
  i.final_ns = at_ns;
  i.final_rv = resource_version;
  i.final_objects = objects;
}

}  // namespace dst::history
