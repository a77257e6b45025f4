#include "faults/random_faults.h"

#include <algorithm>

#include "base/assert.h"
#include "base/limits.h"
#include "node/fault_points/fault_points.h"

namespace dst::faults {

namespace {

enum Action { kSplit, kIsolateLeader, kOneWay, kHeal, kCrash, kCrashLeader, kRestart, kSlowFsync, kFsyncError,
              kLoss, kPause, kResume, kFaultPoint, kActionCount };

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
  } else {
    s.kind = FaultKind::kResume;
    s.node = pick(members_where(nem, [&](size_t m) { return nem.up(m) && nem.paused(m); }), rng);
  }
  return s;
}

FaultStep disk_or_link_fault(Action a, const Nemesis& nem, sim::Rng& rng) {
  FaultStep s;
  const size_t n = nem.size();
  if (a == kSlowFsync) {
    s.node = 1 + rng.uniform_u64(n);
    s.kind = rng.bernoulli(0.6) ? FaultKind::kSlowFsync : FaultKind::kNormalFsync;
    s.dist = sim::DurationDist::uniform(sim::milliseconds(50), sim::milliseconds(500))
                 .clamped(0, limits::kScenarioLatencyNsMax);
    s.dist_text = "50ms..500ms";
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
    // A point passed on every Ready fires a few passes in; one passed only around elections
    // fires at its first pass, or it would rarely fire at all.
    s.skip = point == node::FaultPoint::kAfterVote ? 0 : rng.uniform_u64(30);
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
    case kCrash: case kCrashLeader: case kRestart: case kPause: case kResume: s = process_fault(action, nem, rng); break;
    case kSlowFsync: case kFsyncError: case kLoss: case kFaultPoint: s = disk_or_link_fault(action, nem, rng); break;
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
  sim::Rng& rng = sim_.rng("raft-nemesis");
  const sim::TimeNs end = sim_.now() + options.duration;
  while (sim_.now() < end) {
    const auto wait = static_cast<sim::DurationNs>(rng.exponential(static_cast<double>(options.mean_interval)));
    if (sim_.sleep(std::max<sim::DurationNs>(wait, sim::milliseconds(1))) != sim::WaitResult::kOk) return;
    if (sim_.now() >= end) break;
    const FaultStep step = draw_random_fault(options, nemesis_, rng);
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
