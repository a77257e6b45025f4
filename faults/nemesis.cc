#include "faults/nemesis.h"

#include <algorithm>
#include <cstdio>

#include "base/assert.h"
#include "base/limits.h"
#include "node/fault_points/fault_points.h"

namespace dst::faults {

namespace {

std::string ms_text(sim::DurationNs d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gms", static_cast<double>(d) / 1e6);
  return buf;
}

}  // namespace

Nemesis::Nemesis(sim::Simulator& sim, ClusterTarget& cluster, history::Recorder& recorder)
    : sim_(sim), cluster_(cluster), recorder_(recorder) {}

Status Nemesis::check_member(int64_t n, const char* what) const {
  if (n >= 1 && static_cast<uint64_t>(n) <= cluster_.size()) return Status::ok();
  return Status(StatusCode::kInvalidArgument, std::string(what) + ": unknown node " + std::to_string(n) +
                                                  "; cluster has 1.." + std::to_string(cluster_.size()));
}

std::optional<size_t> Nemesis::leader() const {
  std::optional<size_t> l = cluster_.leader();
  if (!l) return std::nullopt;
  return *l + 1;
}

void Nemesis::open(const std::string& slot, const std::string& kind, const std::string& target) {
  close(slot);
  history::Fault f;
  f.kind = kind;
  f.target = target;
  f.start_ns = sim_.now();
  open_[slot] = recorder_.fault_started(f);
  log_.add(sim_.now(), kind + (target.empty() ? "" : " " + target));
}

void Nemesis::close(const std::string& slot) {
  auto it = open_.find(slot);
  if (it == open_.end()) return;
  recorder_.fault_ended(it->second, sim_.now());
  open_.erase(it);
}

void Nemesis::instant(const std::string& kind, const std::string& target) {
  history::Fault f;
  f.kind = kind;
  f.target = target;
  f.start_ns = sim_.now();
  recorder_.fault_ended(recorder_.fault_started(f), sim_.now());
  log_.add(sim_.now(), kind + (target.empty() ? "" : " " + target));
}

Status Nemesis::apply_partition(const Groups& given, const std::string& kind) {
  const size_t n = cluster_.size();
  std::vector<int> group_of(n + 1, -1);
  Groups groups;
  for (const auto& g : given) {
    if (g.empty()) return Status(StatusCode::kInvalidArgument, "partition{}: an empty group");
    for (size_t m : g) {
      if (Status st = check_member(static_cast<int64_t>(m), "partition{}"); !st.is_ok()) return st;
      if (group_of[m] != -1)
        return Status(StatusCode::kInvalidArgument, "partition{}: node " + std::to_string(m) + " is in two groups");
      group_of[m] = static_cast<int>(groups.size());
    }
    groups.push_back(g);
  }
  std::vector<size_t> rest;
  for (size_t m = 1; m <= n; ++m)
    if (group_of[m] == -1) rest.push_back(m);
  if (!rest.empty()) groups.push_back(rest);
  if (groups.size() < 2) return Status(StatusCode::kInvalidArgument, "partition{}: every node is in one group");
  std::vector<std::vector<sim::HostId>> hosts;
  std::string target;
  for (const auto& g : groups) {
    std::vector<size_t> sorted = g;
    std::sort(sorted.begin(), sorted.end());
    hosts.emplace_back();
    if (!target.empty()) target += "|";
    for (size_t k = 0; k < sorted.size(); ++k) {
      hosts.back().push_back(cluster_.host(sorted[k] - 1));
      target += (k ? "," : "") + name(sorted[k]);
    }
  }
  heal_network();  // a partition replaces the previous one (and one-way cuts)
  sim_.net().partition(hosts);
  open("net", kind, target);
  return Status::ok();
}

Status Nemesis::partition(const Groups& groups, const std::string& shape) {
  return apply_partition(groups, shape.empty() ? "partition" : "partition " + shape);
}

Status Nemesis::isolate(size_t n) {
  if (Status st = check_member(static_cast<int64_t>(n), "isolate()"); !st.is_ok()) return st;
  return apply_partition({{n}}, "partition isolate");
}

Status Nemesis::majorities_ring() {
  // Jepsen's majorities ring: every member sees itself and its ring neighbours up to k steps
  // away, k = (n + 2) / 4 (5 nodes: 1, so 3 of 5; 9 nodes: 2, so 5 of 9): each sees a majority,
  // and no two see the same one, so leaders come and go without one being stable.
  const size_t n = cluster_.size();
  if (n < 5) return Status(StatusCode::kInvalidArgument, "majorities_ring: needs at least 5 nodes; cluster has " + std::to_string(n));
  if (Status st = heal(); !st.is_ok()) return st;
  const size_t k = (n + 2) / 4;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const size_t d = (j + n - i) % n;
      sim_.net().set_reachable(cluster_.host(i), cluster_.host(j), std::min(d, n - d) <= k);
    }
  open("net", "partition majorities-ring", "n1.." + name(n));
  return Status::ok();
}

