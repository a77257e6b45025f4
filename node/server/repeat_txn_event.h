// The bug zoo's watch-duplicate-event (base/bugs.h, etcd #17247) as a layer over one watch call's
// responses, outside the watchable store: when a response ends with two events of one revision
// (a txn), that last event is sent again at the front of the next response with events for the
// same watch. The API server puts it between the store and the client only when the bug is on,
// so the correct member carries no trace of it.
#pragma once

#include <cstdint>
#include <map>

#include "proto/etcd_rpc.pb.h"

namespace dst::node {

class RepeatLastTxnEvent {
 public:
  // Called on every response of the call, in order, before it is sent.
  void pass(etcdserverpb::WatchResponse& response);
  size_t pending() const { return pending_.size(); }

 private:
  // By watch id: the event its next response repeats. At most one per live watch of the call
  // (a canceled watch's entry goes with its cancel response).
  std::map<int64_t, mvccpb::Event> pending_;
};

}  // namespace dst::node
