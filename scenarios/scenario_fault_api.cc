// The scenario functions that act on the running world, inside scheduled functions: the
// selectors, partition shapes, and every fault (docs/scenarios.md), through faults::Nemesis.
#include <lua.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "base/assert.h"
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
  require_running(L, "partition{}");
  check_arg_count(L, 1, "partition{}");
  charge_action(L);
  faults::Nemesis& nem = *self(L).nemesis();
  Fields f(L, 1, "partition{}", {"shape", "isolate", "from", "to"});
  if (f.index() == 0) luaL_error(L, "partition{}: expected groups such as {{1,2},{3}} or a shape");
  if (auto shape = f.string("shape")) {
    if (*shape == "majorities_ring") check(L, nem.majorities_ring());
    else if (*shape == "minority_third") check(L, nem.minority_third());
    else if (*shape == "bridge") check(L, nem.bridge());
    else luaL_error(L, "partition{}: unknown shape '%s'; expected majorities_ring, minority_third or bridge", shape->c_str());
    return 0;
  }
  if (f.has("isolate")) {
    f.push("isolate");
    const size_t n = node_arg(L, -1, "partition{isolate=}");
    lua_pop(L, 1);
    check(L, nem.isolate(n));
    return 0;
  }
  if (f.has("from") || f.has("to")) {
    f.push("from");
    f.push("to");
    const size_t from = node_arg(L, -2, "partition{from=, to=}");
    const size_t to = node_arg(L, -1, "partition{from=, to=}");
    lua_pop(L, 2);
    check(L, nem.one_way(from, to));
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
  check(L, nem.partition(groups, ""));
  return 0;
}

// ---- faults ----

int l_heal(lua_State* L) {
  require_running(L, "heal()");
  check_arg_count(L, 0, "heal()");
  charge_action(L);
  check(L, self(L).nemesis()->heal());
  return 0;
}

int l_crash(lua_State* L) {
  require_running(L, "crash()");
  check_arg_count(L, 1, "crash()");
  charge_action(L);
  check(L, self(L).nemesis()->crash(node_arg(L, 1, "crash()")));
  return 0;
}

int l_kill(lua_State* L) {
  require_running(L, "kill()");
  check_arg_count(L, 2, "kill()");
  charge_action(L);
  const size_t n = node_arg(L, 1, "kill()");
  Fields f(L, 2, "kill()", {"lose_unsynced", "torn"});
  check(L, self(L).nemesis()->kill(n, f.boolean("lose_unsynced").value_or(false), f.boolean("torn").value_or(false)));
  return 0;
}

int l_restart(lua_State* L) {
  require_running(L, "restart()");
  check_arg_count(L, 1, "restart()");
  charge_action(L);
  check(L, self(L).nemesis()->restart(node_arg(L, 1, "restart()")));
  return 0;
}

int l_pause(lua_State* L) {
  require_running(L, "pause()");
  check_arg_count(L, 1, "pause()");
  charge_action(L);
  check(L, self(L).nemesis()->pause(node_arg(L, 1, "pause()")));
  return 0;
}

int l_resume(lua_State* L) {
  require_running(L, "resume()");
  check_arg_count(L, 1, "resume()");
  charge_action(L);
  check(L, self(L).nemesis()->resume(node_arg(L, 1, "resume()")));
  return 0;
}

int l_slow_fsync(lua_State* L) {
  require_running(L, "slow_fsync()");
  check_arg_count(L, 2, "slow_fsync()");
  charge_action(L);
  const size_t n = node_arg(L, 1, "slow_fsync()");
  std::string text;
  const sim::DurationDist d = to_dist(L, 2, "slow_fsync()", "the latency", &text);
  check(L, self(L).nemesis()->slow_fsync(n, d, text));
  return 0;
}

int l_normal_fsync(lua_State* L) {
  require_running(L, "normal_fsync()");
  check_arg_count(L, 1, "normal_fsync()");
  charge_action(L);
  check(L, self(L).nemesis()->normal_fsync(node_arg(L, 1, "normal_fsync()")));
  return 0;
}

int l_fsync_error(lua_State* L) {
  require_running(L, "fsync_error()");
  check_arg_count(L, 2, "fsync_error()");
  charge_action(L);
  const size_t n = node_arg(L, 1, "fsync_error()");
  const int64_t count = lua_isnoneornil(L, 2) ? 1 : check_whole(L, 2, "fsync_error()", "the count", 1, 1'000'000);
  check(L, self(L).nemesis()->fsync_error(n, count));
  return 0;
}

int l_disk_full(lua_State* L) {
  require_running(L, "disk_full()");
  check_arg_count(L, 2, "disk_full()");
  charge_action(L);
  const size_t n = node_arg(L, 1, "disk_full()");
  const bool full = lua_isnoneornil(L, 2) ? true : check_boolean(L, 2, "disk_full()", "the second argument");
  check(L, self(L).nemesis()->disk_full(n, full));
  return 0;
}

