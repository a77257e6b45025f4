#include "faults/random_faults.h"

#include <algorithm>
#include <iterator>

#include "base/assert.h"
#include "base/limits.h"
#include "node/fault_points/fault_points.h"

namespace dst::faults {

namespace {

// Actions added later come after the earlier ones; one that is off weighs 0. (The leader pause and
// the leader's disk stall are on with pauses and slow_fsync, so they changed every draw.)
enum Action { kSplit, kIsolateLeader, kOneWay, kHeal, kCrash, kCrashLeader, kRestart, kSlowFsync, kFsyncError,
              kLoss, kPause, kResume, kFaultPoint, kApiserverCrash, kApiserverRestart, kApiserverCut,
              kApiserverReconnect, kControllerPause, kControllerResume, kClockSkew, kClockJump, kClockDrift,
              kWatchStall, kWatchRewind, kPauseLeader, kStallLeaderDisk, kCorruptWal, kClientStall, kActionCount };

// The members (1-based) for which `pred` holds.
template <typename Pred>
std::vector<size_t> members_where(const Nemesis& nem, Pred pred) {
  std::vector<size_t> out;
  for (size_t n = 1; n <= nem.size(); ++n)
    if (pred(n)) out.push_back(n);
  return out;
}

size_t pick(const std::vector<size_t>& from, sim::Rng& rng) {
  DST_ASSERT(!from.empty());
  return from[rng.uniform_u64(from.size())];
}

// The kube processes (1-based) for which `pred` holds: apiservers, or controllers.
template <typename Pred>
std::vector<size_t> kube_where(size_t count, Pred pred) {
  std::vector<size_t> out;
  for (size_t n = 1; n <= count; ++n)
    if (pred(n)) out.push_back(n);
  return out;
}

// The kube actions' weights: each where it would act (a crash needs a running apiserver...).
void weigh_kube(const RandomFaultOptions& o, const Nemesis& nem, uint64_t (&w)[kActionCount]) {
  const KubeTarget* k = nem.kube();
  if (!o.kube_processes || k == nullptr) return;
  const size_t a = k->apiservers(), c = k->controllers();
  w[kApiserverCrash] = kube_where(a, [&](size_t n) { return !k->apiserver_crashed(n); }).empty() ? 0 : 2;
  w[kApiserverRestart] = kube_where(a, [&](size_t n) { return k->apiserver_crashed(n); }).empty() ? 0 : 4;
  w[kApiserverCut] = kube_where(a, [&](size_t n) { return !k->apiserver_cut(n); }).empty() ? 0 : 2;
  w[kApiserverReconnect] = kube_where(a, [&](size_t n) { return k->apiserver_cut(n); }).empty() ? 0 : 3;
  w[kControllerPause] = kube_where(c, [&](size_t n) { return !k->controller_paused(n); }).empty() ? 0 : 1;
  w[kControllerResume] = kube_where(c, [&](size_t n) { return k->controller_paused(n); }).empty() ? 0 : 2;
}

// A kube step on a process for which it acts.
FaultStep kube_fault(Action a, const Nemesis& nem, sim::Rng& rng) {
  const KubeTarget* k = nem.kube();
  DST_ASSERT(k != nullptr);
  const auto crashed = [&](size_t n) { return k->apiserver_crashed(n); };
  const auto cut = [&](size_t n) { return k->apiserver_cut(n); };
  const auto paused = [&](size_t n) { return k->controller_paused(n); };
  const auto no = [](auto pred) { return [pred](size_t n) { return !pred(n); }; };
  FaultStep s;
  std::vector<size_t> on;
  switch (a) {
    case kApiserverCrash: s.kind = FaultKind::kApiserverCrash, on = kube_where(k->apiservers(), no(crashed)); break;
    case kApiserverRestart: s.kind = FaultKind::kApiserverRestart, on = kube_where(k->apiservers(), crashed); break;
    case kApiserverCut: s.kind = FaultKind::kApiserverCut, on = kube_where(k->apiservers(), no(cut)); break;
    case kApiserverReconnect: s.kind = FaultKind::kApiserverReconnect, on = kube_where(k->apiservers(), cut); break;
    case kControllerPause: s.kind = FaultKind::kControllerPause, on = kube_where(k->controllers(), no(paused)); break;
    case kControllerResume: s.kind = FaultKind::kControllerResume, on = kube_where(k->controllers(), paused); break;
    default: DST_UNREACHABLE("not a kube action");
  }
  s.node = pick(on, rng);
  return s;
}

// A member's clock: skewed by up to 10 s either way (or set right), stepped by up to 30 s, or
// drifting by up to 20 % (or running true again).
FaultStep clock_fault(Action a, const Nemesis& nem, sim::Rng& rng) {
  FaultStep s{.node = 1 + rng.uniform_u64(nem.size())};
  const int64_t sign = rng.bernoulli(0.5) ? 1 : -1;
  if (a == kClockSkew) {
    s.kind = FaultKind::kClockSkew;
    s.ns = rng.bernoulli(0.3) ? 0 : sign * rng.uniform_int(sim::milliseconds(500), sim::seconds(10));
  } else if (a == kClockJump) {
    s.kind = FaultKind::kClockJump;
    s.ns = sign * rng.uniform_int(sim::seconds(1), sim::seconds(30));
  } else {
    s.kind = FaultKind::kClockDrift;
    s.ppm = rng.bernoulli(0.4) ? 0 : sign * rng.uniform_int(10'000, 200'000);
  }
  return s;
}

// A watch client's fault: a stall of 0.2..4 s (sometimes up to 12 s), or a rewind by a few
// revisions, by many, or back to revision 1.
FaultStep watch_fault(Action a, const Nemesis& nem, sim::Rng& rng) {
  FaultStep s{.node = 1 + rng.uniform_u64(nem.watchers())};
  if (a == kWatchStall) {
    s.kind = FaultKind::kWatchStall;
    s.ns = rng.bernoulli(0.8) ? rng.uniform_int(sim::milliseconds(200), sim::seconds(4))
                              : rng.uniform_int(sim::seconds(4), sim::seconds(12));
  } else {
    s.kind = FaultKind::kWatchRewind;
    const uint64_t how = rng.uniform_u64(10);
    s.count = how < 5 ? rng.uniform_int(1, 20) : how < 8 ? rng.uniform_int(20, 500) : limits::kWatchRewindRevisionsMax;
  }
  return s;
}

// The down members whose WAL may be damaged now: the damage must leave a quorum that can still
// start (a member that refuses is lost for good), so at most (n-1)/2 members are ever damaged.
std::vector<size_t> damageable(const RandomFaultOptions& o, const Nemesis& nem) {
  // The voters: members now (a damaged one not yet restarted among them) and the lost ones, not
  // nodes added for a member_add that failed or members removed since.
  const size_t n = members_where(nem, [&](size_t m) { return nem.member(m) || nem.lost(m); }).size();
  if (!o.disk_corruption || n < 3) return {};
  const size_t damaged = members_where(nem, [&](size_t m) { return nem.lost(m) || nem.must_refuse_start(m); }).size();
  if (damaged >= (n - 1) / 2) return {};
  return members_where(nem, [&](size_t m) {
    return nem.restartable(m) && !nem.must_refuse_start(m) && nem.wal_damage_range(m).has_value();
  });
}

// A few bits flipped in the synced records of a down member's last WAL segment, before its last
// valid record: a start must refuse it (bit rot under a durable log; issue 21).
FaultStep wal_damage(const RandomFaultOptions& o, const Nemesis& nem, sim::Rng& rng) {
  FaultStep s{.kind = FaultKind::kBitflip, .node = pick(damageable(o, nem), rng)};
  const auto range = nem.wal_damage_range(s.node);
  DST_ASSERT(range.has_value() && range->limit > 0);
  s.file = range->file;
  s.offset = rng.uniform_u64(range->limit);
  s.length = 1 + rng.uniform_u64(std::min<uint64_t>(16, range->limit - s.offset));
  s.bits = static_cast<int>(1 + rng.uniform_u64(3));
  return s;
}

// Each action's weight; 0 where it is not allowed or would do nothing now.
void weigh(const RandomFaultOptions& o, const Nemesis& nem, uint64_t (&w)[kActionCount]) {
  const size_t n = nem.size();
  const bool leader = nem.leader().has_value();
  const bool any_up = !members_where(nem, [&](size_t m) { return nem.up(m); }).empty();
  const bool any_down = !members_where(nem, [&](size_t m) { return nem.restartable(m); }).empty();
  const bool any_running = !members_where(nem, [&](size_t m) { return nem.up(m) && !nem.paused(m); }).empty();
  const bool any_paused = !members_where(nem, [&](size_t m) { return nem.up(m) && nem.paused(m); }).empty();
  w[kSplit] = o.partitions && n >= 2 ? 3 : 0;
  w[kIsolateLeader] = o.partitions && n >= 2 && leader ? 3 : 0;
  w[kOneWay] = o.asymmetric && n >= 2 ? 2 : 0;
  w[kHeal] = 5;
  w[kCrash] = o.crashes && any_up ? 3 : 0;
  // Jepsen's "kill the primary": leader churn with partly replicated tails is where the commit
  // rules (Figure 8) and the election restriction are tested.
  w[kCrashLeader] = o.crashes && leader ? 2 : 0;
  w[kRestart] = o.crashes && any_down ? 5 : 0;
  w[kSlowFsync] = o.slow_fsync ? 2 : 0;
  w[kFsyncError] = o.fsync_errors ? 1 : 0;
  w[kLoss] = o.message_loss ? 2 : 0;
  w[kPause] = o.pauses && any_running ? 1 : 0;
  w[kResume] = o.pauses && any_paused ? 2 : 0;
  // Crashes at exact places in the node's code (etcd's gofail failpoints): right after a vote or
  // an append went out and before the next fsync is where durability rules matter.
  w[kFaultPoint] = o.fault_points ? 3 : 0;
  weigh_kube(o, nem, w);
  w[kClockSkew] = o.clocks ? 1 : 0;
  w[kClockJump] = o.clocks ? (leader ? 1 : 4) : 0;
  w[kClockDrift] = o.clocks ? 1 : 0;
  w[kWatchStall] = o.watch_clients && nem.watchers() > 0 ? 2 : 0;
  w[kWatchRewind] = o.watch_clients && nem.watchers() > 0 ? 2 : 0;
  // A paused leader comes back believing it still leads: until it hears of the new term it may
  // answer what only a leader may (etcd #20418's stale reads, #15247's lease renewals).
  w[kPauseLeader] = o.pauses && leader && !nem.paused(*nem.leader()) ? 1 : 0;
  // A leader whose disk stalls holds its Raft loop in fsync (it cannot hear that it was deposed)
  // while its API still answers: etcd #15247's keep-alives renewed by a stale leader.
  w[kStallLeaderDisk] = o.slow_fsync && leader ? 3 : 0;
  w[kCorruptWal] = damageable(o, nem).empty() ? 0 : 2;
  // A stalled application: a request's answer read late (a long operation in the history), its
  // leases' keep-alives stopped (they may expire while it holds them: etcd's lock-holder pause).
  w[kClientStall] = o.client_stalls && nem.clients() > 0 ? 3 : 0;
}

// A random two-way split, each side non-empty, e.g. {n1,n3} | {n2}.
FaultStep split(const Nemesis& nem, sim::Rng& rng) {
  const size_t n = nem.size();
  FaultStep s{.kind = FaultKind::kPartition};
  const uint64_t mask = 1 + rng.uniform_u64((uint64_t{1} << n) - 2);
  s.groups.resize(2);
  for (size_t i = 0; i < n; ++i) s.groups[(mask >> i) & 1 ? 0 : 1].push_back(i + 1);
  return s;
}

FaultStep process_fault(Action a, const Nemesis& nem, sim::Rng& rng) {
  FaultStep s;
  if (a == kCrash) {
    s.node = pick(members_where(nem, [&](size_t m) { return nem.up(m); }), rng);
    const uint64_t kind = rng.uniform_u64(3);  // process crash, power loss, power loss with torn writes
    s.kind = kind == 0 ? FaultKind::kCrash : FaultKind::kKill;
    s.lose_unsynced = kind >= 1;
    s.torn = kind == 2;
  } else if (a == kCrashLeader) {
    s.node = *nem.leader();
    s.lose_unsynced = rng.bernoulli(0.5);
    s.kind = s.lose_unsynced ? FaultKind::kKill : FaultKind::kCrash;
  } else if (a == kRestart) {
    s.kind = FaultKind::kRestart;
    s.node = pick(members_where(nem, [&](size_t m) { return nem.restartable(m); }), rng);
  } else if (a == kPause) {
    s.kind = FaultKind::kPause;
    s.node = pick(members_where(nem, [&](size_t m) { return nem.up(m) && !nem.paused(m); }), rng);
  } else if (a == kPauseLeader) {
    s.kind = FaultKind::kPause;
    s.node = *nem.leader();
  } else {
    s.kind = FaultKind::kResume;
    s.node = pick(members_where(nem, [&](size_t m) { return nem.up(m) && nem.paused(m); }), rng);
  }
  return s;
}

FaultStep disk_or_link_fault(Action a, const Nemesis& nem, sim::Rng& rng) {
  FaultStep s;
  const size_t n = nem.size();
  if (a == kStallLeaderDisk) {
    s.kind = FaultKind::kSlowFsync;
    s.node = *nem.leader();
    s.dist = sim::DurationDist::uniform(sim::seconds(1), sim::seconds(4)).clamped(0, limits::kScenarioLatencyNsMax);
    s.dist_text = "1s..4s";
  } else if (a == kSlowFsync) {
    s.node = 1 + rng.uniform_u64(n);
    const uint64_t how = rng.uniform_u64(20);  // 9 in 20 slow, 3 stalling, 8 back to normal
    s.kind = how < 12 ? FaultKind::kSlowFsync : FaultKind::kNormalFsync;
    // A stalling disk holds the member's Raft loop for seconds per fsync while the rest of it
    // (reads, lease keep-alives) still answers: a leader that cannot step down.
    const bool stall = how >= 9 && how < 12;
    s.dist = (stall ? sim::DurationDist::uniform(sim::seconds(1), sim::seconds(3))
                    : sim::DurationDist::uniform(sim::milliseconds(50), sim::milliseconds(500)))
                 .clamped(0, limits::kScenarioLatencyNsMax);
    s.dist_text = stall ? "1s..3s" : "50ms..500ms";
  } else if (a == kFsyncError) {
    s.kind = FaultKind::kFsyncError;
    s.node = 1 + rng.uniform_u64(n);
    s.count = 1;
  } else if (a == kLoss) {
    s.kind = FaultKind::kDrop;  // half the time back to lossless links
    if (rng.bernoulli(0.5)) {
      s.loss = rng.uniform_real(0.05, 0.3);
      s.duplicate = rng.uniform_real(0.0, 0.1);
      s.reorder = rng.uniform_real(0.0, 0.2);
    }
  } else {
    s.kind = FaultKind::kFailpoint;
    s.node = 1 + rng.uniform_u64(n);
    const auto point = static_cast<node::FaultPoint>(rng.uniform_u64(static_cast<uint64_t>(node::FaultPoint::kCount)));
    s.point = std::string(node::fault_point_name(point));
    s.action = rng.bernoulli(0.7) ? "power-loss" : "crash";
    // A point passed on every Ready fires a few passes in; one passed only around elections,
    // snapshots, compactions or defragmentations fires within its first passes, or it would
    // rarely fire at all.
    using P = node::FaultPoint;
    constexpr P kRare[] = {P::kBeforeSnapshotSave, P::kAfterSnapshotSave, P::kAfterCompactionScheduled,
                           P::kBeforeCompactionBatch, P::kAfterCompactionBatch, P::kBeforeDefrag, P::kDuringDefrag,
                           P::kAfterDefrag, P::kAfterVote};
    const bool rare = std::find(std::begin(kRare), std::end(kRare), point) != std::end(kRare);
    s.skip = rare ? rng.uniform_u64(point == node::FaultPoint::kAfterVote ? 1 : 3) : rng.uniform_u64(30);
    s.times = 1;
  }
  return s;
}

}  // namespace

FaultStep draw_random_fault(const RandomFaultOptions& options, const Nemesis& nem, sim::Rng& rng) {
  uint64_t weights[kActionCount] = {};
  weigh(options, nem, weights);
  const auto action = static_cast<Action>(rng.weighted_index(weights));
  FaultStep s;
  switch (action) {
    case kSplit: s = split(nem, rng); break;
    case kIsolateLeader: s = FaultStep{.kind = FaultKind::kIsolate, .node = *nem.leader()}; break;
    case kOneWay: {
      const size_t n = nem.size();
      const size_t from = rng.uniform_u64(n);
      s = FaultStep{.kind = FaultKind::kOneWay, .node = from + 1, .to = (from + 1 + rng.uniform_u64(n - 1)) % n + 1};
      break;
    }
    case kHeal: s = FaultStep{.kind = FaultKind::kHeal}; break;
    case kCrash: case kCrashLeader: case kRestart: case kPause: case kResume: case kPauseLeader:
      s = process_fault(action, nem, rng);
      break;
    case kWatchStall: case kWatchRewind: s = watch_fault(action, nem, rng); break;
    case kSlowFsync: case kFsyncError: case kLoss: case kFaultPoint: case kStallLeaderDisk:
      s = disk_or_link_fault(action, nem, rng);
      break;
    case kApiserverCrash: case kApiserverRestart: case kApiserverCut: case kApiserverReconnect: case kControllerPause:
    case kControllerResume: s = kube_fault(action, nem, rng); break;
    case kClockSkew: case kClockJump: case kClockDrift: s = clock_fault(action, nem, rng); break;
    case kCorruptWal: s = wal_damage(options, nem, rng); break;
    case kClientStall: {
      // Mostly under a second (a GC pause), sometimes past a short lease's TTL (1..12 s).
      s = FaultStep{.kind = FaultKind::kClientStall, .node = 1 + rng.uniform_u64(nem.clients())};
      s.ns = rng.bernoulli(0.7) ? rng.uniform_int(sim::milliseconds(50), sim::seconds(1))
                                : rng.uniform_int(sim::seconds(1), sim::seconds(12));
      break;
    }
    case kActionCount: DST_UNREACHABLE("random fault action");
  }
  s.origin = Origin::kRandom;
  return s;
}

FaultDriver::FaultDriver(sim::Simulator& sim, sim::HostId host, Nemesis& nemesis)
    : sim_(sim), host_(host), nemesis_(nemesis) {}

FaultDriver::~FaultDriver() {
  if (process_ != sim::kNoProcess && sim_.alive(process_)) sim_.kill(process_);
}

void FaultDriver::start_random(const RandomFaultOptions& options) {
  DST_ASSERT(process_ == sim::kNoProcess);
  process_ = sim_.start_process(host_, "nemesis");
  sim_.spawn(process_, "nemesis", [this, options] { random_loop(options); });
}

void FaultDriver::start_replay(std::vector<FaultStep> timed, sim::TimeNs until) {
  DST_ASSERT(process_ == sim::kNoProcess);
  process_ = sim_.start_process(host_, "nemesis");
  sim_.spawn(process_, "nemesis",
             [this, until, timed = std::move(timed)]() mutable { replay_loop(std::move(timed), until); });
}

void FaultDriver::random_loop(RandomFaultOptions options) {
  DST_ASSERT(!options.quiet_until_first_fork || !options.forks.empty());
  const sim::TimeNs start = sim_.now();
  const sim::TimeNs end = start + options.duration;
  sim::Rng* rng = &sim_.rng("raft-nemesis");
  double mean = static_cast<double>(options.mean_interval);
  size_t next_fork = 0;
  // The fork at `next_fork` takes over: its stream and rate from its exact time on.
  auto take_fork = [&] {
    const NemesisFork& f = options.forks[next_fork++];
    DST_ASSERT(next_fork == 1 || f.after > options.forks[next_fork - 2].after);
    rng = &sim_.rng(fork_stream_name(f));
    mean = static_cast<double>(options.mean_interval) * f.interval_percent / 100.0;
  };
  if (options.quiet_until_first_fork) {
    if (options.forks[0].after > 0 && sim_.sleep(options.forks[0].after) != sim::WaitResult::kOk) return;
    take_fork();
  }
  while (sim_.now() < end) {
    const auto wait = std::max<sim::DurationNs>(static_cast<sim::DurationNs>(rng->exponential(mean)), sim::milliseconds(1));
    if (next_fork < options.forks.size() && start + options.forks[next_fork].after < sim_.now() + wait) {
      // The wait drawn before the fork would cross it: sleep to the fork, and draw again there.
      const sim::TimeNs at = start + options.forks[next_fork].after;
      if (at > sim_.now() && sim_.sleep(at - sim_.now()) != sim::WaitResult::kOk) return;
      take_fork();
      continue;
    }
    if (sim_.sleep(wait) != sim::WaitResult::kOk) return;
    if (sim_.now() >= end) break;
    const FaultStep step = draw_random_fault(options, nemesis_, *rng);
    if (Status st = nemesis_.apply(step); !st.is_ok()) {
      // Every draw acts on the cluster as it is: only the schedule's length bound refuses one.
      DST_ASSERT_EQ(st.code(), StatusCode::kResourceExhausted);
      error_ = "the random nemesis stopped at t=" + sim::format_seconds(sim_.now()) + ": " + st.message() +
               " (a longer interval between faults, or a shorter run)";
      return;
    }
  }
  (void)nemesis_.apply(FaultStep{.kind = FaultKind::kStop, .origin = Origin::kRandom});
}

void FaultDriver::replay_loop(std::vector<FaultStep> timed, sim::TimeNs until) {
  for (const FaultStep& step : timed) {
    if (step.kind != FaultKind::kStop && step.at >= until) {
      // After the fault phase the harness has healed everything and checks recovery: a fault
      // then would fail a check the cluster did not fail.
      error_ = "the schedule's step at t=" + sim::format_seconds(step.at) + " (" + describe(step) +
               ") is after the end of the fault phase at t=" + sim::format_seconds(until);
      return;
    }
    if (step.at > sim_.now() && sim_.sleep(step.at - sim_.now()) != sim::WaitResult::kOk) return;
    if (Status st = nemesis_.apply(step); !st.is_ok()) {
      error_ = "the schedule's step at t=" + sim::format_seconds(step.at) + " (" + describe(step) + "): " + st.message();
      return;
    }
  }
}

}  // namespace dst::faults
