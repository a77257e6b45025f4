// The scenario functions that act on the running world, inside scheduled functions: the
// selectors, partition shapes, and every fault (docs/scenarios.md). Each fault function checks
// its arguments, builds the faults::FaultStep they describe and hands it to the scenario
// (Scenario::apply_fault), which numbers it and has the nemesis carry it out.
#include <lua.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "base/assert.h"
#include "base/limits.h"
#include "scenarios/scenario_api.h"
#include "scenarios/scenario_args.h"

namespace dst::scenarios::api {

// ---- selectors ----

int l_leader(lua_State* L) {
  require_running(L, "leader()");
  check_arg_count(L, 0, "leader()");
  std::optional<size_t> l = self(L).nemesis()->leader();
  if (l) lua_pushinteger(L, static_cast<lua_Integer>(*l));
  else lua_pushnil(L);
  return 1;
}

int l_follower(lua_State* L) {
  require_running(L, "follower()");
  check_arg_count(L, 0, "follower()");
  Scenario& s = self(L);
  std::optional<size_t> l = s.nemesis()->leader();
  std::vector<size_t> up;
  for (size_t m = 1; m <= s.nemesis()->size(); ++m)
    if (s.nemesis()->up(m) && s.nemesis()->member(m) && (!l || m != *l)) up.push_back(m);
  if (up.empty()) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(up[s.rng().uniform_u64(up.size())]));
  return 1;
}

int l_random_node(lua_State* L) {
  require_running(L, "random_node()");
  check_arg_count(L, 0, "random_node()");
  Scenario& s = self(L);
  std::vector<size_t> members;  // up or down, but members (not removed, not never-added)
  for (size_t m = 1; m <= s.nemesis()->size(); ++m)
    if (s.nemesis()->member(m)) members.push_back(m);
  if (members.empty()) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(members[s.rng().uniform_u64(members.size())]));
  return 1;
}

int l_nodes(lua_State* L) {
  check_arg_count(L, 0, "nodes()");
  Scenario& s = self(L);
  lua_pushinteger(L, static_cast<lua_Integer>(s.nemesis() ? s.nemesis()->size() : s.mutable_config().run.nodes));
  return 1;
}

int l_now(lua_State* L) {
  require_running(L, "now()");
  check_arg_count(L, 0, "now()");
  Scenario& s = self(L);
  lua_pushinteger(L, s.simulator()->now() - s.phase_start());
  return 1;
}

// ---- partition shapes ----

namespace {

using faults::FaultKind;
using faults::FaultStep;

void apply(lua_State* L, FaultStep step) { check(L, self(L).apply_fault(std::move(step))); }

FaultStep on_node(FaultKind kind, size_t node) {
  FaultStep s{.kind = kind};
  s.node = node;
  return s;
}

// What every fault and request call starts with: only while the run goes, exactly `args`
// arguments, one action charged.
void fault_call_start(lua_State* L, int args, const char* fn) {
  require_running(L, fn);
  check_arg_count(L, args, fn);
  charge_action(L);
}

// A client request the scenario sends: a fault call that also needs room among the requests in
// flight.
void request_call_start(lua_State* L, int args, const char* fn) {
  fault_call_start(L, args, fn);
  check(L, self(L).check_request_room(fn));
}

// A fault call on one node: the step on the node its first argument names.
FaultStep node_fault_call(lua_State* L, FaultKind kind, int args, const char* fn) {
  fault_call_start(L, args, fn);
  return on_node(kind, node_arg(L, 1, fn));
}

// A fault with nothing but its node: crash(n), restart(n), pause(n), resume(n), normal_fsync(n).
int node_only_fault(lua_State* L, FaultKind kind, const char* fn) {
  apply(L, node_fault_call(L, kind, 1, fn));
  return 0;
}

}  // namespace

int shape_table(lua_State* L, const char* shape) {
  lua_createtable(L, 0, 1);
  lua_pushstring(L, shape);
  lua_setfield(L, -2, "shape");
  return 1;
}

int l_isolate(lua_State* L) {
  require_running(L, "isolate()");
  check_arg_count(L, 1, "isolate()");
  const size_t n = node_arg(L, 1, "isolate()");
  lua_createtable(L, 0, 1);
  lua_pushinteger(L, static_cast<lua_Integer>(n));
  lua_setfield(L, -2, "isolate");
  return 1;
}

