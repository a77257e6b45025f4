// A watch client as clientv3 behaves: one logical watch that survives broken streams. It records
// every response; when its stream breaks it reconnects (to the next member unless pinned) and
// resumes from the revision after the last one it saw (the last event's, or a later progress
// notification's), recording a new segment. A cancellation by the server (compaction) ends it.
#pragma once

#include <cstdint>
#include <vector>

#include "history/recorder.h"
#include "proto/etcd_rpc.pb.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::client {

// What a fault asks of a running watch client (faults::WorkloadTarget through the workload); the
// client looks at it after each response it takes.
struct WatchControl {
  sim::TimeNs stalled_until = 0;  // read nothing more before this time
  int64_t rewind_by = 0;          // > 0: end this watch; the caller watches again this many revisions back
};

struct WatchClientOptions {
  uint32_t id = 0;                     // client id recorded with the watch
  std::vector<sim::Address> members;  // member order = member ids 1..n
  size_t member = 0;                  // the member to start on (0-based)
  bool pinned = false;
  etcdserverpb::WatchCreateRequest request;  // key/range/filters/prev_kv/progress_notify/start
  // Ask for progress right after each create and then this often on the open stream
  // (clientv3's RequestProgress, as Kubernetes' watch cache does for consistent reads; etcd's
  // robustness traffic does too); 0: never. The
  // answers are recorded like every response, so the checker holds them to "bookmarkable".
  sim::DurationNs progress_every = 0;
  // A slow reader: waits this long after each response it takes (0: reads at once), so the
  // member's queue for it fills and it falls behind.
  sim::DurationNs read_delay = 0;
  // Faults on this client (may be null; must outlive the call).
  WatchControl* control = nullptr;
};

struct WatchClientResult {
  uint64_t watch = 0;          // the recorded watch id
  size_t segments = 0;
  size_t events = 0;
  bool canceled = false;       // canceled by the server (compaction)
  int64_t compact_revision = 0;  // the cancel's compact revision: the oldest a new watch can start at
  int64_t next_revision = 0;   // where a resume would start
  bool rewound = false;        // ended by a rewind (WatchControl::rewind_by)
  int64_t rewind_to = 0;       // ... the revision to watch again from (at least 1)
};

// Moves a watch's resume point (`create`'s start revision) past what response `r` told it: the
// first creation ack fixes a start of "now" (`start_fixed`), an event moves it past the event, a
// progress notification past its revision. Shared by run_watch and the fan-out streams.
void advance_resume_point(const etcdserverpb::WatchResponse& r, etcdserverpb::WatchCreateRequest& create,
                          bool& start_fixed);

// Runs the watch in the calling fiber until virtual time `until` (or its cancellation).
WatchClientResult run_watch(sim::Simulator& sim, const WatchClientOptions& options, history::Recorder& recorder,
                            sim::TimeNs until);

}  // namespace dst::client
