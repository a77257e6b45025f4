// The scenario functions that configure the world, at load time: units and distributions,
// cluster{}, workload{}, run_for(), check{}, swarm{}, and the scheduling functions at(), after(),
// every() (docs/scenarios.md).
#include <lua.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "base/assert.h"
#include "history/coverage.h"
#include "scenarios/scenario_api.h"
#include "scenarios/scenario_args.h"

namespace dst::scenarios::api {

// ---- units and distributions ----

namespace {
int unit(lua_State* L, int64_t ns, const char* fn) {
  check_arg_count(L, 1, fn);
  if (lua_type(L, 1) != LUA_TNUMBER)
    fail(L, std::string(fn) + ": expected a number such as " + fn + "(1.5), got " + luaL_typename(L, 1));
  const double v = lua_tonumber(L, 1);
  if (!(v >= 0) || v * static_cast<double>(ns) > 9.2e18)  // NaN, negative, infinite or past 292 years
    fail(L, std::string(fn) + ": " + number_text(v) + " is not a duration: expected a number from 0 to 292 years (negate "
                                                      "the result for a negative offset: -s(3))");
  lua_pushinteger(L, static_cast<lua_Integer>(std::llround(v * static_cast<double>(ns))));
  return 1;
}
}  // namespace

int l_us(lua_State* L) { return unit(L, 1'000, "us"); }
int l_ms(lua_State* L) { return unit(L, 1'000'000, "ms"); }
int l_s(lua_State* L) { return unit(L, 1'000'000'000, "s"); }

// uniform(lo, hi), normal(mean, sd): two durations; exponential(mean): one; lognormal(median,
// sigma), pareto(scale, shape): a duration and a number. Checked here, so the error names the
// line that wrote the distribution.
int make_dist(lua_State* L, const char* kind, bool second_is_duration) {
  const std::string fn = std::string(kind) + "()";
  const bool one = std::string(kind) == "exponential";
  check_arg_count(L, one ? 1 : 2, fn.c_str());
  const sim::DurationNs a = to_duration(L, 1, fn.c_str(), "the first argument", limits::kScenarioLatencyNsMax);
  double b = 0;
  if (second_is_duration) b = static_cast<double>(to_duration(L, 2, fn.c_str(), "the second argument", limits::kScenarioLatencyNsMax));
  else if (!one) b = check_number(L, 2, fn.c_str(), "the second argument", -1e300, 1e300);
  if (const std::string e = check_dist_parameters(kind, a, b); !e.empty()) fail(L, fn + ": " + e);
  lua_createtable(L, 0, 4);
  lua_pushstring(L, kind);
  lua_setfield(L, -2, "dist");
  lua_pushinteger(L, a);
  lua_setfield(L, -2, "a");
  lua_pushnumber(L, b);
  lua_setfield(L, -2, "b");
  std::string text = std::string(kind) + "(" + sim::format_duration(a);
  if (second_is_duration) text += ", " + sim::format_duration(static_cast<sim::DurationNs>(b));
  else if (!one) text += ", " + number_text(b);
  text += ")";
  lua_pushstring(L, text.c_str());
  lua_setfield(L, -2, "text");
  return 1;
}
int l_uniform(lua_State* L) { return make_dist(L, "uniform", true); }
int l_normal(lua_State* L) { return make_dist(L, "normal", true); }
int l_exponential(lua_State* L) { return make_dist(L, "exponential", false); }
int l_lognormal(lua_State* L) { return make_dist(L, "lognormal", false); }
int l_pareto(lua_State* L) { return make_dist(L, "pareto", false); }

// Configuration functions describe the world once: a second cluster{} (or run_for(), ...) would
// silently replace part of the first. cluster{} and workload{} come before swarm{}, which draws
// from what they set.
void configure_once(lua_State* L, const char* fn) {
  require_loading(L, fn);
  auto& at = self(L).mutable_config().configured_at;
  const std::string here = where(L);
  if (auto it = at.find(fn); it != at.end())
    fail(L, std::string(fn) + ": already called at " + it->second + "; describe it in one call");
  at.emplace(fn, here);
  const std::string name = fn;
  if (name == "cluster{}" || name == "workload{}")
    if (auto sw = at.find("swarm{}"); sw != at.end())
      fail(L, name + ": call it before swarm{} (called at " + sw->second + "), which draws from what it sets");
}

// ---- configuration (load time) ----

namespace {

void cluster_raft(lua_State* L, ScenarioConfig& c) {
  Fields raft(L, -1, "cluster{raft={}}", {"tick", "election_ticks", "heartbeat_ticks", "pre_vote", "check_quorum",
                                          "max_msg_bytes", "max_inflight"});
  if (auto t = raft.duration("tick", limits::kScenarioRaftTickNsMax)) {
    if (*t < limits::kScenarioRaftTickNsMin)
      fail(L, "cluster{raft={}}: field 'tick' is " + sim::format_duration(*t) + "; expected " +
                  sim::format_duration(limits::kScenarioRaftTickNsMin) + ".." +
                  sim::format_duration(limits::kScenarioRaftTickNsMax) + " (etcd's --heartbeat-interval)");
    c.tick = *t;
  }
  if (auto e = raft.integer("election_ticks", 2, 1000)) c.raft.election_tick = static_cast<int>(*e);
  if (auto h = raft.integer("heartbeat_ticks", 1, 1000)) c.raft.heartbeat_tick = static_cast<int>(*h);
  if (auto p = raft.boolean("pre_vote")) c.raft.pre_vote = *p;
  if (auto q = raft.boolean("check_quorum")) c.raft.check_quorum = *q;
  // Small appends and a short pipeline replicate a leader's log one entry per round trip, which
  // opens the windows where a leader holds entries its followers do not (Raft Figure 8).
  if (auto b = raft.integer("max_msg_bytes", 1, 64 * 1024 * 1024)) c.raft.max_size_per_msg = static_cast<uint64_t>(*b);
  if (auto i = raft.integer("max_inflight", 1, static_cast<int64_t>(limits::kRaftInflightMsgsMax)))
    c.raft.max_inflight_msgs = static_cast<size_t>(*i);
  if (c.raft.heartbeat_tick >= c.raft.election_tick) fail(L, "cluster{raft={}}: heartbeat_ticks must be below election_ticks");
  if (c.tick * c.raft.election_tick > limits::kScenarioElectionTimeoutNsMax)
    fail(L, "cluster{raft={}}: the election timeout (tick x election_ticks) is " +
                sim::format_duration(c.tick * c.raft.election_tick) + "; etcd allows at most " +
                sim::format_duration(limits::kScenarioElectionTimeoutNsMax));
}

void cluster_clock(lua_State* L, ScenarioConfig& c) {
  Fields clock(L, -1, "cluster{clock={}}", {"drift_ppm"});
  // drift_ppm = {[2] = 20000}: member -> ppm
  if (clock.push("drift_ppm") != LUA_TNIL) {
    if (!lua_istable(L, -1)) fail(L, "cluster{clock={drift_ppm=...}}: expected a table {[node] = ppm}");
    for (size_t m = 1; m <= 9; ++m) {
      if (lua_rawgeti(L, -1, static_cast<lua_Integer>(m)) != LUA_TNIL) {
        const std::string what = "ppm of node " + std::to_string(m);
        const int64_t ppm = check_whole(L, -1, "cluster{clock={drift_ppm=...}}", what, -sim::NodeClock::kDriftPpmMax,
                                        sim::NodeClock::kDriftPpmMax);
        c.clock_drift_ppm.emplace_back(m, ppm);
      }
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
}

// cluster{etcd={...}}: etcd's server flags by their names with underscores for dashes, each value
// a number or a string read as etcd reads the flag's text (etcd_server_flags.h).
void cluster_etcd(lua_State* L, ScenarioConfig& c) {
  static constexpr const char* kNames[] = {"quota_backend_bytes", "max_txn_ops", "max_request_bytes", "snapshot_count",
                                           "auto_compaction_mode", "auto_compaction_retention"};
  Fields f(L, -1, "cluster{etcd={}}", {kNames[0], kNames[1], kNames[2], kNames[3], kNames[4], kNames[5]});
  etcdctl::EtcdServerFlags flags;
  for (const char* name : kNames) {
    const int type = f.push(name);
    if (type != LUA_TNIL) {
      if (!(type == LUA_TSTRING || lua_isinteger(L, -1)))
        luaL_error(L, "cluster{etcd={%s=...}}: expected an integer or a string (etcd's flag text), got %s", name,
                   luaL_typename(L, -1));
      size_t len = 0;
      const char* text = lua_tolstring(L, -1, &len);
      if (len > 64) luaL_error(L, "cluster{etcd={%s=...}}: at most 64 characters", name);
      std::string dashed(name);
      std::replace(dashed.begin(), dashed.end(), '_', '-');
      flags.given.emplace_back(dashed, std::string(text, len));
    }
    lua_pop(L, 1);
  }
  node::ServerOptions scratch;
  const Status st = etcdctl::apply_etcd_server_flags(flags, scratch);
  if (!st.is_ok()) luaL_error(L, "cluster{etcd={}}: %s", st.message().c_str());
  c.etcd_flags = std::move(flags);
}

}  // namespace

int l_cluster(lua_State* L) {
  configure_once(L, "cluster{}");
  check_arg_count(L, 1, "cluster{}");
  Fields f(L, 1, "cluster{}", {"nodes", "net", "disk", "clock", "raft", "quota", "snapshot_every", "etcd"});
  ScenarioConfig& c = self(L).mutable_config();
  if (auto n = f.integer("nodes", 1, 9)) c.run.nodes = static_cast<size_t>(*n);
  if (auto q = f.integer("quota", 64 * 1024, int64_t{8} << 30)) c.quota_bytes = static_cast<uint64_t>(*q);
  if (auto e = f.integer("snapshot_every", 10, 1'000'000)) c.snapshot_every = static_cast<uint64_t>(*e);
  if (f.push("net") != LUA_TNIL) {
    Fields net(L, -1, "cluster{net={}}", {"latency", "bandwidth"});
    std::string text;
    if (auto d = net.dist("latency", &text)) c.link.latency = *d;
    if (auto b = net.integer("bandwidth", 1000, int64_t{1} << 40)) c.link.bandwidth_bytes_per_sec = static_cast<uint64_t>(*b);
  }
  lua_pop(L, 1);
  if (f.push("disk") != LUA_TNIL) {
    Fields disk(L, -1, "cluster{disk={}}", {"fsync"});
    if (auto d = disk.dist("fsync", &c.fsync_text)) c.fsync_latency = *d;
  }
  lua_pop(L, 1);
  if (f.push("clock") != LUA_TNIL) cluster_clock(L, c);
  lua_pop(L, 1);
  if (f.push("raft") != LUA_TNIL) cluster_raft(L, c);
  lua_pop(L, 1);
  if (f.push("etcd") != LUA_TNIL) cluster_etcd(L, c);
  lua_pop(L, 1);
  for (const auto& [name, value] : c.etcd_flags.given) {
    if ((name == "quota-backend-bytes" && c.quota_bytes > 0) || (name == "snapshot-count" && c.snapshot_every > 0))
      luaL_error(L, "cluster{}: give %s once: as quota/snapshot_every or in etcd={}, not both",
                 name == "quota-backend-bytes" ? "the quota" : "the snapshot count");
  }
  for (const auto& [m, ppm] : c.clock_drift_ppm)
    if (m > c.run.nodes)
      luaL_error(L, "cluster{clock={drift_ppm=...}}: unknown node %d; cluster has 1..%d", static_cast<int>(m),
                 static_cast<int>(c.run.nodes));
  return 0;
}

// workload{fanout_streams=S, fanout_watches=W}: W watches multiplexed on S streams (watch_fanout.h).
void fanout_fields(lua_State* L, Fields& f, client::WorkloadOptions& w) {
  const auto streams = f.integer("fanout_streams", 0, static_cast<int64_t>(limits::kWorkloadFanoutStreamsMax));
  const auto watches = f.integer("fanout_watches", 0, static_cast<int64_t>(limits::kWorkloadFanoutWatchesMax));
  if (!streams && !watches) return;
  const int64_t s = streams.value_or(0), n = watches.value_or(0);
  if (s == 0 || n < s)
    fail(L, "workload{}: fanout_watches (" + std::to_string(n) + ") must be at least fanout_streams (" + std::to_string(s) +
                ") and both above 0");
  if (static_cast<uint64_t>(n) > static_cast<uint64_t>(s) * limits::kWatchersPerStreamMax)
    fail(L, "workload{}: fanout_watches (" + std::to_string(n) + ") is more than " +
                std::to_string(limits::kWatchersPerStreamMax) + " per stream; raise fanout_streams");
  w.fanout_streams = static_cast<size_t>(s);
  w.fanout_watches = static_cast<size_t>(n);
}

int l_workload(lua_State* L) {
  configure_once(L, "workload{}");
  check_arg_count(L, 1, "workload{}");
  Fields f(L, 1, "workload{}", {"profile", "clients", "rate", "keys", "value_bytes", "watchers", "compaction",
                                "compaction_keep", "lease_ttl", "keep_alive", "timeout", "pinned", "fanout_streams",
                                "fanout_watches"});
  client::WorkloadOptions& w = self(L).mutable_config().run.workload;
  fanout_fields(L, f, w);
  if (auto p = f.string("profile")) {
    Result<client::Profile> profile = client::parse_profile(*p);
    if (!profile.is_ok()) luaL_error(L, "workload{}: field 'profile': %s", profile.status().message().c_str());
    w.profile = *profile;
  }
  if (auto n = f.integer("clients", 0, 256)) w.clients = static_cast<size_t>(*n);
  if (auto r = f.number("rate", 0.1, 10000)) w.rate = *r;
  if (auto k = f.integer("keys", 1, 100000)) w.keys = static_cast<size_t>(*k);
  if (auto b = f.integer("value_bytes", 0, static_cast<int64_t>(limits::kScenarioValueBytesMax))) w.value_bytes = static_cast<size_t>(*b);
  if (auto n = f.integer("watchers", 0, 64)) w.watchers = static_cast<size_t>(*n);
  if (auto c = f.duration("compaction")) {
    if (*c != 0 && *c < sim::milliseconds(10)) fail(L, "workload{}: field 'compaction' must be s(0) (never) or at least ms(10)");
    w.compaction_every = *c;
  }
  if (auto k = f.integer("compaction_keep", 0, limits::kWorkloadCompactionKeepMax)) w.compaction_keep = *k;
  if (auto k = f.number("keep_alive", 0, 1)) w.kv_mix.keep_alive_stream = *k;
  if (f.push("lease_ttl") != LUA_TNIL) {
    if (!lua_istable(L, -1)) fail(L, "workload{}: field 'lease_ttl': expected {min, max} in seconds, e.g. {2, 5}");
    lua_rawgeti(L, -1, 1);
    lua_rawgeti(L, -2, 2);
    const int64_t lo = check_whole(L, -2, "workload{}", "field 'lease_ttl' min", 1, limits::kLeaseTtlSecondsMax);
    const int64_t hi = check_whole(L, -1, "workload{}", "field 'lease_ttl' max", 1, limits::kLeaseTtlSecondsMax);
    if (lo > hi) fail(L, "workload{}: field 'lease_ttl': min " + std::to_string(lo) + " is above max " + std::to_string(hi));
    w.kv_mix.lease_ttl_min = lo;
    w.kv_mix.lease_ttl_max = hi;
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  if (auto t = f.duration("timeout", limits::kScenarioRequestTimeoutNsMax)) {
    if (*t < limits::kScenarioRequestTimeoutNsMin) fail(L, "workload{}: field 'timeout' must be at least ms(10)");
    w.request_timeout = *t;
  }
  if (auto p = f.boolean("pinned")) w.mix_pinned = *p;
  return 0;
}

int l_run_for(lua_State* L) {
  configure_once(L, "run_for()");
  check_arg_count(L, 1, "run_for()");
  ScenarioConfig& c = self(L).mutable_config();
  const sim::DurationNs d = to_duration(L, 1, "run_for()", "the duration", INT64_MAX);
  if (d < limits::kScenarioRunForNsMin || d > limits::kScenarioRunForNsMax) luaL_error(L, "run_for(): expected s(1)..s(3600)");
  c.run.duration = d;
  c.run_for_set = true;
  return 0;
}

int l_check(lua_State* L) {
  configure_once(L, "check{}");
  check_arg_count(L, 1, "check{}");
  Fields f(L, 1, "check{}", {"linearizable", "watch", "liveness", "durability"});
  Checks& k = self(L).mutable_config().checks;
  if (auto v = f.boolean("linearizable")) k.linearizable = *v;
  if (auto v = f.boolean("watch")) k.watch = *v;
  if (auto v = f.boolean("durability")) k.durability = *v;
  // liveness = true / false / a bound such as s(10)
  if (f.push("liveness") != LUA_TNIL) {
    if (lua_isboolean(L, -1)) {
      k.liveness = lua_toboolean(L, -1);
    } else {
      const sim::DurationNs b = to_duration(L, -1, "check{}", "field 'liveness'", limits::kScenarioRecoveryBoundNsMax);
      if (b < sim::seconds(1)) luaL_error(L, "check{}: field 'liveness': a bound below s(1) cannot be met (elections take 1-2 s)");
      k.liveness = true;
      self(L).mutable_config().run.recovery_bound = b;
    }
  }
  lua_pop(L, 1);
  return 0;
}

// must_reach{"watch.compaction-cancel", "api.range.limit.ok", ...}: coverage names (probes and the
// API surface, history/coverage.h) that a sweep of this scenario must reach on some seed.
int l_must_reach(lua_State* L) {
  configure_once(L, "must_reach{}");
  check_arg_count(L, 1, "must_reach{}");
  if (!lua_istable(L, 1)) fail(L, std::string("must_reach{}: expected a list of coverage names, got ") + luaL_typename(L, 1));
  std::vector<std::string>& names = self(L).mutable_config().must_reach;
  const size_t bound = history::coverage_catalogue().size();
  for (lua_Integer i = 1; lua_rawgeti(L, 1, i) != LUA_TNIL; ++i) {
    if (static_cast<size_t>(i) > bound) fail(L, "must_reach{}: more names than the catalogue has");
    const std::string name = check_string(L, -1, "must_reach{}", "entry " + std::to_string(i), history::kCoverageNameBytesMax);
    if (history::coverage_meaning(name).empty())
      fail(L, "must_reach{}: '" + name + "' is no probe or API use dst knows (docs/coverage.md lists them)");
    names.push_back(name);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 0;
}

int schedule_fn(lua_State* L, const char* fn, bool repeat, bool relative) {
  Scenario& s = self(L);
  check_arg_count(L, 2, fn);
  LuaHost::of(L).charge(L, limits::kScenarioScheduleInstructions);
  const sim::DurationNs t = to_duration(L, 1, fn, repeat ? "the period" : "the time");
  luaL_checktype(L, 2, LUA_TFUNCTION);
  if (repeat && t < limits::kScenarioPeriodNsMin) luaL_error(L, "%s: the period must be at least ms(1)", fn);
  Timed timed;
  timed.every = repeat ? t : 0;
  timed.where = where(L);
  if (s.loading()) {
    if (s.mutable_config().timed.size() >= limits::kScenarioTimersAtLoadMax)
      fail(L, std::string(fn) + ": more than " + std::to_string(limits::kScenarioTimersAtLoadMax) +
                  " functions scheduled at the top level");
    timed.at = t;  // every(p, f) first runs at p
    lua_pushvalue(L, 2);
    timed.ref = luaL_ref(L, LUA_REGISTRYINDEX);
    s.mutable_config().timed.push_back(timed);
    return 0;
  }
  require_running(L, fn);
  const sim::TimeNs now = s.simulator()->now();
  const sim::TimeNs first = relative || repeat ? now + t : s.phase_start() + t;
  if (first < now) luaL_error(L, "%s: %s is already past (use after() for a delay from now)", fn, sim::format_duration(t).c_str());
  if (first >= s.phase_end()) return 0;  // the fault phase is over by then: it would never run
  if (s.timers_pending() >= limits::kScenarioTimersPendingMax)
    fail(L, std::string(fn) + ": " + std::to_string(s.timers_pending()) +
                " scheduled functions are already waiting to run; at most " +
                std::to_string(limits::kScenarioTimersPendingMax));
  timed.at = first - s.phase_start();
  lua_pushvalue(L, 2);
  timed.ref = luaL_ref(L, LUA_REGISTRYINDEX);
  s.schedule(timed, first);
  return 0;
}
int l_at(lua_State* L) { return schedule_fn(L, "at()", false, false); }
int l_after(lua_State* L) { return schedule_fn(L, "after()", false, true); }
int l_every(lua_State* L) { return schedule_fn(L, "every()", true, true); }


}  // namespace dst::scenarios::api