int l_bitflip(lua_State* L) {
  require_running(L, "bitflip()");
  check_arg_count(L, 3, "bitflip()");
  charge_action(L);
  const size_t n = node_arg(L, 1, "bitflip()");
  const std::string file = check_string(L, 2, "bitflip()", "the file name");
  Fields f(L, 3, "bitflip()", {"offset", "length", "bits"});
  const int64_t offset = f.integer("offset", 0, int64_t{1} << 40).value_or(0);
  const int64_t length = f.integer("length", 1, int64_t{1} << 40).value_or(4096);
  const int64_t bits = f.integer("bits", 1, 64).value_or(1);
  check(L, self(L).nemesis()->bitflip(n, file, static_cast<uint64_t>(offset), static_cast<uint64_t>(length),
                                      static_cast<int>(bits)));
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
  require_running(L, "clock_skew()");
  check_arg_count(L, 2, "clock_skew()");
  charge_action(L);
  const size_t n = node_arg(L, 1, "clock_skew()");
  check(L, self(L).nemesis()->clock_skew(n, signed_duration(L, 2, "clock_skew()")));
  return 0;
}

int l_clock_jump(lua_State* L) {
  require_running(L, "clock_jump()");
  check_arg_count(L, 2, "clock_jump()");
  charge_action(L);
  const size_t n = node_arg(L, 1, "clock_jump()");
  check(L, self(L).nemesis()->clock_jump(n, signed_duration(L, 2, "clock_jump()")));
  return 0;
}

int l_clock_drift(lua_State* L) {
  require_running(L, "clock_drift()");
  check_arg_count(L, 2, "clock_drift()");
  charge_action(L);
  const size_t n = node_arg(L, 1, "clock_drift()");
  const int64_t ppm = check_whole(L, 2, "clock_drift()", "the drift in ppm", -sim::NodeClock::kDriftPpmMax,
                                  sim::NodeClock::kDriftPpmMax);
  check(L, self(L).nemesis()->clock_drift(n, ppm));
  return 0;
}

int l_drop(lua_State* L) {
  require_running(L, "drop()");
  check_arg_count(L, 1, "drop()");
  charge_action(L);
  check(L, self(L).nemesis()->drop(check_number(L, 1, "drop()", "the loss probability", 0, 1)));
  return 0;
}

int l_delay(lua_State* L) {
  require_running(L, "delay()");
  check_arg_count(L, 1, "delay()");
  charge_action(L);
  if (lua_isnoneornil(L, 1)) {
    check(L, self(L).nemesis()->reset_delay());
    return 0;
  }
  std::string text;
  const sim::DurationDist d = to_dist(L, 1, "delay()", "the latency", &text);
  check(L, self(L).nemesis()->delay(d, text));
  return 0;
}

int l_failpoint(lua_State* L) {
  require_running(L, "failpoint()");
  check_arg_count(L, 4, "failpoint()");
  charge_action(L);
  const size_t n = node_arg(L, 1, "failpoint()");
  const std::string point = check_string(L, 2, "failpoint()", "the point", 64);
  const std::string action = check_string(L, 3, "failpoint()", "the action", 64);
  Fields f(L, 4, "failpoint()", {"delay", "skip", "times"});
  const sim::DurationNs delay = f.duration("delay", limits::kScenarioLatencyNsMax).value_or(0);
  const int64_t skip = f.integer("skip", 0, 1'000'000'000).value_or(0);
  const int64_t times = f.integer("times", 0, 1'000'000'000).value_or(1);
  check(L, self(L).nemesis()->failpoint(n, point, action, delay, static_cast<uint64_t>(skip), static_cast<uint64_t>(times)));
  return 0;
}


// compact{keep=20, physical=false}: a client reads the current revision and compacts to it
// minus `keep` (recorded with the history like any operation).
int l_compact(lua_State* L) {
  require_running(L, "compact{}");
  check_arg_count(L, 1, "compact{}");
  charge_action(L);
  check(L, self(L).check_request_room("compact{}"));
  Fields f(L, 1, "compact{}", {"keep", "physical"});
  const int64_t keep = f.integer("keep", 0, 1'000'000'000).value_or(20);
  const bool physical = f.boolean("physical").value_or(false);
  self(L).compact(keep, physical);
  self(L).nemesis()->record_instant("compact", "keep " + std::to_string(keep));
  return 0;
}

// defrag(n): a client asks member n to defragment its backend (etcdctl defrag --endpoints=n).
int l_defrag(lua_State* L) {
  require_running(L, "defrag()");
  check_arg_count(L, 1, "defrag()");
  charge_action(L);
  check(L, self(L).check_request_room("defrag()"));
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
  require_running(L, "alarm_disarm()");
  check_arg_count(L, 0, "alarm_disarm()");
  charge_action(L);
  check(L, self(L).check_request_room("alarm_disarm()"));
  self(L).alarm_disarm();
  self(L).nemesis()->record_instant("alarm_disarm", "all");
  return 0;
}

// member_add{learner=false}: a new member on a new host (etcdctl member add, then the new etcd
// started); returns its node number. The node catches up from the leader's snapshot.
int l_member_add(lua_State* L) {
  require_running(L, "member_add{}");
  check_arg_count(L, 1, "member_add{}");
  charge_action(L);
  check(L, self(L).check_request_room("member_add{}"));
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
  require_running(L, "member_remove()");
  check_arg_count(L, 1, "member_remove()");
  charge_action(L);
  check(L, self(L).check_request_room("member_remove()"));
  const size_t n = node_arg(L, 1, "member_remove()");
  self(L).member_remove(n);
  self(L).nemesis()->record_instant("member_remove", "n" + std::to_string(n));
  return 0;
}

}  // namespace dst::scenarios::api
