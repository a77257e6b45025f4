// What the nemesis acts on among the workload's clients (issue 21's client faults): a KV client
// that stalls (a GC or VM pause of the application: it sends nothing, reads its response late,
// and its lease keep-alives stop, so its leases may expire while it holds them), a watcher that
// stops reading for a while (a stalled consumer: gRPC flow control backs the stream
// up into the member, whose watcher falls behind and catches up later), and a watcher that drops
// its watch and watches again from an older revision (a client restarting from a stale
// checkpoint: the member replays history, or cancels it when compaction removed that history).
// The world that built the workload implements it; the nemesis records the step, the target only
// carries it out. Clients and watchers are 1-based; a watcher acts at its next response, a client
// at once (a request in flight completes no earlier than the stall's end).
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/time.h"

namespace dst::faults {

class WorkloadTarget {
 public:
  virtual ~WorkloadTarget() = default;

  virtual size_t clients() const = 0;
  // Sends nothing and reads nothing until `until` (a later stall extends it).
  virtual void stall_client(size_t n, sim::TimeNs until) = 0;

  virtual size_t watchers() const = 0;
  // Reads nothing more until `until` (a later stall extends it, an earlier one changes nothing).
  virtual void stall_watcher(size_t n, sim::TimeNs until) = 0;
  // Ends its watch and starts a new one `revisions` below the revision it would resume from (at
  // least revision 1).
  virtual void rewind_watcher(size_t n, int64_t revisions) = 0;
};

}  // namespace dst::faults
