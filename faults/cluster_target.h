// What the nemesis acts on: the members of one cluster and the machines they run on. The world
// that built the cluster implements it (world::SimCluster); the nemesis needs nothing else of the
// member's code, so faults/ does not depend on node/server/.
//
// Members are 0-based here (the index of the node in the world); the nemesis's own API is
// 1-based, as scenarios name members.
#pragma once

#include <cstddef>
#include <optional>

#include "node/fault_points/fault_points.h"
#include "sim/disk.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::faults {

class ClusterTarget {
 public:
  virtual ~ClusterTarget() = default;

  // Every node ever created, members or not.
  virtual size_t size() const = 0;
  virtual bool up(size_t i) const = 0;
  // Started at least once / applied its own removal (never restarted) / frozen.
  virtual bool started(size_t i) const = 0;
  virtual bool removed(size_t i) const = 0;
  virtual bool paused(size_t i) const = 0;
  // A member now: started, not removed, named by the leader's membership.
  virtual bool counts_as_member(size_t i) const = 0;
  // The live leader with the highest term, if any.
  virtual std::optional<size_t> leader() const = 0;

  // The simulated machine node i runs on, the links between nodes when no fault is in force,
  // and a disk's fsync latency when none slows it.
  virtual sim::HostId host(size_t i) const = 0;
  virtual const sim::LinkConfig& link() const = 0;
  virtual sim::DurationDist normal_fsync_latency() const = 0;

  // Processes: a crash or kill (KillOptions), a start of a new incarnation, a freeze and a thaw
  // (no-ops when already so).
  virtual void crash(size_t i, sim::KillOptions options) = 0;
  virtual void start(size_t i) = 0;
  virtual void pause(size_t i) = 0;
  virtual void resume(size_t i) = 0;
  // The fault points of node i, armed from outside; they outlive its incarnations.
  virtual node::FaultPoints& faults(size_t i) = 0;
};

}  // namespace dst::faults
