// Many watches multiplexed on one watch stream, as one clientv3 client carries every watch of a
// process on one gRPC stream (an apiserver's or a kubelet's): each create names its own watch id,
// the member answers each watch's events under that id, and a progress request on the stream is
// answered once for all of them (watch id -1), which the client hands to every watch, as clientv3
// broadcasts it. Each watch is recorded as a logical watch of its own (history::Watch), so the
// watch checker holds every one of them to the guarantees. When the stream breaks, every watch
// resumes on the next stream (next member) from the revision after the last it saw, as a new
// segment; a watch canceled by compaction is watched again, as a new logical watch, from the
// compact revision the cancel named (the oldest still served); one refused for another reason (a
// member's limit on watchers) is watched again as a new logical watch on the next stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "client/watch_client.h"
#include "history/recorder.h"
#include "proto/etcd_rpc.pb.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::client {

struct WatchFanoutOptions {
  uint32_t id = 0;                     // client id recorded with each of the stream's watches
  std::vector<sim::Address> members;   // member order = member ids 1..n
  size_t member = 0;                   // the member to start on (0-based); then round robin
  // What each watch watches (key, range, filters, prev_kv, progress_notify, start revision: 0 is
  // "now", fixed by its creation ack). At most limits::kWatchersPerStreamMax.
  std::vector<etcdserverpb::WatchCreateRequest> watches;
  // A progress request on the stream this often (0: never), answered for all its watches at once.
  sim::DurationNs progress_every = 0;
  // Faults on the stream (may be null; must outlive the call): a stall stops reading the stream,
  // so the member's queue for it fills and every watch on it falls behind. Rewinds are per watch
  // and have no meaning here: ignored.
  WatchControl* control = nullptr;
};

struct WatchFanoutStats {
  uint64_t watches = 0;        // logical watches recorded (the initial ones and the restarts)
  uint64_t segments = 0;       // watch segments (one per watch per stream it was created on)
  uint64_t events = 0;
  uint64_t canceled = 0;       // watches canceled (compacted or refused; each watched again)
  uint64_t streams = 0;        // streams opened
  uint64_t stray_responses = 0;  // responses naming no watch of the stream (a member's bug)
};

// Runs the stream's watches in the calling fiber until virtual time `until`.
WatchFanoutStats run_watch_fanout(sim::Simulator& sim, const WatchFanoutOptions& options,
                                  history::Recorder& recorder, sim::TimeNs until);

}  // namespace dst::client
