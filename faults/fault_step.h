// A fault as data: one typed record per action the nemesis takes (a partition, a crash, a slow
// disk, an apiserver cut off...), with its targets, its parameters and the virtual time it acts.
// The random generator (random_faults.h) and a scenario's fault functions both produce these;
// faults::Nemesis::apply is the one executor; the run records every applied step (the run
// database's `schedule` table) so that a run can be replayed with exactly its schedule
// (`dst run SCENARIO --schedule FILE`) and a schedule can be read and edited as Lua
// (schedule_text.h).
//
// Steps are actions; the windows they open and close (a crash until its restart) are what the
// executor records as history::Fault rows. Nodes, apiservers and controllers are 1-based.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/rng.h"
#include "sim/time.h"

namespace dst::faults {

// A partition: groups of 1-based members; members in no group form one more group together.
using Groups = std::vector<std::vector<size_t>>;

enum class FaultKind : uint8_t {
  // Network.
  kPartition,      // groups
  kIsolate,        // node: cut from every other member
  kMajoritiesRing,  // 5+ members: each sees a majority, no two the same one
  kMinorityThird,  // a third of the members cut from the rest
  kBridge,         // two halves only the middle member connects
  kOneWay,         // node can no longer reach `to`
  kHeal,           // every link works again
  kDrop,           // loss (and duplicate, reorder) on every link; all 0: back to normal
  kDelay,          // dist: latency of every link
  kResetDelay,     // links back to their configured latency and loss
  // Processes.
  kCrash,    // node: process crash (the page cache survives)
  kKill,     // node, lose_unsynced, torn: a power loss
  kRestart,  // node
  kPause,    // node
  kResume,   // node
  // Disks and clocks.
  kSlowFsync,    // node, dist
  kNormalFsync,  // node
  kFsyncError,   // node, count: the next `count` fsyncs fail
  kDiskFull,     // node, full
  kBitflip,      // node, file, offset, length, bits
  kClockSkew,    // node, ns: the wall clock reads `ns` ahead (0: back)
  kClockDrift,   // node, ppm
  kClockJump,    // node, ns
  kFailpoint,    // node, point, action, delay, skip, times
  // The Kubernetes layer (numbers are apiservers or controllers).
  kApiserverCrash,
  kApiserverRestart,
  kApiserverCut,        // from every etcd member
  kApiserverReconnect,
  kControllerPause,
  kControllerResume,
  // The workload's watch clients (numbers are watchers, 1-based).
  kWatchStall,   // node, ns: reads nothing for `ns`
  kWatchRewind,  // node, count: watches again from `count` revisions below where it was
  // The workload's KV clients (numbers are clients, 1-based).
  kClientStall,  // node, ns: sends nothing and reads nothing for `ns` (its keep-alives stop too)
  // Not an action: the random generator's last wake (a replay sleeps until it, as the original did).
  kStop,
  kCount,
};

// Where a step came from. A replay runs timed steps (random, or added to a schedule by hand) at
// their times, and a script's steps at the script's matching call.
enum class Origin : uint8_t {
  kRandom,  // the random generator (swarm{}, `dst run etcd`)
  kScript,  // a scenario's fault function; `call` numbers them in the order the script called
  kConfig,  // the scenario's configuration (cluster{clock=...}); set again by the scenario itself
  kTimed,   // a schedule file's step with no call: run at its time by the replay
};

struct FaultStep {
  sim::TimeNs at = 0;  // virtual time it acts
  FaultKind kind = FaultKind::kHeal;
  Origin origin = Origin::kScript;
  uint64_t call = 0;  // kScript: 1 for the script's first fault call, 2 for the next, ...

  size_t node = 0;  // the member, apiserver or controller
  size_t to = 0;    // kOneWay
  Groups groups;    // kPartition
  double loss = 0, duplicate = 0, reorder = 0;  // kDrop
  sim::DurationDist dist;  // kDelay, kSlowFsync
  std::string dist_text;   // how the scenario wrote it ("50ms..500ms")
  bool lose_unsynced = false, torn = false;  // kKill
  bool full = true;                          // kDiskFull
  int64_t count = 1;                         // kFsyncError, kWatchRewind
  std::string file;                          // kBitflip
  uint64_t offset = 0, length = 4096;        // kBitflip
  int bits = 1;                              // kBitflip
  sim::DurationNs ns = 0;                    // kClockSkew, kClockJump, kWatchStall, kClientStall
  int64_t ppm = 0;                           // kClockDrift
  std::string point, action;                 // kFailpoint
  sim::DurationNs delay = 0;                 // kFailpoint "sleep"
  uint64_t skip = 0, times = 1;              // kFailpoint
  // Not empty: the executor refused this step with this message (a scenario's call with an
  // argument the world does not have). Recorded so that a replay refuses it the same way.
  std::string refused;
};

// "partition", "kill", "apiserver_cut", ...: the names schedule files use.
std::string_view fault_kind_name(FaultKind kind);
std::optional<FaultKind> parse_fault_kind(std::string_view name);
std::string_view origin_name(Origin origin);
std::optional<Origin> parse_origin(std::string_view name);

// Whether the kind acts on a member (node is 1..members) / on the kube layer / on a watch client.
bool acts_on_member(FaultKind kind);
bool acts_on_kube(FaultKind kind);
// node is one of the workload's clients: a watcher (1..watchers) or a KV client (1..clients).
bool acts_on_workload(FaultKind kind);

// One readable line: "kill n2 lose_unsynced torn", "partition n1|n2,n3".
std::string describe(const FaultStep& step);

}  // namespace dst::faults
