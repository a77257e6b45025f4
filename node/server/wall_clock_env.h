// The bug zoo's lease-expiry-on-follower-clock (base/bugs.h) as a wrapper around the member's
// Env: its monotonic clock answers with the host's wall clock, which steps and runs ahead. The
// member hands this wrapper to its lessor only when the bug is on, as etcd once decided lease
// expiry on wall time; nothing else in the member reads it.
#pragma once

#include "sim/env.h"

namespace dst::node {

class WallClockAsMonotonic : public sim::EnvWrapper {
 public:
  using EnvWrapper::EnvWrapper;
  sim::TimeNs monotonic_now() const override { return target().wall_now(); }
};

}  // namespace dst::node
