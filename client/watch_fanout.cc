#include "client/watch_fanout.h"

#include <algorithm>
#include <limits>

#include "base/assert.h"
#include "base/limits.h"
#include "client/watch_progress.h"
#include "rpc/etcd_connection.h"

namespace dst::client {

namespace {

// A canceled watch is watched again at most this often; then it stays ended.
constexpr int kRestartsPerWatchMax = 100;
// Streams opened by one client at most (each follows a break and a 100 ms pause: the run's end
// comes first in any real run).
constexpr uint64_t kStreamsMax = 100'000;
constexpr size_t kNoWatch = std::numeric_limits<size_t>::max();

struct FanoutWatch {
  uint64_t recorded = 0;                       // the recorded (logical) watch
  etcdserverpb::WatchCreateRequest create;     // start_revision: where the next segment starts
  bool start_fixed = false;                    // start 0 ("now") was fixed by a creation ack
  bool on_stream = false;                      // created on the current stream: a segment is open
  bool acked = false;                          // ... and its creation was acknowledged there
  bool ended = false;                          // canceled and not watched again
  bool new_logical = false;                    // canceled: its next create starts a new logical watch
  int restarts = 0;
};

class FanoutStream {
 public:
  FanoutStream(sim::Simulator& sim, const WatchFanoutOptions& options, history::Recorder& recorder,
               sim::TimeNs until)
      : sim_(sim), options_(options), recorder_(recorder), until_(until) {
    watches_.reserve(options.watches.size());
    for (const auto& request : options.watches) {
      FanoutWatch w;
      w.recorded = recorder_.watch_started(options.id);
      w.create = request;
      w.create.set_watch_id(0);
      w.start_fixed = request.start_revision() != 0;
      watches_.push_back(std::move(w));
    }
    stats_.watches = watches_.size();
  }

  WatchFanoutStats run() {
    size_t member = options_.member % options_.members.size();
    while (sim_.now() < until_ && stats_.streams < kStreamsMax) {
      auto conn = rpc::Connection::open(sim_.current_env(), options_.members[member]);
      if (conn.is_ok()) {
        ++stats_.streams;
        serve(**conn, member);
      }
      if (sim_.now() >= until_) break;
      if (sim_.sleep(sim::milliseconds(100)) != sim::WaitResult::kOk) break;
      member = (member + 1) % options_.members.size();
    }
    return stats_;
  }

 private:
  // One stream's life: every live watch created on it, then its responses until it breaks (every
  // open segment is then broken) or the run ends (segments stay open, as run_watch leaves them).
  void serve(rpc::Connection& conn, size_t member) {
    const uint64_t call = conn.open_watch();
    slot_of_id_.clear();
    bool alive = true;
    for (size_t slot = 0; slot < watches_.size() && alive; ++slot)
      if (!watches_[slot].ended) alive = create(conn, call, slot, member);
    WatchProgressPacer pacer(sim_, options_.progress_every, sim_.now());
    while (alive && sim_.now() < until_) {
      auto r = pacer.next(conn, call, until_);
      if (!r.is_ok()) break;  // the run's end, or the stream broke
      alive = dispatch(*r, conn, call, member) && obey_stall();
    }
    if (sim_.now() >= until_) return;
    for (FanoutWatch& w : watches_) {
      if (!w.on_stream) continue;
      recorder_.segment_broken(w.recorded);
      w.on_stream = false;
    }
  }

  // Sends the watch's create under a new watch id of this stream, as a new segment.
  bool create(rpc::Connection& conn, uint64_t call, size_t slot, size_t member) {
    FanoutWatch& w = watches_[slot];
    DST_ASSERT(!w.on_stream && !w.ended);
    if (w.new_logical) {
      w.recorded = recorder_.watch_started(options_.id);
      ++stats_.watches;
      w.new_logical = false;
    }
    DST_ASSERT_LT(slot_of_id_.size(), static_cast<size_t>(kRestartsPerWatchMax + 1) * watches_.size());
    slot_of_id_.push_back(slot);
    etcdserverpb::WatchRequest req;
    *req.mutable_create_request() = w.create;
    req.mutable_create_request()->set_watch_id(static_cast<int64_t>(slot_of_id_.size()));
    history::WatchSegment segment;
    segment.member = static_cast<uint32_t>(member + 1);
    segment.created_ns = sim_.now();
    segment.request = req.create_request();
    recorder_.segment_started(w.recorded, segment);
    w.on_stream = true;
    w.acked = false;
    ++stats_.segments;
    return conn.send_watch(call, req).is_ok();
  }

