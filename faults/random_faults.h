// The random fault generator and the driver that runs a fault schedule in time.
//
// draw_random_fault() looks at the cluster as it is now (through the nemesis) and draws one
// step from the kinds RandomFaultOptions allows, among those that would do something (a crash
// picks a member that is up, a restart one that is down): every draw is a step, so the schedule a
// run records is exactly the steps its driver applied.
//
// FaultDriver is a harness process ("nemesis", on a host of its own) with one fiber. It either
// draws random steps at exponential intervals until a deadline, or replays a recorded schedule's
// timed steps at their times. Both sleep to the same instants and end with the same last wake
// (the kStop step the random driver records), so a replay of an unedited schedule runs the very
// same events and reaches the same trace hash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "faults/fault_step.h"
#include "faults/nemesis.h"
#include "faults/nemesis_fork.h"
#include "sim/rng.h"
#include "sim/simulator.h"

namespace dst::faults {

// What the random generator may do, and how often.
struct RandomFaultOptions {
  sim::DurationNs duration = sim::seconds(30);             // faults are drawn during this window
  sim::DurationNs mean_interval = sim::milliseconds(700);  // between two draws
  bool partitions = true;    // symmetric random splits, leader isolation
  bool asymmetric = true;    // one-way link cuts
  bool crashes = true;       // process crashes, power loss (lose unsynced), torn writes
  bool slow_fsync = true;    // fsync latency raised to 50-500 ms on one node, or a stalling disk (1-3 s; the leader's 1-4 s)
  bool fsync_errors = true;  // one failed fsync (the node crashes, like etcd's panic)
  bool message_loss = true;  // 5-30 % loss and duplication on all links for a while
  bool pauses = true;        // process pauses (GC, VM stall), the leader's among them
  bool fault_points = true;  // arm a crash or power loss at a named point in the node's code
  // Kubernetes processes (a world with kube{}): apiserver crashes and restarts, apiservers cut
  // from etcd and reconnected, controllers paused and resumed. Off unless asked: only a scenario
  // with apiservers has them.
  bool kube_processes = false;
  // Members' clocks: a wall clock set off true time or stepped (more often while no member leads:
  // a jump mid-election), a monotonic clock drifting up to 20 % fast or slow. Off unless asked.
  bool clocks = false;
  // The workload's watch clients: one stops reading for a while (its stream backs up into the
  // member), or drops its watch and watches again from an older revision. Off unless asked.
  bool watch_clients = false;
  // Bit rot in synced data: a few bits of a down member's WAL flipped where its next start must
  // refuse it (a member that refuses stays down: at most (n-1)/2 of them). Off unless asked.
  bool disk_corruption = false;
  // The workload's KV clients: one stalls (sends and reads nothing, its lease keep-alives stop)
  // for 50 ms..1 s, sometimes 1..12 s. Off unless asked.
  bool client_stalls = false;
  // From each fork's time on, draws come from its stream at its rate (nemesis_fork.h); times
  // strictly increase, each inside `duration`.
  std::vector<NemesisFork> forks;
  // No fault before the first fork (a scenario without random faults, forked by dst explore).
  bool quiet_until_first_fork = false;
};

// One random step for the cluster as it is now (origin kRandom).
FaultStep draw_random_fault(const RandomFaultOptions& options, const Nemesis& nemesis, sim::Rng& rng);

class FaultDriver {
 public:
  FaultDriver(sim::Simulator& sim, sim::HostId host, Nemesis& nemesis);
  ~FaultDriver();  // stops the process if it still runs
  FaultDriver(const FaultDriver&) = delete;
  FaultDriver& operator=(const FaultDriver&) = delete;

  // Draws from the "raft-nemesis" random stream for options.duration from now.
  void start_random(const RandomFaultOptions& options);
  // Applies `timed` (time-ordered; kStop last, if any) at their times; a step other than kStop at
  // or after `until` (the end of the fault phase) stops the replay with an error.
  void start_replay(std::vector<FaultStep> timed, sim::TimeNs until);
  // The first step a replay could not apply (an edited schedule naming a node that does not
  // exist...), with the step; later steps are not applied.
  const std::optional<std::string>& error() const { return error_; }

 private:
  void random_loop(RandomFaultOptions options);
  void replay_loop(std::vector<FaultStep> timed, sim::TimeNs until);

  sim::Simulator& sim_;
  sim::HostId host_;
  Nemesis& nemesis_;
  sim::ProcessId process_ = sim::kNoProcess;
  std::optional<std::string> error_;
};

}  // namespace dst::faults
