// The apiserver's Cacher for one resource prefix: a reflector fiber that fills a WatchCache from
// etcd, as Kubernetes' cacher does. It LISTs the prefix (a linearizable range), then WATCHes it
// from the list's revision + 1 with prev_kv and progress notifications, asking etcd for progress
// now and then (Kubernetes' RequestProgress) so the cache's resourceVersion keeps up while the
// prefix is quiet. A broken watch resumes from the revision after the last one the cache has,
// on the next member; a watch canceled by compaction, or an event the cache refuses (the feed
// lost or reordered something), means a new LIST, which replaces the cache and empties its ring.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <functional>

#include "rpc/etcd_connection.h"
#include "history/recorder.h"
#include "kube/watch_cache.h"
#include "sim/network.h"
#include "sim/simulator.h"
#include "sim/sync.h"

namespace dst::kube {

struct CacherOptions {
  std::string prefix;                 // e.g. "/registry/pods/"
  std::vector<sim::Address> members;  // etcd endpoints, tried in turn
  size_t capacity = 100;              // events in the cache's ring
  sim::DurationNs request_timeout = sim::seconds(2);
  sim::DurationNs progress_every = sim::milliseconds(500);  // 0: never ask
  sim::DurationNs retry_pause = sim::milliseconds(100);     // after a failed LIST or a broken watch
  // The etcd client id to record each LIST and each logical watch under (the history wants one
  // operation at a time per client, so every one gets a fresh id).
  std::function<uint32_t()> next_client_id;
};

struct CacherStats {
  uint64_t lists = 0;         // successful LISTs (the first, then re-lists)
  uint64_t watches = 0;       // watches created
  uint64_t events = 0;        // events applied to the cache
  uint64_t progress = 0;      // progress notifications applied
  uint64_t refused = 0;       // events the cache refused (each followed by a re-list)
  uint64_t compacted = 0;     // watches canceled by compaction (each followed by a re-list)
};

class Cacher {
 public:
  // Every LIST and every watch response goes to `recorder`, as any etcd client's would, so the
  // etcd checkers judge what the cache was fed and the kube checks know etcd's events.
  // `stats` (may be null: the Cacher keeps its own) must outlive it.
  Cacher(sim::Simulator& sim, CacherOptions options, history::Recorder& recorder, CacherStats* stats = nullptr);

  // Runs the reflector in the calling fiber until virtual time `until`.
  void run(sim::TimeNs until);

  const WatchCache& cache() const { return cache_; }
  const CacherStats& stats() const { return *stats_; }
  // Ready: an etcd watch is feeding the cache. Not ready from the moment a watch ends until the
  // next one is created (after a LIST if needed): Kubernetes' cacher then ends its watchers, so
  // that clients move to an apiserver whose cache keeps up, rather than wait on a quiet one.
  bool ready() const { return ready_; }
  // Notified (all waiters) whenever the cache changed: events, progress, a re-list, readiness.
  sim::WaitQueue& changed() { return changed_; }

 private:
  // One LIST against member `m`; true when the cache was replaced.
  bool list(size_t m);
  // One watch against member `m` from the cache's resourceVersion + 1, until it breaks, is
  // canceled or `until`. Returns whether the cache needs a new LIST.
  bool watch(size_t m, sim::TimeNs until);
  // Feeds the cache from an open watch call until it breaks, is canceled or `until`; same result.
  bool follow(rpc::Connection& conn, uint64_t call, sim::TimeNs until);
  void set_ready(bool ready);

  sim::Simulator& sim_;
  CacherOptions options_;
  history::Recorder& recorder_;
  // The recorded etcd watch the cache follows: a new one after each LIST, a new segment after
  // each resume (kNoWatch: none yet).
  static constexpr uint64_t kNoWatch = UINT64_MAX;
  uint64_t recorded_watch_ = kNoWatch;
  sim::WaitQueue changed_;
  bool ready_ = false;
  std::string range_end_;
  WatchCache cache_;
  CacherStats own_stats_;
  CacherStats* stats_;
};

}  // namespace dst::kube
