// The trace: every executed event and every fault action feeds a running 64-bit hash.
//
// Two runs of the same world with the same seed must produce the same hash; the hash is printed last
// by every run and compared by tests. With record_events on, the trace also keeps the events
// themselves (bounded by limits::kTraceRecordsKeptMax) so that a determinism check can point at the
// first event where two runs diverge.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/time.h"

namespace dst::sim {

using ProcessId = uint32_t;
inline constexpr ProcessId kNoProcess = UINT32_MAX;  // the world itself: never paused or killed

// What happened. Kinds are part of the hash, so renumbering them changes every trace hash.
enum class EventKind : uint8_t {
  kFiberStart = 1,    // a spawned fiber runs for the first time
  kFiberWake = 2,     // a blocked fiber is woken by a notify, a yield or a completion
  kFiberTimeout = 3,  // a blocked fiber's deadline (sleep or wait timeout) passed
  kCallback = 4,      // a scheduled callback ran
  kDatagram = 5,      // a datagram arrived at (or was dropped before) its destination
  kStreamData = 6,    // a stream message, close or reset arrived
  kStreamBreak = 7,   // a stream's link stayed cut past the timeout; the check ran
  kConnect = 8,       // a connection attempt reached its destination
  kDiskIo = 9,        // a disk read or fsync completed
  // Actions taken by the harness (not queued events), recorded when they happen:
  kProcessStart = 32,
  kProcessKill = 33,
  kProcessPause = 34,
  kProcessResume = 35,
  kNetworkChange = 36,  // reachability or link configuration changed
  kDiskFault = 37,      // crash of a disk, fsync error armed, bits flipped, disk full
  kClockFault = 38,     // clock offset, drift or jump
  kNote = 39,           // anything else a world wants to pin into the hash
};

const char* event_kind_name(EventKind kind);

struct TraceRecord {
  TimeNs time;
  uint64_t digest;     // the event's payload: fiber id, message hash, ...
  ProcessId process;   // the process it belongs to, or kNoProcess
  EventKind kind;

  bool operator==(const TraceRecord&) const = default;
};

class Trace {
 public:
  explicit Trace(bool record_events) : record_events_(record_events) {}

  // Inline: it runs for every event. One multiply-rotate round per word (the FxHash
  // construction) is order-sensitive and cheap; payload digests are already well mixed.
  void record(TimeNs time, EventKind kind, ProcessId process, uint64_t digest) {
    uint64_t h = absorb(hash_, static_cast<uint64_t>(time));
    h = absorb(h, (static_cast<uint64_t>(kind) << 32) | process);
    hash_ = absorb(h, digest);
    ++count_;
    if (record_events_) keep(TraceRecord{time, digest, process, kind});
  }

  uint64_t hash() const { return hash_; }
  uint64_t event_count() const { return count_; }
  bool recording() const { return record_events_; }
  // The kept records (empty unless recording); may stop short of event_count() at the limit.
  const std::vector<TraceRecord>& records() const { return records_; }

  // While recording: what a record's digest stands for, so a determinism report can say what ran
  // ("fiber 'raft-loop'", "scenario function scheduled at x.lua:5"). Fiber events' digests are
  // fiber ids; callbacks' and notes' are whatever their scheduler passed. Bounded by
  // limits::kTraceLabelsKeptMax; a no-op when not recording (it never changes the hash).
  void label_digest(EventKind kind, uint64_t digest, std::string_view label);
  const std::string* label_of(EventKind kind, uint64_t digest) const;

 private:
  static uint64_t absorb(uint64_t h, uint64_t word) {
    return (((h << 5) | (h >> 59)) ^ word) * 0x517cc1b727220a95ULL;
  }
  void keep(const TraceRecord& record);

  static int label_class(EventKind kind);

  bool record_events_;
  uint64_t hash_ = 0x5eed'7ace'0000'0001ULL;
  uint64_t count_ = 0;
  std::vector<TraceRecord> records_;
  std::map<std::pair<int, uint64_t>, std::string> labels_;  // (fiber or callback, digest) -> label
};

// "0x1234abcd5678ef90", the form every run prints last.
std::string format_trace_hash(uint64_t hash);

}  // namespace dst::sim