int l_one_way_shape(lua_State* L) {
  require_running(L, "one_way()");
  check_arg_count(L, 2, "one_way()");
  const size_t from = node_arg(L, 1, "one_way()");
  const size_t to = node_arg(L, 2, "one_way()");
  lua_createtable(L, 0, 2);
  lua_pushinteger(L, static_cast<lua_Integer>(from));
  lua_setfield(L, -2, "from");
  lua_pushinteger(L, static_cast<lua_Integer>(to));
  lua_setfield(L, -2, "to");
  return 1;
}

// partition{{1,2},{3}} | partition{shape="bridge"} | partition(majorities_ring) |
// partition(isolate(leader())) | partition{isolate=2} | partition(one_way(1, 2)) | partition{from=1, to=2}
int l_partition(lua_State* L) {
  fault_call_start(L, 1, "partition{}");
  Fields f(L, 1, "partition{}", {"shape", "isolate", "from", "to"});
  if (f.index() == 0) luaL_error(L, "partition{}: expected groups such as {{1,2},{3}} or a shape");
  if (auto shape = f.string("shape")) {
    if (*shape == "majorities_ring") apply(L, FaultStep{.kind = FaultKind::kMajoritiesRing});
    else if (*shape == "minority_third") apply(L, FaultStep{.kind = FaultKind::kMinorityThird});
    else if (*shape == "bridge") apply(L, FaultStep{.kind = FaultKind::kBridge});
    else luaL_error(L, "partition{}: unknown shape '%s'; expected majorities_ring, minority_third or bridge", shape->c_str());
    return 0;
  }
  if (f.has("isolate")) {
    f.push("isolate");
    const size_t n = node_arg(L, -1, "partition{isolate=}");
    lua_pop(L, 1);
    apply(L, on_node(FaultKind::kIsolate, n));
    return 0;
  }
  if (f.has("from") || f.has("to")) {
    f.push("from");
    f.push("to");
    FaultStep step = on_node(FaultKind::kOneWay, node_arg(L, -2, "partition{from=, to=}"));
    step.to = node_arg(L, -1, "partition{from=, to=}");
    lua_pop(L, 2);
    apply(L, step);
    return 0;
  }
  faults::Groups groups;
  const lua_Integer bound = static_cast<lua_Integer>(limits::kRaftMembersMax);
  for (lua_Integer g = 1; lua_rawgeti(L, 1, g) != LUA_TNIL; ++g) {
    if (g > bound) luaL_error(L, "partition{}: more than %d groups", static_cast<int>(bound));
    if (!lua_istable(L, -1)) luaL_error(L, "partition{}: group %d: expected a list of nodes such as {1, 2}", static_cast<int>(g));
    groups.emplace_back();
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; ++i) {
      if (i > bound) luaL_error(L, "partition{}: group %d lists more than %d nodes", static_cast<int>(g), static_cast<int>(bound));
      groups.back().push_back(node_arg(L, -1, "partition{}"));
      lua_pop(L, 1);
    }
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  FaultStep step{.kind = FaultKind::kPartition};
  step.groups = std::move(groups);
  apply(L, std::move(step));
  return 0;
}

// ---- faults ----

int l_heal(lua_State* L) {
  fault_call_start(L, 0, "heal()");
  apply(L, FaultStep{.kind = FaultKind::kHeal});
  return 0;
}

int l_crash(lua_State* L) { return node_only_fault(L, FaultKind::kCrash, "crash()"); }

int l_kill(lua_State* L) {
  FaultStep step = node_fault_call(L, FaultKind::kKill, 2, "kill()");
  Fields f(L, 2, "kill()", {"lose_unsynced", "torn"});
  step.lose_unsynced = f.boolean("lose_unsynced").value_or(false);
  step.torn = f.boolean("torn").value_or(false);
  apply(L, step);
  return 0;
}

int l_restart(lua_State* L) { return node_only_fault(L, FaultKind::kRestart, "restart()"); }

int l_pause(lua_State* L) { return node_only_fault(L, FaultKind::kPause, "pause()"); }

int l_resume(lua_State* L) { return node_only_fault(L, FaultKind::kResume, "resume()"); }

int l_slow_fsync(lua_State* L) {
  FaultStep step = node_fault_call(L, FaultKind::kSlowFsync, 2, "slow_fsync()");
  step.dist = to_dist(L, 2, "slow_fsync()", "the latency", &step.dist_text);
  apply(L, step);
  return 0;
}

int l_normal_fsync(lua_State* L) { return node_only_fault(L, FaultKind::kNormalFsync, "normal_fsync()"); }