  // Hands a response to its watch (or, for watch id -1, to every watch on the stream). False when
  // the stream broke while watching a canceled watch again.
  bool dispatch(const etcdserverpb::WatchResponse& r, rpc::Connection& conn, uint64_t call, size_t member) {
    if (r.watch_id() == -1) {
      // Only to the watches the member had acknowledged: an answer computed before a watch's
      // create (one re-created after a cancel) says nothing of its events, as clientv3 keeps it
      // from substreams still resuming.
      for (FanoutWatch& w : watches_)
        if (w.on_stream && w.acked) take(w, r);
      return true;
    }
    const size_t slot = r.watch_id() >= 1 && static_cast<uint64_t>(r.watch_id()) <= slot_of_id_.size()
                            ? slot_of_id_[static_cast<size_t>(r.watch_id() - 1)]
                            : kNoWatch;
    if (slot == kNoWatch || !watches_[slot].on_stream) {
      ++stats_.stray_responses;
      return true;
    }
    FanoutWatch& w = watches_[slot];
    take(w, r);
    if (!r.canceled()) return true;
    // The canceled watch is over: its id names nothing any more.
    slot_of_id_[static_cast<size_t>(r.watch_id() - 1)] = kNoWatch;
    w.on_stream = false;
    ++stats_.canceled;
    if (++w.restarts > kRestartsPerWatchMax) {
      w.ended = true;
      return true;
    }
    // Watched again as a new logical watch: clientv3 ends a canceled watch, and its user watches
    // again.
    w.new_logical = true;
    if (r.compact_revision() <= 0) {
      // Refused for another reason (a member's limit on watchers): on the next stream, from where
      // it was, rather than asking this member again at once.
      return true;
    }
    // Compacted: from the oldest revision the member still serves, on this stream.
    w.create.set_start_revision(r.compact_revision());
    w.start_fixed = true;
    return create(conn, call, slot, member);
  }

  // Records the response to the watch and moves its resume point past what it was told.
  void take(FanoutWatch& w, const etcdserverpb::WatchResponse& r) {
    recorder_.watch_response(w.recorded, history::WatchResponse{sim_.now(), r});
    stats_.events += static_cast<uint64_t>(r.events_size());
    if (r.created()) w.acked = true;
    advance_resume_point(r, w.create, w.start_fixed);
  }

  // A stall fault: read nothing more until it ends (never past the run's end). False when the
  // fiber was woken for good.
  bool obey_stall() {
    WatchControl* control = options_.control;
    if (control == nullptr || control->stalled_until <= sim_.now()) return true;
    const sim::TimeNs wake = std::min(control->stalled_until, until_);
    return wake <= sim_.now() || sim_.sleep(wake - sim_.now()) == sim::WaitResult::kOk;
  }

  sim::Simulator& sim_;
  const WatchFanoutOptions& options_;
  history::Recorder& recorder_;
  const sim::TimeNs until_;
  std::vector<FanoutWatch> watches_;
  std::vector<size_t> slot_of_id_;  // watch id - 1 -> watch on the current stream (kNoWatch: ended)
  WatchFanoutStats stats_;
};

}  // namespace

WatchFanoutStats run_watch_fanout(sim::Simulator& sim, const WatchFanoutOptions& options,
                                  history::Recorder& recorder, sim::TimeNs until) {
  DST_ASSERT(!options.members.empty());
  DST_ASSERT_LE(options.watches.size(), limits::kWatchersPerStreamMax);
  FanoutStream stream(sim, options, recorder, until);
  return stream.run();
}

}  // namespace dst::client
