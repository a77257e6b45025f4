// Trace hashing; see trace.h.
#include "sim/trace.h"

#include <cinttypes>
#include <cstdio>

#include "base/limits.h"

namespace dst::sim {

const char* event_kind_name(EventKind kind) {
  switch (kind) {
    case EventKind::kFiberStart: return "fiber.start";
    case EventKind::kFiberWake: return "fiber.wake";
    case EventKind::kFiberTimeout: return "fiber.timeout";
    case EventKind::kCallback: return "callback";
    case EventKind::kDatagram: return "net.datagram";
    case EventKind::kStreamData: return "net.stream";
    case EventKind::kStreamBreak: return "net.stream_break";
    case EventKind::kConnect: return "net.connect";
    case EventKind::kDiskIo: return "disk.io";
    case EventKind::kProcessStart: return "process.start";
    case EventKind::kProcessKill: return "process.kill";
    case EventKind::kProcessPause: return "process.pause";
    case EventKind::kProcessResume: return "process.resume";
    case EventKind::kNetworkChange: return "net.change";
    case EventKind::kDiskFault: return "disk.fault";
    case EventKind::kClockFault: return "clock.fault";
    case EventKind::kNote: return "note";
  }
  return "unknown";
}

void Trace::keep(const TraceRecord& record) {
  if (records_.size() < limits::kTraceRecordsKeptMax) records_.push_back(record);
}

int Trace::label_class(EventKind kind) {
  switch (kind) {
    case EventKind::kFiberStart:
    case EventKind::kFiberWake:
    case EventKind::kFiberTimeout: return 0;  // digest: the fiber's id
    case EventKind::kCallback:
    case EventKind::kNote: return 1;
    default: return -1;
  }
}

void Trace::label_digest(EventKind kind, uint64_t digest, std::string_view label) {
  const int c = label_class(kind);
  if (!record_events_ || c < 0 || labels_.size() >= limits::kTraceLabelsKeptMax) return;
  labels_.insert_or_assign({c, digest}, std::string(label.substr(0, 200)));
}

const std::string* Trace::label_of(EventKind kind, uint64_t digest) const {
  auto it = labels_.find({label_class(kind), digest});
  return it == labels_.end() ? nullptr : &it->second;
}

std::string format_trace_hash(uint64_t hash) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, hash);
  return buf;
}

}  // namespace dst::sim
