// Waiting on a watch stream while asking it for progress at a steady pace, the way etcd's watch
// cache learns how fresh it is between events. Shared by the watch client and the kube Cacher.
#pragma once

#include <algorithm>

#include "base/status.h"
#include "rpc/etcd_connection.h"
#include "proto/etcd_api.pb.h"
#include "sim/simulator.h"

namespace dst::client {

class WatchProgressPacer {
 public:
  // Asks every `every` ns (0: never), the first time at `first_at`.
  WatchProgressPacer(sim::Simulator& sim, sim::DurationNs every, sim::TimeNs first_at)
      : sim_(sim), every_(every), next_(first_at) {}

  // The stream's next response, sending the progress requests that fall due meanwhile. kTimeout
  // once `until` has passed; any other error means the stream broke (or a request could not be
  // sent on it).
  Result<etcdserverpb::WatchResponse> next(rpc::Connection& conn, uint64_t call, sim::TimeNs until) {
    while (true) {
      if (every_ > 0 && sim_.now() >= next_) {
        etcdserverpb::WatchRequest progress;
        progress.mutable_progress_request();
        if (Status st = conn.send_watch(call, progress); !st.is_ok()) return st;
        next_ = sim_.now() + every_;
      }
      const sim::TimeNs wake = every_ > 0 ? std::min(until, next_) : until;
      auto r = conn.recv_watch(call, wake - sim_.now());
      if (!r.is_ok() && r.status().code() == StatusCode::kTimeout && sim_.now() < until) continue;  // time to ask
      return r;
    }
  }

 private:
  sim::Simulator& sim_;
  sim::DurationNs every_;
  sim::TimeNs next_;
};

}  // namespace dst::client
