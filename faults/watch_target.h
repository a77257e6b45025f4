// What the nemesis acts on among the workload's watch clients (issue 21's client faults): a
// watcher that stops reading for a while (a stalled consumer: gRPC flow control backs the stream
// up into the member, whose watcher falls behind and catches up later), and a watcher that drops
// its watch and watches again from an older revision (a client restarting from a stale
// checkpoint: the member replays history, or cancels it when compaction removed that history).
// The world that built the workload implements it; the nemesis records the step, the target only
// carries it out. Watchers are 1-based; both actions take effect at the watcher's next response.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/time.h"

namespace dst::faults {

class WatchTarget {
 public:
  virtual ~WatchTarget() = default;

  virtual size_t watchers() const = 0;
  // Reads nothing more until `until` (a later stall extends it, an earlier one changes nothing).
  virtual void stall_watcher(size_t n, sim::TimeNs until) = 0;
  // Ends its watch and starts a new one `revisions` below the revision it would resume from (at
  // least revision 1).
  virtual void rewind_watcher(size_t n, int64_t revisions) = 0;
};

}  // namespace dst::faults
