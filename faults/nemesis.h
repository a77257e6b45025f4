// The one nemesis: every fault of a run, random or scripted, etcd or kube, is a FaultStep
// (fault_step.h) carried out by apply(), which records the step into the run's schedule
// (history::Recorder::schedule_step, replayable) and the window it was in force
// (Recorder::fault_started / fault_ended), so reports shade it and a reader sees exactly what
// happened when. The named actions below are apply()'s parts (public for their tests); the world,
// the random generator and the scenarios go through apply().
//
// Members are 1-based everywhere here, as scenarios and reports name them (n1, n2, ...). Every
// action checks its arguments and returns an error that says what was expected ("unknown node 7;
// cluster has 1..3"); a refused action changes nothing.
//
// Windows: a partition or link fault lasts until heal() (or the next partition replaces it), a
// crash or kill until restart(), a pause until resume(), a disk or clock setting until it is set
// back, drop/delay until set back to 0 / the default; instantaneous actions (a failed fsync armed,
// a bit flip, a clock jump, an armed fault point, compact, defrag) get a window of zero length.
// finish() closes whatever is still open at the end of the fault phase.
//
// The cluster is reached through ClusterTarget (cluster_target.h): restarts and fault points are
// operations on a member, which the world that built the cluster carries out.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "history/recorder.h"
#include "faults/cluster_target.h"
#include "faults/fault_step.h"
#include "faults/kube_target.h"
#include "faults/workload_target.h"
#include "sim/fault_log.h"
#include "sim/rng.h"
#include "sim/simulator.h"

namespace dst::faults {

class Nemesis {
 public:
  Nemesis(sim::Simulator& sim, ClusterTarget& cluster, history::Recorder& recorder);

  // The Kubernetes layer's apiservers and controllers, once the world has started them.
  void set_kube(KubeTarget* kube) { kube_ = kube; }
  const KubeTarget* kube() const { return kube_; }
  // The workload's watch clients, once the world has made them (none: watch faults are refused).
  void set_workload(WorkloadTarget* workload) { workload_ = workload; }
  size_t watchers() const { return workload_ ? workload_->watchers() : 0; }
  size_t clients() const { return workload_ ? workload_->clients() : 0; }

  // Carries out one step now (its `at` is set to now) and records it; a refused step (an
  // unknown node, a bad parameter) changes nothing, is not recorded, and says what was expected.
  // At most kStepsMax steps are recorded; past that the run is a runaway loop and apply fails.
  Status apply(FaultStep step);
  // A scenario's step that apply() refused (an unknown node...), recorded with the message so
  // that a replay of the schedule refuses it the same way (apply() of a step with `refused` set
  // records it and returns that error without acting).
  void record_refused(FaultStep step, const std::string& message);
  static constexpr size_t kStepsMax = 1'000'000;  // the run database reads at most this many (kRunDbScheduleStepsMax)
  // Every step applied so far, in order, with the time it acted.
  const std::vector<FaultStep>& applied() const { return applied_; }

  size_t size() const { return cluster_.size(); }
  // 1-based member or an error naming the valid range.
  Status check_member(int64_t n, const char* what) const;
  bool up(size_t n) const { return cluster_.up(n - 1); }
  bool paused(size_t n) const { return cluster_.paused(n - 1); }
  // Down, but started once, not removed and not lost to damaged storage: a restart would bring it back.
  bool restartable(size_t n) const {
    return !up(n) && cluster_.started(n - 1) && !cluster_.removed(n - 1) && !cluster_.lost(n - 1);
  }
  // Storage damage (ClusterTarget): lost to damage it refused; its next start must refuse; where
  // damage to a down member's WAL must be refused.
  bool lost(size_t n) const { return cluster_.lost(n - 1); }
  bool must_refuse_start(size_t n) const { return cluster_.must_refuse_start(n - 1); }
  std::optional<ClusterTarget::WalDamageRange> wal_damage_range(size_t n) const { return cluster_.wal_damage_range(n - 1); }
  // A member of the cluster now (started, not removed, named by the leader's membership): what
  // the selectors choose from once members are added and removed.
  bool member(size_t n) const { return cluster_.counts_as_member(n - 1); }
  std::optional<size_t> leader() const;  // 1-based

