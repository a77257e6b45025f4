#include "client/watch_client.h"

#include <algorithm>

#include "base/probes.h"
#include "rpc/etcd_connection.h"
#include "client/watch_progress.h"

namespace dst::client {

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
          if (r->created() && !start_fixed) {
            create.set_start_revision(r->header().revision() + 1);
            start_fixed = true;
          }
          for (const auto& e : r->events()) create.set_start_revision(e.kv().mod_revision() + 1);
          if (r->events_size() == 0 && !r->created() && !r->canceled() && r->header().revision() > 0)
            create.set_start_revision(std::max(create.start_revision(), r->header().revision() + 1));
          if (options.read_delay > 0 && sim.sleep(options.read_delay) != sim::WaitResult::kOk) break;
          if (r->canceled()) {
            DST_PROBE(kClientWatchCompacted);
            result.canceled = true;
            result.compact_revision = r->compact_revision();
            break;
          }
        }
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
