// The bug zoo's lease-expiry-on-follower-clock (base/bugs.h) as a wrapper around the member's
// Env: its monotonic clock answers with the host's wall clock, which steps and runs ahead. The
// member reads the clock it decides lease expiry on (Server::local_now) through this wrapper only
// when the bug is on, as etcd once did on wall time; nothing else reads it, and nothing is spawned,
// slept or connected through it (it lives only as long as the Server).
#pragma once

#include "sim/env.h"

namespace dst::node {

class WallClockAsMonotonic : public sim::EnvWrapper {
 public:
  using EnvWrapper::EnvWrapper;
  sim::TimeNs monotonic_now() const override { return target().wall_now(); }
};

}  // namespace dst::node
