// Nemesis::apply, the one executor: a FaultStep to the named action that carries it out, the
// kube layer's actions with their windows, and the schedule row of every applied step.
#include <string>

#include "base/assert.h"
#include "base/hash.h"
#include "base/limits.h"
#include "faults/fault_state.h"
#include "faults/nemesis.h"
#include "faults/schedule_text.h"

namespace dst::faults {

Status Nemesis::apply(FaultStep step) {
  if (applied_.size() >= kStepsMax)
    return Status(StatusCode::kResourceExhausted, "the nemesis applied " + std::to_string(kStepsMax) +
                                                      " fault steps already; a fault schedule is at most that long");
  step.at = sim_.now();
  if (!step.refused.empty()) {
    record(step);
    return Status(StatusCode::kInvalidArgument, step.refused);
  }
  // The cluster's state as the step comes (before it changes it), for coverage only.
  const std::vector<std::string_view> states =
      step.kind == FaultKind::kStop ? std::vector<std::string_view>{}
                                    : fault_states(step.kind, acts_on_member(step.kind) ? step.node : 0, leader().value_or(0), sim_.now());
  Status st;
  if (step.kind == FaultKind::kStop) st = Status::ok();
  else if (acts_on_kube(step.kind)) st = apply_kube(step);
  else if (acts_on_workload(step.kind)) st = step.kind == FaultKind::kClientStall ? apply_client(step) : apply_watcher(step);
  else if (acts_on_member(step.kind)) st = apply_member(step);
  else st = apply_network(step);
  if (st.is_ok()) {
    record(step);
    // A drift cluster{} configured is the machine's own clock, not a fault: not counted.
    if (step.origin != Origin::kConfig) count_fault_states(step.kind, states);
    if (step.kind == FaultKind::kClockDrift && step.origin == Origin::kConfig) configured_drift_[step.node] = step.ppm;
  }
  return st;
}

void Nemesis::record_refused(FaultStep step, const std::string& message) {
  if (applied_.size() >= kStepsMax) return;  // the refusal stands; the schedule is full
  step.at = sim_.now();
  step.refused = message.empty() ? "refused" : message;
  record(step);
}

void Nemesis::record(const FaultStep& step) {
  applied_.push_back(step);
  history::ScheduleStep row;
  row.at_ns = step.at;
  row.origin = std::string(origin_name(step.origin));
  row.call = step.call;
  row.kind = std::string(fault_kind_name(step.kind));
  row.lua = step_to_lua(step);
  recorder_.schedule_step(row);
  // The trace pins what was done, so that a replay that applied something else diverges here.
  sim_.trace().record(sim_.now(), sim::EventKind::kNote, sim::kNoProcess, hash_bytes(row.lua, 0x5c4ed01e));
}

Status Nemesis::apply_network(const FaultStep& s) {
  switch (s.kind) {
    case FaultKind::kPartition: return partition(s.groups, "");
    case FaultKind::kMajoritiesRing: return majorities_ring();
    case FaultKind::kMinorityThird: return minority_third();
    case FaultKind::kBridge: return bridge();
    case FaultKind::kHeal: return heal();
    case FaultKind::kDrop: return drop_noise(s.loss, s.duplicate, s.reorder);
    case FaultKind::kDelay: return delay(s.dist, s.dist_text);
    case FaultKind::kResetDelay: return reset_delay();
    default: DST_UNREACHABLE("not a network fault kind");
  }
}

Status Nemesis::apply_member(const FaultStep& s) {
  switch (s.kind) {
    case FaultKind::kIsolate: return isolate(s.node);
    case FaultKind::kOneWay: return one_way(s.node, s.to);
    case FaultKind::kCrash: return crash(s.node);
    case FaultKind::kKill: return kill(s.node, s.lose_unsynced, s.torn);
    case FaultKind::kRestart: return restart(s.node);
    case FaultKind::kPause: return pause(s.node);
    case FaultKind::kResume: return resume(s.node);
    case FaultKind::kSlowFsync: return slow_fsync(s.node, s.dist, s.dist_text);
    case FaultKind::kNormalFsync: return normal_fsync(s.node);
    case FaultKind::kFsyncError: return fsync_error(s.node, s.count);
    case FaultKind::kDiskFull: return disk_full(s.node, s.full);
    case FaultKind::kBitflip: return bitflip(s.node, s.file, s.offset, s.length, s.bits);
    case FaultKind::kClockSkew: return clock_skew(s.node, s.ns);
    case FaultKind::kClockDrift: return clock_drift(s.node, s.ppm);
    case FaultKind::kClockJump: return clock_jump(s.node, s.ns);
    case FaultKind::kFailpoint: return failpoint(s.node, s.point, s.action, s.delay, s.skip, s.times);
    default: DST_UNREACHABLE("not a member fault kind");
  }
}

// The kube layer's windows: an apiserver down until its restart, cut until reconnected, a
// controller paused until resumed. Acting twice is a no-op, as for members.
Status Nemesis::apply_kube(const FaultStep& s) {
  const bool controller = s.kind == FaultKind::kControllerPause || s.kind == FaultKind::kControllerResume;
  const std::string fn(fault_kind_name(s.kind));
  if (kube_ == nullptr) return Status(StatusCode::kInvalidArgument, fn + ": the scenario has no kube{} world");
  const size_t count = controller ? kube_->controllers() : kube_->apiservers();
  if (s.node < 1 || s.node > count)
    return Status(StatusCode::kInvalidArgument, fn + ": " + (controller ? "controller " : "apiserver ") +
                                                    std::to_string(s.node) + " does not exist (1.." +
                                                    std::to_string(count) + ")");
  const std::string apiserver = "apiserver" + std::to_string(s.node);
  const std::string ctl = "controller" + std::to_string(s.node);
  switch (s.kind) {
    case FaultKind::kApiserverCrash:
      if (kube_->apiserver_crashed(s.node)) break;
      kube_->crash_apiserver(s.node);
      open("kube-down " + apiserver, "apiserver-crash", apiserver);
      break;
    case FaultKind::kApiserverRestart:
      if (!kube_->apiserver_crashed(s.node)) break;
      kube_->restart_apiserver(s.node);
      close("kube-down " + apiserver);
      log_.add(sim_.now(), "restart " + apiserver);
      break;
    case FaultKind::kApiserverCut:
      if (kube_->apiserver_cut(s.node)) break;
      kube_->cut_apiserver(s.node);
      open("kube-cut " + apiserver, "partition", apiserver + "|etcd");
      break;
    case FaultKind::kApiserverReconnect:
      if (!kube_->apiserver_cut(s.node)) break;
      kube_->reconnect_apiserver(s.node);
      close("kube-cut " + apiserver);
      break;
    case FaultKind::kControllerPause:
      if (kube_->controller_paused(s.node)) break;
      kube_->pause_controller(s.node);
      if (kube_->controller_paused(s.node)) open("kube-pause " + ctl, "pause", ctl);
      break;
    case FaultKind::kControllerResume:
      if (!kube_->controller_paused(s.node)) break;
      kube_->resume_controller(s.node);
      close("kube-pause " + ctl);
      break;
    default: DST_UNREACHABLE("not a kube fault kind");
  }
  return Status::ok();
}

// A workload client's window whose length is known when it starts (a stall): recorded whole, so
// the report shades all of it, and logged.
void Nemesis::stall_window(const std::string& kind, const std::string& target, sim::DurationNs ns) {
  history::Fault f;
  f.kind = kind;
  f.target = target;
  f.start_ns = sim_.now();
  recorder_.fault_ended(recorder_.fault_started(f), sim_.now() + ns);
  log_.add(sim_.now(), kind + " " + target + " for " + sim::format_duration(ns));
}

// A KV client's stall: a window of its length.
Status Nemesis::apply_client(const FaultStep& s) {
  const std::string fn(fault_kind_name(s.kind));
  if (s.node < 1 || s.node > clients())
    return Status(StatusCode::kInvalidArgument, fn + ": client " + std::to_string(s.node) + " does not exist (" +
                                                    (clients() == 0 ? std::string("the workload has no clients")
                                                                    : "1.." + std::to_string(clients())) + ")");
  if (s.ns < 0 || s.ns > limits::kClientStallNsMax)
    return Status(StatusCode::kInvalidArgument, fn + ": a stall of 0..60 s, got " + sim::format_duration(s.ns));
  const std::string target = "client" + std::to_string(s.node);
  workload_->stall_client(s.node, sim_.now() + s.ns);
  stall_window("client-stall", target, s.ns);
  return Status::ok();
}

// A watch client's stall (a window of its length) or rewind (an instant). The watcher acts on
// either at its next response.
Status Nemesis::apply_watcher(const FaultStep& s) {
  const std::string fn(fault_kind_name(s.kind));
  if (s.node < 1 || s.node > watchers())
    return Status(StatusCode::kInvalidArgument, fn + ": watcher " + std::to_string(s.node) + " does not exist (" +
                                                    (watchers() == 0 ? std::string("the workload has no watchers")
                                                                     : "1.." + std::to_string(watchers())) + ")");
  const std::string target = "watcher" + std::to_string(s.node);
  if (s.kind == FaultKind::kWatchStall) {
    if (s.ns < 0 || s.ns > limits::kWatchStallNsMax)
      return Status(StatusCode::kInvalidArgument, fn + ": a stall of 0..60 s, got " + sim::format_duration(s.ns));
    workload_->stall_watcher(s.node, sim_.now() + s.ns);
    stall_window("watch-stall", target, s.ns);
  } else {
    DST_ASSERT(s.kind == FaultKind::kWatchRewind);
    if (s.count < 1 || s.count > limits::kWatchRewindRevisionsMax)
      return Status(StatusCode::kInvalidArgument, fn + ": rewind by 1.." + std::to_string(limits::kWatchRewindRevisionsMax) +
                                                      " revisions, got " + std::to_string(s.count));
    workload_->rewind_watcher(s.node, s.count);
    instant("watch-rewind", target + " by " + std::to_string(s.count));
  }
  return Status::ok();
}

}  // namespace dst::faults
