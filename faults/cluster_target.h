// What the nemesis acts on: the members of one cluster and the machines they run on. The world
// that built the cluster implements it (world::SimCluster); the nemesis needs nothing else of the
// member's code, so faults/ does not depend on node/server/.
//
// Members are 0-based here (the index of the node in the world); the nemesis's own API is
// 1-based, as scenarios name members.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

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

  // Damaged storage. A member that refused to start on damage its storage must detect is lost:
  // an operator would replace it (etcd's "replace a failed member"); the run keeps it down, and
  // the liveness and agreement checks no longer wait for it.
  virtual bool lost(size_t i) const = 0;
  // Where damage to down member i's WAL must make its next start refuse (nullopt: nowhere now).
  struct WalDamageRange {
    std::string file;
    uint64_t limit = 0;  // [0, limit) of `file`
  };
  virtual std::optional<WalDamageRange> wal_damage_range(size_t i) const = 0;
  // Bits of [offset, offset + length) of `file` on node i's disk are about to be flipped.
  virtual void damaging(size_t i, const std::string& file, uint64_t offset, uint64_t length) = 0;
  // A member whose next start must refuse (damaged, not yet started since).
  virtual bool must_refuse_start(size_t i) const = 0;
};

}  // namespace dst::faults