  // Network. A new partition replaces the current one (its window ends).
  Status partition(const Groups& groups, const std::string& shape);
  Status isolate(size_t n);
  Status majorities_ring();  // 5+ members: each member sees a majority, no two see the same one
  Status minority_third();   // a third of the members (at least one) cut from the rest
  Status bridge();           // two halves that only one member (the bridge) connects
  Status one_way(size_t from, size_t to);  // from can no longer reach to; the reverse still works
  Status heal();
  Status drop(double probability);              // message loss on every link (0: none)
  Status delay(const sim::DurationDist& dist, const std::string& text);  // latency of every link
  Status reset_delay();

  // Processes.
  Status crash(size_t n);  // process crash: the page cache survives
  Status kill(size_t n, bool lose_unsynced, bool torn);
  Status restart(size_t n);
  Status pause(size_t n);
  Status resume(size_t n);

  // Disks and clocks.
  Status slow_fsync(size_t n, const sim::DurationDist& dist, const std::string& text);
  Status normal_fsync(size_t n);
  Status fsync_error(size_t n, int64_t count);
  Status disk_full(size_t n, bool full);
  Status bitflip(size_t n, const std::string& file, uint64_t offset, uint64_t length, int bits);
  Status clock_skew(size_t n, sim::DurationNs offset);  // the wall clock reads offset ahead
  Status clock_drift(size_t n, int64_t ppm);            // the monotonic clock runs fast/slow
  Status clock_jump(size_t n, sim::DurationNs delta);

  // A fault point in the node's code (node/fault_points/fault_points.h): "crash", "power-loss" or
  // "sleep" (with delay), firing on the (skip+1)-th pass, `times` passes (0: every pass).
  Status failpoint(size_t n, const std::string& point, const std::string& action, sim::DurationNs delay,
                   uint64_t skip, uint64_t times);

  // Records an action carried out elsewhere (a compaction or defragmentation a scenario asked a
  // client to send) as an instant, so that the report marks it with the faults.
  void record_instant(const std::string& kind, const std::string& target) { instant(kind, target); }

  // Every open window ends now (the fault phase is over; the harness heals everything).
  void finish();
  // One line per action, in order ("t=1.200s partition n1|n2,n3").
  const sim::FaultLog& log() const { return log_; }

 private:
  void open(const std::string& slot, const std::string& kind, const std::string& target);
  void close(const std::string& slot);
  void instant(const std::string& kind, const std::string& target);
  void stall_window(const std::string& kind, const std::string& target, sim::DurationNs ns);
  Status apply_partition(const Groups& groups, const std::string& kind);
  Status apply_network(const FaultStep& step);
  Status apply_member(const FaultStep& step);
  Status apply_kube(const FaultStep& step);
  Status apply_watcher(const FaultStep& step);
  Status apply_client(const FaultStep& step);
  void record(const FaultStep& step);
  Status drop_noise(double loss, double duplicate, double reorder);
  void heal_network();  // every link works again; the network's windows end
  std::string name(size_t n) const { return "n" + std::to_string(n); }

  sim::Simulator& sim_;
  ClusterTarget& cluster_;
  history::Recorder& recorder_;
  KubeTarget* kube_ = nullptr;
  WorkloadTarget* workload_ = nullptr;
  std::vector<FaultStep> applied_;
  // Open windows by slot ("net", "crash n2", "pause n1", "fsync n3", ...): the fault id.
  std::map<std::string, uint64_t> open_;
  // Each member's clock drift as cluster{} configured it (the machine's own quartz): what finish()
  // sets a drift fault back to.
  std::map<size_t, int64_t> configured_drift_;
  sim::FaultLog log_;
};

}  // namespace dst::faults
