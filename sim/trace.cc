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

std::string format_trace_hash(uint64_t hash) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, hash);
  return buf;
}

}  // namespace dst::sim