// watch_stall(w, d): the workload's watcher w reads nothing for d (its stream backs up into the
// member). watch_rewind(w, n): watcher w drops its watch and watches again n revisions back.
int l_watch_stall(lua_State* L) {
  fault_call_start(L, 2, "watch_stall()");
  FaultStep step = on_node(FaultKind::kWatchStall, static_cast<size_t>(check_whole(L, 1, "watch_stall()", "the watcher", 1, 64)));
  step.ns = to_duration(L, 2, "watch_stall()", "the stall", limits::kWatchStallNsMax);
  apply(L, step);
  return 0;
}

int l_watch_rewind(lua_State* L) {
  fault_call_start(L, 2, "watch_rewind()");
  FaultStep step = on_node(FaultKind::kWatchRewind, static_cast<size_t>(check_whole(L, 1, "watch_rewind()", "the watcher", 1, 64)));
  step.count = check_whole(L, 2, "watch_rewind()", "the revisions back", 1, limits::kWatchRewindRevisionsMax);
  apply(L, step);
  return 0;
}

// client_stall(c, d): the workload's KV client c (with its lease keep-alives) sends and reads
// nothing for d: a GC or VM pause of the application.
int l_client_stall(lua_State* L) {
  fault_call_start(L, 2, "client_stall()");
  FaultStep step = on_node(FaultKind::kClientStall, static_cast<size_t>(check_whole(L, 1, "client_stall()", "the client", 1, 256)));
  step.ns = to_duration(L, 2, "client_stall()", "the stall", limits::kClientStallNsMax);
  apply(L, step);
  return 0;
}

int l_fsync_error(lua_State* L) {
  FaultStep step = node_fault_call(L, FaultKind::kFsyncError, 2, "fsync_error()");
  step.count = lua_isnoneornil(L, 2) ? 1 : check_whole(L, 2, "fsync_error()", "the count", 1, 1'000'000);
  apply(L, step);
  return 0;
}

int l_disk_full(lua_State* L) {
  FaultStep step = node_fault_call(L, FaultKind::kDiskFull, 2, "disk_full()");
  step.full = lua_isnoneornil(L, 2) ? true : check_boolean(L, 2, "disk_full()", "the second argument");
  apply(L, step);
  return 0;
}

int l_bitflip(lua_State* L) {
  FaultStep step = node_fault_call(L, FaultKind::kBitflip, 3, "bitflip()");
  const std::string file = check_string(L, 2, "bitflip()", "the file name");
  Fields f(L, 3, "bitflip()", {"offset", "length", "bits"});
  const int64_t offset = f.integer("offset", 0, int64_t{1} << 40).value_or(0);
  const int64_t length = f.integer("length", 1, int64_t{1} << 40).value_or(4096);
  const int64_t bits = f.integer("bits", 1, 64).value_or(1);
  step.file = file;
  step.offset = static_cast<uint64_t>(offset);
  step.length = static_cast<uint64_t>(length);
  step.bits = static_cast<int>(bits);
  apply(L, step);
  return 0;
}

// Clock offsets may be negative: clock_skew(n, -ms(300)); at most a year either way.
sim::DurationNs signed_duration(lua_State* L, int idx, const char* fn) {
  const std::optional<int64_t> v = whole_number(L, idx);
  if (!v) fail(L, std::string(fn) + ": expected a duration such as ms(300) or -ms(300), got " + luaL_typename(L, idx));
  if (*v < -limits::kClockOffsetNsMax || *v > limits::kClockOffsetNsMax)
    fail(L, std::string(fn) + ": " + sim::format_duration(*v) + " is more than a year (" +
                sim::format_duration(limits::kClockOffsetNsMax) + ") either way");
  return *v;
}

int l_clock_skew(lua_State* L) {
  FaultStep step = node_fault_call(L, FaultKind::kClockSkew, 2, "clock_skew()");
  step.ns = signed_duration(L, 2, "clock_skew()");
  apply(L, step);
  return 0;
}

int l_clock_jump(lua_State* L) {
  FaultStep step = node_fault_call(L, FaultKind::kClockJump, 2, "clock_jump()");
  step.ns = signed_duration(L, 2, "clock_jump()");
  apply(L, step);
  return 0;
}

int l_clock_drift(lua_State* L) {
  FaultStep step = node_fault_call(L, FaultKind::kClockDrift, 2, "clock_drift()");
  const int64_t ppm = check_whole(L, 2, "clock_drift()", "the drift in ppm", -sim::NodeClock::kDriftPpmMax,
                                  sim::NodeClock::kDriftPpmMax);
  step.ppm = ppm;
  apply(L, step);
  return 0;
}

int l_drop(lua_State* L) {
  fault_call_start(L, 1, "drop()");
  FaultStep step{.kind = FaultKind::kDrop};
  step.loss = check_number(L, 1, "drop()", "the loss probability", 0, 1);
  apply(L, step);
  return 0;
}