Status Nemesis::minority_third() {
  const size_t n = cluster_.size();
  const size_t k = std::max<size_t>(1, n / 3);
  std::vector<size_t> minority;
  for (size_t m = n - k + 1; m <= n; ++m) minority.push_back(m);
  return apply_partition({minority}, "partition minority-third");
}

Status Nemesis::bridge() {
  // Two halves that cannot reach each other; the bridge (the middle member) reaches both.
  const size_t n = cluster_.size();
  if (n < 3) return Status(StatusCode::kInvalidArgument, "bridge: needs at least 3 nodes; cluster has " + std::to_string(n));
  if (Status st = heal(); !st.is_ok()) return st;
  const size_t b = (n + 1) / 2;  // 1-based bridge
  for (size_t i = 1; i <= n; ++i)
    for (size_t j = 1; j <= n; ++j) {
      if (i == j || i == b || j == b) continue;
      if ((i < b) != (j < b)) sim_.net().set_reachable(cluster_.host(i - 1), cluster_.host(j - 1), false);
    }
  open("net", "partition bridge", "via " + name(b));
  return Status::ok();
}

Status Nemesis::one_way(size_t from, size_t to) {
  if (Status st = check_member(static_cast<int64_t>(from), "one_way()"); !st.is_ok()) return st;
  if (Status st = check_member(static_cast<int64_t>(to), "one_way()"); !st.is_ok()) return st;
  if (from == to) return Status(StatusCode::kInvalidArgument, "one_way(): from and to are the same node");
  sim_.net().set_reachable(cluster_.host(from - 1), cluster_.host(to - 1), false);
  open("cut " + name(from) + "->" + name(to), "cut", name(from) + "->" + name(to));
  return Status::ok();
}

