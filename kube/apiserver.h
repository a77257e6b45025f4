// A Kubernetes apiserver for one resource (one etcd prefix), as a simulated process on a host of
// its own. It keeps a watch cache filled by a Cacher (one etcd watch on the prefix) and serves
// Kubernetes clients over the simulated network (proto/kube_api.proto):
//   LIST  resourceVersion 0: "most recent", a consistent (linearizable) range read from etcd;
//         resourceVersion R > 0: "not older than R", from the cache once it reached R (504 "Too
//         large resource version" if it does not within `list_wait`).
//   WATCH from R: the cache's events after R, then every new one, with bookmarks; 410 Gone "too old
//         resource version" when they already left the cache's ring (or predate its last re-list),
//         and when a slow client let its next event leave the ring.
//   CREATE / UPDATE / DELETE: one etcd txn each, with Kubernetes' optimistic concurrency: create if
//         the key does not exist (409 AlreadyExists), update or delete only at the expected
//         resourceVersion (409 Conflict) or, without one, only if it exists (404 NotFound).
// Its own etcd traffic is recorded like any etcd client's (history::Recorder), so the etcd checkers
// judge it and the kube checks know etcd's truth. A crash loses the cache; a restart re-lists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/bugs.h"
#include "history/recorder.h"
#include "kube/cacher.h"
#include "kube/kube_client.h"
#include "proto/kube_api.pb.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::kube {

struct ApiserverOptions {
  std::string prefix = "/registry/pods/";
  std::vector<sim::Address> members;  // etcd client endpoints
  uint16_t port = kApiserverPort;
  size_t cache_capacity = 100;        // events in the watch cache's ring
  sim::DurationNs etcd_timeout = sim::seconds(2);  // per etcd request
  sim::DurationNs list_wait = sim::seconds(3);     // a LIST "not older than" waits this long for the cache
  sim::DurationNs watch_wait = sim::seconds(3);    // a WATCH from a future resourceVersion, likewise
  sim::DurationNs bookmark_every = sim::seconds(1);
  // A watcher waits while its client has this many bytes unread (HTTP/2 flow control, and the
  // apiserver's per-watcher buffer); events it cannot send meanwhile may leave the ring, and then
  // the watch ends with 410. Our events are ~60 bytes on the wire, so 4 KiB holds ~70 events,
  // the scale of Kubernetes' per-watcher buffer before it gives up on an unresponsive watcher.
  size_t watch_window_bytes = 4 * 1024;
  // Client connections held at once; beyond, a new one is closed at once. A real apiserver holds
  // thousands (watches are long-running requests, exempt from its in-flight limits): enough for
  // every kubelet of a 1,000-node world (kube{informers=}) to fail over onto one apiserver.
  size_t connections_max = 4096;
  size_t calls_in_flight_max = 64;  // per connection; beyond: 429 TooManyRequests
  Bugs bugs;  // the run's bugs (base/bugs.h), passed down unchanged
  std::function<uint32_t()> next_client_id;  // a fresh etcd client id per recorded request/watch
};

struct ApiserverStats {
  CacherStats cache;  // its watch cache's etcd side
  uint64_t lists_from_etcd = 0, lists_from_cache = 0, watches = 0, events_sent = 0, bookmarks = 0;
  uint64_t gone = 0;      // watches ended with 410
  uint64_t terminated = 0;  // watches ended because the cache's etcd watch ended
  uint64_t writes = 0, conflicts = 0;
  // Adds another incarnation's counts (the world sums an apiserver's restarts).
  ApiserverStats& operator+=(const ApiserverStats& o);
};

// Runs the apiserver in the calling fiber (the main fiber of its process) until the process dies
// or virtual time `until`. `stats` (may be null) is updated as it goes and must outlive the run.
void run_apiserver(sim::Simulator& sim, const ApiserverOptions& options, history::Recorder& recorder,
                   sim::TimeNs until, ApiserverStats* stats);

}  // namespace dst::kube