int l_delay(lua_State* L) {
  fault_call_start(L, 1, "delay()");
  if (lua_isnoneornil(L, 1)) {
    apply(L, FaultStep{.kind = FaultKind::kResetDelay});
    return 0;
  }
  FaultStep step{.kind = FaultKind::kDelay};
  step.dist = to_dist(L, 1, "delay()", "the latency", &step.dist_text);
  apply(L, step);
  return 0;
}

int l_failpoint(lua_State* L) {
  FaultStep step = node_fault_call(L, FaultKind::kFailpoint, 4, "failpoint()");
  const std::string point = check_string(L, 2, "failpoint()", "the point", 64);
  const std::string action = check_string(L, 3, "failpoint()", "the action", 64);
  Fields f(L, 4, "failpoint()", {"delay", "skip", "times"});
  const sim::DurationNs delay = f.duration("delay", limits::kScenarioLatencyNsMax).value_or(0);
  const int64_t skip = f.integer("skip", 0, 1'000'000'000).value_or(0);
  const int64_t times = f.integer("times", 0, 1'000'000'000).value_or(1);
  step.point = point;
  step.action = action;
  step.delay = delay;
  step.skip = static_cast<uint64_t>(skip);
  step.times = static_cast<uint64_t>(times);
  apply(L, step);
  return 0;
}


// compact{keep=20, physical=false}: a client reads the current revision and compacts to it
// minus `keep` (recorded with the history like any operation).
int l_compact(lua_State* L) {
  request_call_start(L, 1, "compact{}");
  Fields f(L, 1, "compact{}", {"keep", "physical"});
  const int64_t keep = f.integer("keep", 0, 1'000'000'000).value_or(20);
  const bool physical = f.boolean("physical").value_or(false);
  self(L).compact(keep, physical);
  self(L).nemesis()->record_instant("compact", "keep " + std::to_string(keep));
  return 0;
}

// defrag(n): a client asks member n to defragment its backend (etcdctl defrag --endpoints=n).
int l_defrag(lua_State* L) {
  request_call_start(L, 1, "defrag()");
  const size_t n = node_arg(L, 1, "defrag()");
  etcdserverpb::ApiRequest req;
  req.mutable_defragment();
  self(L).send(std::move(req), static_cast<int64_t>(n) - 1);
  self(L).nemesis()->record_instant("defrag", "n" + std::to_string(n));
  return 0;
}

// alarm_disarm(): a client lists the alarms and deactivates each (etcdctl alarm disarm), the
// last step of etcd's NOSPACE recovery (after compaction and defragmentation).
int l_alarm_disarm(lua_State* L) {
  request_call_start(L, 0, "alarm_disarm()");
  self(L).alarm_disarm();
  self(L).nemesis()->record_instant("alarm_disarm", "all");
  return 0;
}

// member_add{learner=false}: a new member on a new host (etcdctl member add, then the new etcd
// started); returns its node number. The node catches up from the leader's snapshot.
int l_member_add(lua_State* L) {
  request_call_start(L, 1, "member_add{}");
  Fields f(L, 1, "member_add{}", {"learner"});
  const bool learner = f.boolean("learner").value_or(false);
  Result<size_t> n = self(L).member_add(learner);
  check(L, n.status());
  self(L).nemesis()->record_instant("member_add", "n" + std::to_string(*n) + (learner ? " (learner)" : ""));
  lua_pushinteger(L, static_cast<lua_Integer>(*n));
  return 1;
}

// member_remove(n): etcdctl member remove; the member stops once it learns of its removal.
int l_member_remove(lua_State* L) {
  request_call_start(L, 1, "member_remove()");
  const size_t n = node_arg(L, 1, "member_remove()");
  self(L).member_remove(n);
  self(L).nemesis()->record_instant("member_remove", "n" + std::to_string(n));
  return 0;
}

// move_leader(n): etcdctl move-leader: the member leading at the call hands its leadership to node
// n (a voter; anything else is refused, and a transfer Raft cannot finish in an election timeout
// is abandoned). With no leader at the call nothing is sent.
int l_move_leader(lua_State* L) {
  request_call_start(L, 1, "move_leader()");
  const size_t n = node_arg(L, 1, "move_leader()");
  const std::optional<size_t> from = self(L).move_leader(n);
  self(L).nemesis()->record_instant("move_leader", (from ? "n" + std::to_string(*from) : std::string("no leader")) +
                                                       " to n" + std::to_string(n));
  return 0;
}

}  // namespace dst::scenarios::api