void Nemesis::heal_network() {
  sim_.net().heal();
  for (auto it = open_.begin(); it != open_.end();) {
    if (it->first == "net" || it->first.rfind("cut ", 0) == 0) {
      recorder_.fault_ended(it->second, sim_.now());
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
}

Status Nemesis::heal() {
  heal_network();
  log_.add(sim_.now(), "heal");
  return Status::ok();
}

Status Nemesis::drop(double p) { return drop_noise(p, 0, 0); }

// Message loss, duplication and reordering on every link (the random nemesis sets all three).
Status Nemesis::drop_noise(double loss, double duplicate, double reorder) {
  for (double p : {loss, duplicate, reorder})
    if (!(p >= 0 && p <= 1)) return Status(StatusCode::kInvalidArgument, "drop(p): p must be in [0, 1]");
  sim::LinkConfig link = cluster_.link();
  link.loss = loss;
  link.duplicate = duplicate;
  link.reorder = reorder;
  sim_.net().set_default_link(link);
  if (loss == 0 && duplicate == 0 && reorder == 0) {
    close("drop");
    log_.add(sim_.now(), "drop 0");
  } else {
    std::string what = std::to_string(static_cast<int>(loss * 100 + 0.5)) + "%";
    if (duplicate > 0) what += " duplicate " + std::to_string(static_cast<int>(duplicate * 100 + 0.5)) + "%";
    if (reorder > 0) what += " reorder " + std::to_string(static_cast<int>(reorder * 100 + 0.5)) + "%";
    open("drop", "drop", what);
  }
  return Status::ok();
}

Status Nemesis::delay(const sim::DurationDist& dist, const std::string& text) {
  sim::LinkConfig link = cluster_.link();
  link.latency = dist;
  sim_.net().set_default_link(link);
  open("delay", "delay", text);
  return Status::ok();
}

Status Nemesis::reset_delay() {
  sim_.net().set_default_link(cluster_.link());
  close("delay");
  close("drop");
  return Status::ok();
}

Status Nemesis::crash(size_t n) {
  if (Status st = check_member(static_cast<int64_t>(n), "crash()"); !st.is_ok()) return st;
  if (!up(n)) return Status::ok();  // already down: nothing happens (no window; apply() still records the step)
  cluster_.crash(n - 1, sim::KillOptions{});
  close("pause " + name(n));
  open("down " + name(n), "crash", name(n));
  return Status::ok();
}

Status Nemesis::kill(size_t n, bool lose_unsynced, bool torn) {
  if (Status st = check_member(static_cast<int64_t>(n), "kill()"); !st.is_ok()) return st;
  if (torn && !lose_unsynced)
    return Status(StatusCode::kInvalidArgument, "kill(): torn=true needs lose_unsynced=true (torn writes are a power loss)");
  if (!up(n)) return Status::ok();
  cluster_.crash(n - 1, sim::KillOptions{.lose_unsynced = lose_unsynced, .torn = torn});
  close("pause " + name(n));
  open("down " + name(n), lose_unsynced ? (torn ? "power-loss-torn" : "power-loss") : "crash", name(n));
  return Status::ok();
}

Status Nemesis::restart(size_t n) {
  if (Status st = check_member(static_cast<int64_t>(n), "restart()"); !st.is_ok()) return st;
  if (up(n)) return Status::ok();
  // A removed member stays down (etcd's would refuse to start), and so does one that refused its
  // damaged storage (it would refuse again); a node never started was never added: all no-ops.
  if (cluster_.removed(n - 1) || cluster_.lost(n - 1) || !cluster_.started(n - 1)) return Status::ok();
  cluster_.start(n - 1);
  close("down " + name(n));
  log_.add(sim_.now(), "restart " + name(n));
  return Status::ok();
}

Status Nemesis::pause(size_t n) {
  if (Status st = check_member(static_cast<int64_t>(n), "pause()"); !st.is_ok()) return st;
  if (!up(n) || cluster_.paused(n - 1)) return Status::ok();
  cluster_.pause(n - 1);
  open("pause " + name(n), "pause", name(n));
  return Status::ok();
}

Status Nemesis::resume(size_t n) {
  if (Status st = check_member(static_cast<int64_t>(n), "resume()"); !st.is_ok()) return st;
  if (!up(n) || !cluster_.paused(n - 1)) return Status::ok();
  cluster_.resume(n - 1);
  close("pause " + name(n));
  log_.add(sim_.now(), "resume " + name(n));
  return Status::ok();
}

Status Nemesis::slow_fsync(size_t n, const sim::DurationDist& dist, const std::string& text) {
  if (Status st = check_member(static_cast<int64_t>(n), "slow_fsync()"); !st.is_ok()) return st;
  sim_.host(cluster_.host(n - 1)).disk().set_fsync_latency(dist);
  open("fsync " + name(n), "slow-fsync", name(n) + " " + text);
  return Status::ok();
}

Status Nemesis::normal_fsync(size_t n) {
  if (Status st = check_member(static_cast<int64_t>(n), "normal_fsync()"); !st.is_ok()) return st;
  sim_.host(cluster_.host(n - 1)).disk().set_fsync_latency(cluster_.normal_fsync_latency());
  close("fsync " + name(n));
  return Status::ok();
}

Status Nemesis::fsync_error(size_t n, int64_t count) {
  if (Status st = check_member(static_cast<int64_t>(n), "fsync_error()"); !st.is_ok()) return st;
  if (count < 1 || count > 1'000'000) return Status(StatusCode::kInvalidArgument, "fsync_error(): count must be 1..1000000");
  sim_.host(cluster_.host(n - 1)).disk().fail_fsyncs(count);
  instant("fsync-error", name(n) + " x" + std::to_string(count));
  return Status::ok();
}

Status Nemesis::disk_full(size_t n, bool full) {
  if (Status st = check_member(static_cast<int64_t>(n), "disk_full()"); !st.is_ok()) return st;
  sim_.host(cluster_.host(n - 1)).disk().set_full(full);
  if (full) open("disk " + name(n), "disk-full", name(n));
  else close("disk " + name(n));
  return Status::ok();
}

Status Nemesis::bitflip(size_t n, const std::string& file, uint64_t offset, uint64_t length, int bits) {
  if (Status st = check_member(static_cast<int64_t>(n), "bitflip()"); !st.is_ok()) return st;
  if (bits < 1 || bits > 64) return Status(StatusCode::kInvalidArgument, "bitflip(): bits must be 1..64");
  // Told first: whether the next start must refuse is judged on the storage before the damage.
  if (static_cast<uint64_t>(bits) <= length * 8) cluster_.damaging(n - 1, file, offset, length);
  Status st = sim_.host(cluster_.host(n - 1)).disk().flip_bits(file, offset, length, bits);
  if (!st.is_ok()) return Status(StatusCode::kInvalidArgument, "bitflip(): " + st.message());
  instant("bitflip", name(n) + " " + file);
  return Status::ok();
}

Status Nemesis::clock_skew(size_t n, sim::DurationNs offset) {
  if (Status st = check_member(static_cast<int64_t>(n), "clock_skew()"); !st.is_ok()) return st;
  if (offset > limits::kClockOffsetNsMax || offset < -limits::kClockOffsetNsMax)
    return Status(StatusCode::kInvalidArgument, "clock_skew(): an offset of more than a year (" +
                                                    sim::format_duration(limits::kClockOffsetNsMax) + ") either way");
  sim_.host(cluster_.host(n - 1)).clock().set_wall_offset(offset);
  if (offset == 0) close("skew " + name(n));
  else open("skew " + name(n), "clock-skew", name(n) + " " + ms_text(offset));
  return Status::ok();
}

Status Nemesis::clock_drift(size_t n, int64_t ppm) {
  if (Status st = check_member(static_cast<int64_t>(n), "clock_drift()"); !st.is_ok()) return st;
  if (ppm < -sim::NodeClock::kDriftPpmMax || ppm > sim::NodeClock::kDriftPpmMax)
    return Status(StatusCode::kInvalidArgument, "clock_drift(): ppm must be within +-" +
                                                    std::to_string(sim::NodeClock::kDriftPpmMax));
  sim_.host(cluster_.host(n - 1)).clock().set_drift_ppm(ppm, sim_.now());
  if (ppm == 0) close("drift " + name(n));
  else open("drift " + name(n), "clock-drift", name(n) + " " + std::to_string(ppm) + "ppm");
  return Status::ok();
}

Status Nemesis::clock_jump(size_t n, sim::DurationNs delta) {
  if (Status st = check_member(static_cast<int64_t>(n), "clock_jump()"); !st.is_ok()) return st;
  sim::NodeClock& clock = sim_.host(cluster_.host(n - 1)).clock();
  // Jumps add up: the offset they leave must stay within a year of true time either way.
  if (delta > limits::kClockOffsetNsMax || delta < -limits::kClockOffsetNsMax ||
      clock.wall_offset() + delta > limits::kClockOffsetNsMax || clock.wall_offset() + delta < -limits::kClockOffsetNsMax)
    return Status(StatusCode::kInvalidArgument, "clock_jump(): " + name(n) + "'s clock would be more than a year (" +
                                                    sim::format_duration(limits::kClockOffsetNsMax) + ") off true time");
  clock.jump_wall(delta);
  instant("clock-jump", name(n) + " " + ms_text(delta));
  return Status::ok();
}

Status Nemesis::failpoint(size_t n, const std::string& point, const std::string& action, sim::DurationNs delay,
                          uint64_t skip, uint64_t times) {
  if (Status st = check_member(static_cast<int64_t>(n), "failpoint()"); !st.is_ok()) return st;
  Result<node::FaultPoint> p = node::parse_fault_point(point);
  if (!p.is_ok()) return Status(StatusCode::kInvalidArgument, "failpoint(): " + p.status().message());
  node::FaultAction a;
  if (action == "crash") a.kind = node::FaultAction::Kind::kCrash;
  else if (action == "power-loss") a.kind = node::FaultAction::Kind::kPowerLoss;
  else if (action == "sleep") a.kind = node::FaultAction::Kind::kDelay;
  else
    return Status(StatusCode::kInvalidArgument,
                  "failpoint(): unknown action \"" + action + "\"; expected \"crash\", \"power-loss\" or \"sleep\"");
  if (a.kind == node::FaultAction::Kind::kDelay && delay <= 0)
    return Status(StatusCode::kInvalidArgument, "failpoint(): \"sleep\" needs a delay, e.g. {delay=ms(200)}");
  a.delay = delay;
  a.skip = skip;
  a.times = times;
  cluster_.faults(n - 1).arm(*p, a);
  instant("failpoint", name(n) + " " + point + " " + action);
  return Status::ok();
}

void Nemesis::finish() {
  for (auto& [slot, id] : open_) recorder_.fault_ended(id, sim_.now());
  open_.clear();
  // A drift fault ends with the fault phase like every other: each clock runs at its configured
  // rate again (a wall clock set off or stepped stays where it is: setting it back would be a
  // step of its own).
  for (size_t n = 1; n <= cluster_.size(); ++n) {
    sim::NodeClock& clock = sim_.host(cluster_.host(n - 1)).clock();
    auto it = configured_drift_.find(n);
    const int64_t ppm = it == configured_drift_.end() ? 0 : it->second;
    if (clock.drift_ppm() != ppm) clock.set_drift_ppm(ppm, sim_.now());
  }
}

}  // namespace dst::faults
