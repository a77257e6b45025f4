#include "client/watch_client.h"

#include <algorithm>

#include "base/probes.h"
#include "rpc/etcd_connection.h"
#include "client/watch_progress.h"

namespace dst::client {

namespace {

// A fault's request, after a response: a stall sleeps here (the stream backs up meanwhile); a
// rewind ends the watch (true) with where to watch again.
bool obey_control(sim::Simulator& sim, WatchControl* control, int64_t next_revision, sim::TimeNs until,
                  WatchClientResult& result) {
  if (control == nullptr) return false;
  if (control->rewind_by > 0) {
    DST_PROBE(kClientWatchRewound);
    result.rewound = true;
    result.rewind_to = std::max<int64_t>(1, next_revision - control->rewind_by);
    control->rewind_by = 0;
    return true;
  }
  if (control->stalled_until > sim.now()) {
    DST_PROBE(kClientWatchStalled);
    // Never past the watch's end: the workload that owns `control` may be gone by then.
    const sim::TimeNs wake = std::min(control->stalled_until, until);
    return wake > sim.now() && sim.sleep(wake - sim.now()) != sim::WaitResult::kOk;
  }
  return false;
}

}  // namespace

void advance_resume_point(const etcdserverpb::WatchResponse& r, etcdserverpb::WatchCreateRequest& create,
                          bool& start_fixed) {
  if (r.created() && !start_fixed) {
    create.set_start_revision(r.header().revision() + 1);
    start_fixed = true;
  }
  for (const auto& e : r.events()) create.set_start_revision(e.kv().mod_revision() + 1);
  if (r.events_size() == 0 && !r.created() && !r.canceled() && r.header().revision() > 0)
    create.set_start_revision(std::max(create.start_revision(), r.header().revision() + 1));
}

WatchClientResult run_watch(sim::Simulator& sim, const WatchClientOptions& options, history::Recorder& recorder,
                            sim::TimeNs until) {
  DST_ASSERT(!options.members.empty());
  WatchClientResult result;
  result.watch = recorder.watch_started(options.id);
  size_t member = options.member % options.members.size();
  etcdserverpb::WatchCreateRequest create = options.request;
  // Start 0 means "from now": the first creation ack fixes what "now" was, so a resume after a
  // break continues from there rather than from a later "now" (which would lose events).
  bool start_fixed = create.start_revision() != 0;
  while (sim.now() < until && !result.canceled) {
    auto conn = rpc::Connection::open(sim.current_env(), options.members[member]);
    if (conn.is_ok()) {
      const uint64_t call = (*conn)->open_watch();
      etcdserverpb::WatchRequest req;
      *req.mutable_create_request() = create;
      history::WatchSegment segment;
      segment.member = static_cast<uint32_t>(member + 1);
      segment.created_ns = sim.now();
      segment.request = create;
      recorder.segment_started(result.watch, segment);
      if (result.segments > 0) DST_PROBE(kClientWatchResumed);
      ++result.segments;
      if ((*conn)->send_watch(call, req).is_ok()) {
        // The first request right after the create, as a watch cache does when it (re)starts
        // and waits to be fresh: a resumed watch is often still catching up then.
        WatchProgressPacer pacer(sim, options.progress_every, sim.now());
        while (sim.now() < until) {
          auto r = pacer.next(**conn, call, until);
          if (!r.is_ok()) break;  // timeout at `until`, or the stream broke
          recorder.watch_response(result.watch, history::WatchResponse{sim.now(), *r});
          result.events += static_cast<size_t>(r->events_size());
          advance_resume_point(*r, create, start_fixed);
          if (options.read_delay > 0 && sim.sleep(options.read_delay) != sim::WaitResult::kOk) break;
          if (!r->canceled() && obey_control(sim, options.control, create.start_revision(), until, result)) break;
          if (r->canceled()) {
            DST_PROBE(kClientWatchCompacted);
            result.canceled = true;
            result.compact_revision = r->compact_revision();
            break;
          }
        }
      }
      if (result.rewound) {
        recorder.segment_broken(result.watch);  // the client closed it; a new watch follows
        (*conn)->close_watch(call);
        break;
      }
      if (sim.now() >= until || result.canceled) break;
      recorder.segment_broken(result.watch);
    }
    if (sim.sleep(sim::milliseconds(100)) != sim::WaitResult::kOk) break;
    if (!options.pinned) member = (member + 1) % options.members.size();
  }
  result.next_revision = create.start_revision();
  return result;
}

}  // namespace dst::client
