// Coverage of fault kinds by the cluster's state when they came (issue 21's "fault kind x cluster
// state"): the nemesis names each applied step's states, counted as "fault.<kind>.<state>" into
// the run's probe counts (base/probes.h), so sweeps report which kinds ever hit a leader, an
// election, a snapshot... A step may be in several states at once (a crash of the leader right
// after a compaction is "leader" and "compaction").
//
//   leader / follower  the step names a member: the live leader with the highest term, or another
//   election           no live leader when the step came
//   snapshot           within kFaultStateWindow after a snapshot was taken, sent, restored or installed
//   compaction         within the window after a compaction removed history from a backend
//   defrag             within the window after a backend was defragmented
//
// "Within the window after" stands for "during": snapshots, compactions and defragmentations take
// no virtual time of their own here, so a fault during one is one that comes while its effects
// (a follower catching up from it, watchers canceled, files rewritten) are still under way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "faults/fault_step.h"
#include "sim/time.h"

namespace dst::faults {

inline constexpr sim::DurationNs kFaultStateWindow = sim::milliseconds(200);

inline constexpr std::string_view kFaultStates[] = {"leader", "follower", "election", "snapshot", "compaction", "defrag"};

// The states of `kind` on member `node` (1-based; 0: not a member step) given the live leader
// (0: none) and the run's probes now.
std::vector<std::string_view> fault_states(FaultKind kind, size_t node, size_t leader, sim::TimeNs now);
// Counts each as "fault.<kind>.<state>" into the run's probe counts (nothing when none collects).
void count_fault_states(FaultKind kind, const std::vector<std::string_view>& states);

// The coverage names of every kind (but kStop) in every state it can be in, with their meaning:
// what a sweep's report lists as reached or not.
struct FaultStateName {
  std::string name;
  std::string meaning;
};
std::vector<FaultStateName> fault_state_catalogue();

}  // namespace dst::faults
