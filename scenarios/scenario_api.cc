// The functions a scenario script calls (docs/scenarios.md is their reference). Configuration
// functions run at load time only; fault functions and selectors only inside scheduled
// functions, when the world exists. Every argument is checked, and an error names the function,
// the field and what was expected; luaL_error prefixes the script's file and line.
#include <lua.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "base/assert.h"
#include "scenarios/scenario.h"

namespace dst::scenarios {

namespace {

// Raises a Lua error with this message (lua_pushfstring knows no %lld or %g: format here).
[[noreturn]] void fail(lua_State* L, const std::string& msg) {
  luaL_error(L, "%s", msg.c_str());
  std::abort();  // luaL_error does not return
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

Scenario& self(lua_State* L) { return *static_cast<Scenario*>(lua_touserdata(L, lua_upvalueindex(1))); }

std::string where(lua_State* L) {
  luaL_where(L, 1);
  std::string w = lua_tostring(L, -1);
  lua_pop(L, 1);
  if (w.size() >= 2 && w.substr(w.size() - 2) == ": ") w.resize(w.size() - 2);
  return w;
}

void require_loading(lua_State* L, const char* fn) {
  if (!self(L).loading())
    luaL_error(L, "%s: configuration belongs at the top of the scenario, not inside a scheduled function", fn);
}

void require_running(lua_State* L, const char* fn) {
  if (self(L).loading() || self(L).nemesis() == nullptr)
    luaL_error(L, "%s: faults act on the running world; call it inside at(), every() or after()", fn);
}

// A duration: an integer count of nanoseconds, as ms() and s() make. Small nonzero values are
// almost certainly a forgotten unit.
sim::DurationNs to_duration(lua_State* L, int idx, const char* fn, const char* what) {
  if (!lua_isinteger(L, idx)) {
    if (lua_type(L, idx) == LUA_TNUMBER)
      luaL_error(L, "%s: %s must be a whole number of nanoseconds; write it with ms(), s() or us()", fn, what);
    luaL_error(L, "%s: %s: expected a duration such as ms(50) or s(2), got %s", fn, what, luaL_typename(L, idx));
  }
  const lua_Integer v = lua_tointeger(L, idx);
  if (v < 0) luaL_error(L, "%s: %s must not be negative", fn, what);
  if (v > 0 && v < 1000)
    luaL_error(L, "%s: %s is %d ns; durations are in nanoseconds: write ms(%d) or s(%d)", fn, what,
               static_cast<int>(v), static_cast<int>(v), static_cast<int>(v));
  return v;
}

// A distribution: a table made by uniform(), exponential(), ... or a plain duration (constant).
sim::DurationDist to_dist(lua_State* L, int idx, const char* fn, const char* what, std::string* text) {
  idx = lua_absindex(L, idx);
  if (lua_isinteger(L, idx)) {
    const sim::DurationNs d = to_duration(L, idx, fn, what);
    *text = sim::format_duration(d);
    return sim::DurationDist::constant(d);
  }
  if (!lua_istable(L, idx) || lua_getfield(L, idx, "dist") != LUA_TSTRING)
    luaL_error(L, "%s: %s: expected a duration or a distribution such as uniform(ms(10), ms(50))", fn, what);
  const std::string kind = lua_tostring(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, idx, "a");
  lua_getfield(L, idx, "b");
  const lua_Integer a = lua_tointeger(L, -2);
  const double b = lua_tonumber(L, -1);
  lua_pop(L, 2);
  *text = lua_getfield(L, idx, "text") == LUA_TSTRING ? lua_tostring(L, -1) : kind;
  lua_pop(L, 1);
  if (kind == "uniform") return sim::DurationDist::uniform(a, static_cast<sim::DurationNs>(b));
  if (kind == "exponential") return sim::DurationDist::exponential(a);
  if (kind == "normal") return sim::DurationDist::normal(a, static_cast<sim::DurationNs>(b)).clamped(0, INT64_MAX / 4);
  if (kind == "lognormal") return sim::DurationDist::lognormal(a, b);
  if (kind == "pareto") return sim::DurationDist::pareto(a, b);
  luaL_error(L, "%s: %s: unknown distribution '%s'", fn, what, kind.c_str());
  return {};
}

// The fields of an options table, checked against the names a function accepts.
class Fields {
 public:
  Fields(lua_State* L, int idx, const char* fn, std::initializer_list<const char*> allowed)
      : L_(L), idx_(lua_absindex(L, idx)), fn_(fn) {
    if (lua_isnoneornil(L, idx_)) {
      idx_ = 0;
      return;
    }
    if (!lua_istable(L, idx_)) luaL_error(L, "%s: expected a table of options, got %s", fn, luaL_typename(L, idx_));
    std::set<std::string> ok(allowed.begin(), allowed.end());
    std::set<std::string> unknown;  // sorted: the message does not depend on Lua's hash order
    lua_pushnil(L);
    while (lua_next(L, idx_) != 0) {
      lua_pop(L, 1);
      if (lua_type(L, -1) != LUA_TSTRING) {
        if (!lua_isinteger(L, -1)) luaL_error(L, "%s: option names must be strings", fn);
        continue;  // positional entries are read by the caller
      }
      if (!ok.count(lua_tostring(L, -1))) unknown.insert(lua_tostring(L, -1));
    }
    if (!unknown.empty()) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      luaL_error(L, "%s: unknown field '%s'; expected one of: %s", fn, unknown.begin()->c_str(), list.c_str());
    }
  }
  bool has(const char* f) {
    if (idx_ == 0) return false;
    const bool present = lua_getfield(L_, idx_, f) != LUA_TNIL;
    lua_pop(L_, 1);
    return present;
  }
  // Pushes the field's value (the caller pops it).
  int push(const char* f) { return idx_ == 0 ? (lua_pushnil(L_), LUA_TNIL) : lua_getfield(L_, idx_, f); }
  std::optional<int64_t> integer(const char* f, int64_t lo, int64_t hi) {
    if (push(f) == LUA_TNIL) return pop_none();
    if (!lua_isinteger(L_, -1)) luaL_error(L_, "%s: field '%s': expected a whole number, got %s", fn_, f, luaL_typename(L_, -1));
    const int64_t v = lua_tointeger(L_, -1);
    lua_pop(L_, 1);
    if (v < lo || v > hi)
      fail(L_, std::string(fn_) + ": field '" + f + "' is " + std::to_string(v) + "; expected " + std::to_string(lo) +
                   ".." + std::to_string(hi));
    return v;
  }
  std::optional<double> number(const char* f, double lo, double hi) {
    if (push(f) == LUA_TNIL) return pop_none_d();
    if (lua_type(L_, -1) != LUA_TNUMBER) luaL_error(L_, "%s: field '%s': expected a number, got %s", fn_, f, luaL_typename(L_, -1));
    const double v = lua_tonumber(L_, -1);
    lua_pop(L_, 1);
    if (!(v >= lo && v <= hi))
      fail(L_, std::string(fn_) + ": field '" + f + "' is " + number_text(v) + "; expected " + number_text(lo) + ".." +
                   number_text(hi));
    return v;
  }
  std::optional<bool> boolean(const char* f) {
    if (push(f) == LUA_TNIL) {
      lua_pop(L_, 1);
      return std::nullopt;
    }
    if (!lua_isboolean(L_, -1)) luaL_error(L_, "%s: field '%s': expected true or false, got %s", fn_, f, luaL_typename(L_, -1));
    const bool v = lua_toboolean(L_, -1);
    lua_pop(L_, 1);
    return v;
  }
  std::optional<std::string> string(const char* f) {
    if (push(f) == LUA_TNIL) {
      lua_pop(L_, 1);
      return std::nullopt;
    }
    if (lua_type(L_, -1) != LUA_TSTRING) luaL_error(L_, "%s: field '%s': expected a string, got %s", fn_, f, luaL_typename(L_, -1));
    std::string v = lua_tostring(L_, -1);
    lua_pop(L_, 1);
    return v;
  }
  std::optional<sim::DurationNs> duration(const char* f) {
    if (push(f) == LUA_TNIL) return pop_none();
    const std::string what = std::string("field '") + f + "'";
    const sim::DurationNs d = to_duration(L_, -1, fn_, what.c_str());
    lua_pop(L_, 1);
    return d;
  }
  std::optional<sim::DurationDist> dist(const char* f, std::string* text) {
    if (push(f) == LUA_TNIL) {
      lua_pop(L_, 1);
      return std::nullopt;
    }
    const std::string what = std::string("field '") + f + "'";
    sim::DurationDist d = to_dist(L_, -1, fn_, what.c_str(), text);
    lua_pop(L_, 1);
    return d;
  }
  int index() const { return idx_; }

 private:
  std::optional<int64_t> pop_none() {
    lua_pop(L_, 1);
    return std::nullopt;
  }
  std::optional<double> pop_none_d() {
    lua_pop(L_, 1);
    return std::nullopt;
  }
  lua_State* L_;
  int idx_;
  const char* fn_;
};

// A node argument: 1..n, with a hint when it is nil (a selector that found nothing).
size_t node_arg(lua_State* L, int idx, const char* fn) {
  Scenario& s = self(L);
  const size_t n = s.nemesis()->size();
  if (lua_isnoneornil(L, idx))
    luaL_error(L, "%s: expected a node number (1..%d), got nil (leader() and follower() return nil when there is none)",
               fn, static_cast<int>(n));
  if (!lua_isinteger(L, idx)) luaL_error(L, "%s: expected a node number (1..%d), got %s", fn, static_cast<int>(n), luaL_typename(L, idx));
  const lua_Integer v = lua_tointeger(L, idx);
  if (Status st = s.nemesis()->check_member(v, fn); !st.is_ok()) luaL_error(L, "%s", st.message().c_str());
  return static_cast<size_t>(v);
}

void check(lua_State* L, const Status& st) {
  if (!st.is_ok()) luaL_error(L, "%s", st.message().c_str());
}

// ---- units and distributions ----

template <int64_t kUnit>
int unit(lua_State* L) {
  const double v = luaL_checknumber(L, 1);
  if (!(v >= 0) || v * static_cast<double>(kUnit) > 9.2e18) luaL_error(L, "durations must be >= 0 and below 292 years");
  lua_pushinteger(L, static_cast<lua_Integer>(std::llround(v * static_cast<double>(kUnit))));
  return 1;
}

int make_dist(lua_State* L, const char* kind, bool second_is_duration) {
  const sim::DurationNs a = to_duration(L, 1, kind, "the first argument");
  double b = 0;
  if (second_is_duration) b = static_cast<double>(to_duration(L, 2, kind, "the second argument"));
  else if (!lua_isnoneornil(L, 2)) b = luaL_checknumber(L, 2);
  if (std::string(kind) == "uniform" && b < static_cast<double>(a)) luaL_error(L, "uniform(lo, hi): hi is below lo");
  lua_createtable(L, 0, 4);
  lua_pushstring(L, kind);
  lua_setfield(L, -2, "dist");
  lua_pushinteger(L, a);
  lua_setfield(L, -2, "a");
  lua_pushnumber(L, b);
  lua_setfield(L, -2, "b");
  std::string text = std::string(kind) + "(" + sim::format_duration(a);
  if (second_is_duration) text += ", " + sim::format_duration(static_cast<sim::DurationNs>(b));
  else if (!lua_isnoneornil(L, 2)) text += ", " + std::to_string(b).substr(0, 4);
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

// ---- configuration (load time) ----

int l_cluster(lua_State* L) {
  require_loading(L, "cluster{}");
  Fields f(L, 1, "cluster{}", {"nodes", "net", "disk", "clock", "raft", "quota", "snapshot_every"});
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
  if (f.push("clock") != LUA_TNIL) {
    Fields clock(L, -1, "cluster{clock={}}", {"drift_ppm"});
    // drift_ppm = {[2] = 20000}: member -> ppm
    if (clock.push("drift_ppm") != LUA_TNIL) {
      if (!lua_istable(L, -1)) luaL_error(L, "cluster{clock={drift_ppm=...}}: expected a table {[node] = ppm}");
      for (size_t m = 1; m <= 9; ++m) {
        if (lua_rawgeti(L, -1, static_cast<lua_Integer>(m)) != LUA_TNIL) {
          if (!lua_isinteger(L, -1)) luaL_error(L, "cluster{clock={drift_ppm=...}}: ppm of node %d must be a whole number", static_cast<int>(m));
          const int64_t ppm = lua_tointeger(L, -1);
          if (ppm < -sim::NodeClock::kDriftPpmMax || ppm > sim::NodeClock::kDriftPpmMax)
            fail(L, "cluster{clock={drift_ppm=...}}: " + std::to_string(ppm) + " ppm is beyond +-" +
                        std::to_string(sim::NodeClock::kDriftPpmMax));
          c.clock_drift_ppm.emplace_back(m, ppm);
        }
        lua_pop(L, 1);
      }
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (f.push("raft") != LUA_TNIL) {
    Fields raft(L, -1, "cluster{raft={}}", {"tick", "election_ticks", "heartbeat_ticks", "pre_vote", "check_quorum"});
    if (auto t = raft.duration("tick")) c.tick = *t;
    if (auto e = raft.integer("election_ticks", 2, 1000)) c.raft.election_tick = static_cast<int>(*e);
    if (auto h = raft.integer("heartbeat_ticks", 1, 1000)) c.raft.heartbeat_tick = static_cast<int>(*h);
    if (auto p = raft.boolean("pre_vote")) c.raft.pre_vote = *p;
    if (auto q = raft.boolean("check_quorum")) c.raft.check_quorum = *q;
    if (c.raft.heartbeat_tick >= c.raft.election_tick)
      luaL_error(L, "cluster{raft={}}: heartbeat_ticks must be below election_ticks");
  }
  lua_pop(L, 1);
  for (const auto& [m, ppm] : c.clock_drift_ppm)
    if (m > c.run.nodes)
      luaL_error(L, "cluster{clock={drift_ppm=...}}: unknown node %d; cluster has 1..%d", static_cast<int>(m),
                 static_cast<int>(c.run.nodes));
  return 0;
}

int l_workload(lua_State* L) {
  require_loading(L, "workload{}");
  Fields f(L, 1, "workload{}", {"profile", "clients", "rate", "keys", "watchers", "compaction", "timeout", "pinned"});
  client::WorkloadOptions& w = self(L).mutable_config().run.workload;
  if (auto p = f.string("profile")) {
    Result<client::Profile> profile = client::parse_profile(*p);
    if (!profile.is_ok()) luaL_error(L, "workload{}: field 'profile': %s", profile.status().message().c_str());
    w.profile = *profile;
  }
  if (auto n = f.integer("clients", 0, 256)) w.clients = static_cast<size_t>(*n);
  if (auto r = f.number("rate", 0.1, 10000)) w.rate = *r;
  if (auto k = f.integer("keys", 1, 100000)) w.keys = static_cast<size_t>(*k);
  if (auto n = f.integer("watchers", 0, 64)) w.watchers = static_cast<size_t>(*n);
  if (auto c = f.duration("compaction")) w.compaction_every = *c;
  if (auto t = f.duration("timeout")) {
    if (*t < sim::milliseconds(10)) luaL_error(L, "workload{}: field 'timeout' must be at least ms(10)");
    w.request_timeout = *t;
  }
  if (auto p = f.boolean("pinned")) w.mix_pinned = *p;
  return 0;
}

int l_run_for(lua_State* L) {
  require_loading(L, "run_for()");
  ScenarioConfig& c = self(L).mutable_config();
  const sim::DurationNs d = to_duration(L, 1, "run_for()", "the duration");
  if (d < sim::seconds(1) || d > sim::seconds(3600)) luaL_error(L, "run_for(): expected s(1)..s(3600)");
  c.run.duration = d;
  c.run_for_set = true;
  return 0;
}

int l_check(lua_State* L) {
  require_loading(L, "check{}");
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
      const sim::DurationNs b = to_duration(L, -1, "check{}", "field 'liveness'");
      if (b < sim::seconds(1)) luaL_error(L, "check{}: field 'liveness': a bound below s(1) cannot be met (elections take 1-2 s)");
      k.liveness = true;
      self(L).mutable_config().run.recovery_bound = b;
    }
  }
  lua_pop(L, 1);
  return 0;
}

// swarm{faults={...}, interval={lo, hi}}: draws which kinds of fault run and how often from the
// seed (FoundationDB's swarm testing: each seed a different mix), and logs the draw.
int l_swarm(lua_State* L) {
  require_loading(L, "swarm{}");
  Fields f(L, 1, "swarm{}", {"faults", "interval"});
  ScenarioConfig& c = self(L).mutable_config();
  sim::Rng& rng = self(L).rng();
  static const char* const kKinds[] = {"partition", "one_way", "crash", "slow_fsync", "fsync_error", "loss", "pause",
                                       "failpoint"};
  std::vector<std::string> kinds;
  if (f.push("faults") != LUA_TNIL) {
    if (!lua_istable(L, -1)) luaL_error(L, "swarm{}: field 'faults': expected a list of fault kinds");
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; ++i) {
      const char* k = lua_tostring(L, -1);
      if (k == nullptr || std::find_if(std::begin(kKinds), std::end(kKinds), [&](const char* x) { return std::string(x) == k; }) == std::end(kKinds))
        luaL_error(L, "swarm{}: unknown fault kind '%s'; expected partition, one_way, crash, slow_fsync, fsync_error, loss, pause, failpoint",
                   k ? k : luaL_typename(L, -1));
      kinds.push_back(k);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  } else {
    kinds.assign(std::begin(kKinds), std::end(kKinds));
  }
  lua_pop(L, 1);
  if (kinds.empty()) luaL_error(L, "swarm{}: field 'faults' is empty");
  sim::DurationNs lo = sim::milliseconds(200), hi = sim::seconds(3);
  if (f.push("interval") != LUA_TNIL) {
    if (!lua_istable(L, -1)) luaL_error(L, "swarm{}: field 'interval': expected {lo, hi}, e.g. {ms(200), s(3)}");
    lua_rawgeti(L, -1, 1);
    lua_rawgeti(L, -2, 2);
    lo = to_duration(L, -2, "swarm{}", "interval lo");
    hi = to_duration(L, -1, "swarm{}", "interval hi");
    lua_pop(L, 2);
    if (lo < sim::milliseconds(10) || hi < lo) luaL_error(L, "swarm{}: field 'interval': need ms(10) <= lo <= hi");
  }
  lua_pop(L, 1);
  node::NemesisOptions n;
  n.partitions = n.asymmetric = n.crashes = n.slow_fsync = n.fsync_errors = n.message_loss = n.pauses =
      n.fault_points = false;
  std::string drew;
  bool any = false;
  for (const std::string& k : kinds) {
    const bool on = rng.bernoulli(0.6);
    drew += (drew.empty() ? "" : ", ") + k + (on ? " on" : " off");
    any = any || on;
    if (!on) continue;
    if (k == "partition") n.partitions = true;
    if (k == "one_way") n.asymmetric = true;
    if (k == "crash") n.crashes = true;
    if (k == "slow_fsync") n.slow_fsync = true;
    if (k == "fsync_error") n.fsync_errors = true;
    if (k == "loss") n.message_loss = true;
    if (k == "pause") n.pauses = true;
    if (k == "failpoint") n.fault_points = true;
  }
  if (!any) {  // a swarm that draws nothing still tests something: the first kind listed
    const std::string& k = kinds.front();
    drew += "; none drawn, so " + k + " on";
    n.partitions = k == "partition";
    n.asymmetric = k == "one_way";
    n.crashes = k == "crash";
    n.slow_fsync = k == "slow_fsync";
    n.fsync_errors = k == "fsync_error";
    n.message_loss = k == "loss";
    n.pauses = k == "pause";
    n.fault_points = k == "failpoint";
  }
  n.mean_interval = lo + static_cast<sim::DurationNs>(rng.uniform_u64(static_cast<uint64_t>(hi - lo) + 1));
  c.run.faults = true;
  c.run.nemesis = n;
  c.swarm_log.push_back("swarm drew: " + drew + "; mean interval " + sim::format_duration(n.mean_interval));
  return 0;
}

int schedule_fn(lua_State* L, const char* fn, bool repeat, bool relative) {
  Scenario& s = self(L);
  const sim::DurationNs t = to_duration(L, 1, fn, repeat ? "the period" : "the time");
  luaL_checktype(L, 2, LUA_TFUNCTION);
  if (repeat && t < sim::milliseconds(1)) luaL_error(L, "%s: the period must be at least ms(1)", fn);
  Timed timed;
  timed.every = repeat ? t : 0;
  timed.where = where(L);
  lua_pushvalue(L, 2);
  timed.ref = luaL_ref(L, LUA_REGISTRYINDEX);
  if (s.loading()) {
    timed.at = t;  // every(p, f) first runs at p
    if (s.mutable_config().timed.size() >= 100'000) luaL_error(L, "%s: more than 100000 scheduled functions", fn);
    s.mutable_config().timed.push_back(timed);
    return 0;
  }
  const sim::TimeNs now = s.simulator()->now();
  const sim::TimeNs first = relative || repeat ? now + t : s.phase_start() + t;
  if (first < now) luaL_error(L, "%s: %s is already past (use after() for a delay from now)", fn, sim::format_duration(t).c_str());
  timed.at = first - s.phase_start();
  s.schedule(timed, first);
  return 0;
}
int l_at(lua_State* L) { return schedule_fn(L, "at()", false, false); }
int l_after(lua_State* L) { return schedule_fn(L, "after()", false, true); }
int l_every(lua_State* L) { return schedule_fn(L, "every()", true, true); }

// ---- selectors ----

int l_leader(lua_State* L) {
  require_running(L, "leader()");
  std::optional<size_t> l = self(L).nemesis()->leader();
  if (l) lua_pushinteger(L, static_cast<lua_Integer>(*l));
  else lua_pushnil(L);
  return 1;
}

int l_follower(lua_State* L) {
  require_running(L, "follower()");
  Scenario& s = self(L);
  std::optional<size_t> l = s.nemesis()->leader();
  std::vector<size_t> up;
  for (size_t m = 1; m <= s.nemesis()->size(); ++m)
    if (s.nemesis()->up(m) && (!l || m != *l)) up.push_back(m);
  if (up.empty()) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(up[s.rng().uniform_u64(up.size())]));
  return 1;
}

int l_random_node(lua_State* L) {
  require_running(L, "random_node()");
  Scenario& s = self(L);
  lua_pushinteger(L, static_cast<lua_Integer>(1 + s.rng().uniform_u64(s.nemesis()->size())));
  return 1;
}

int l_nodes(lua_State* L) {
  Scenario& s = self(L);
  lua_pushinteger(L, static_cast<lua_Integer>(s.nemesis() ? s.nemesis()->size() : s.mutable_config().run.nodes));
  return 1;
}

int l_now(lua_State* L) {
  require_running(L, "now()");
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
  const size_t n = node_arg(L, 1, "isolate()");
  lua_createtable(L, 0, 1);
  lua_pushinteger(L, static_cast<lua_Integer>(n));
  lua_setfield(L, -2, "isolate");
  return 1;
}

int l_one_way_shape(lua_State* L) {
  require_running(L, "one_way()");
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
  for (lua_Integer g = 1; lua_rawgeti(L, 1, g) != LUA_TNIL; ++g) {
    if (!lua_istable(L, -1)) luaL_error(L, "partition{}: group %d: expected a list of nodes such as {1, 2}", static_cast<int>(g));
    groups.emplace_back();
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; ++i) {
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
  check(L, self(L).nemesis()->heal());
  return 0;
}

int l_crash(lua_State* L) {
  require_running(L, "crash()");
  check(L, self(L).nemesis()->crash(node_arg(L, 1, "crash()")));
  return 0;
}

int l_kill(lua_State* L) {
  require_running(L, "kill()");
  const size_t n = node_arg(L, 1, "kill()");
  Fields f(L, 2, "kill()", {"lose_unsynced", "torn"});
  check(L, self(L).nemesis()->kill(n, f.boolean("lose_unsynced").value_or(false), f.boolean("torn").value_or(false)));
  return 0;
}

int l_restart(lua_State* L) {
  require_running(L, "restart()");
  check(L, self(L).nemesis()->restart(node_arg(L, 1, "restart()")));
  return 0;
}

int l_pause(lua_State* L) {
  require_running(L, "pause()");
  check(L, self(L).nemesis()->pause(node_arg(L, 1, "pause()")));
  return 0;
}

int l_resume(lua_State* L) {
  require_running(L, "resume()");
  check(L, self(L).nemesis()->resume(node_arg(L, 1, "resume()")));
  return 0;
}

int l_slow_fsync(lua_State* L) {
  require_running(L, "slow_fsync()");
  const size_t n = node_arg(L, 1, "slow_fsync()");
  std::string text;
  const sim::DurationDist d = to_dist(L, 2, "slow_fsync()", "the latency", &text);
  check(L, self(L).nemesis()->slow_fsync(n, d, text));
  return 0;
}

int l_normal_fsync(lua_State* L) {
  require_running(L, "normal_fsync()");
  check(L, self(L).nemesis()->normal_fsync(node_arg(L, 1, "normal_fsync()")));
  return 0;
}

int l_fsync_error(lua_State* L) {
  require_running(L, "fsync_error()");
  const size_t n = node_arg(L, 1, "fsync_error()");
  const lua_Integer count = luaL_optinteger(L, 2, 1);
  check(L, self(L).nemesis()->fsync_error(n, count));
  return 0;
}

int l_disk_full(lua_State* L) {
  require_running(L, "disk_full()");
  const size_t n = node_arg(L, 1, "disk_full()");
  const bool full = lua_isnoneornil(L, 2) ? true : lua_toboolean(L, 2);
  check(L, self(L).nemesis()->disk_full(n, full));
  return 0;
}

int l_bitflip(lua_State* L) {
  require_running(L, "bitflip()");
  const size_t n = node_arg(L, 1, "bitflip()");
  const char* file = luaL_checkstring(L, 2);
  Fields f(L, 3, "bitflip()", {"offset", "length", "bits"});
  const int64_t offset = f.integer("offset", 0, int64_t{1} << 40).value_or(0);
  const int64_t length = f.integer("length", 1, int64_t{1} << 40).value_or(4096);
  const int64_t bits = f.integer("bits", 1, 64).value_or(1);
  check(L, self(L).nemesis()->bitflip(n, file, static_cast<uint64_t>(offset), static_cast<uint64_t>(length),
                                      static_cast<int>(bits)));
  return 0;
}

// Clock offsets may be negative: clock_skew(n, -ms(300)).
sim::DurationNs signed_duration(lua_State* L, int idx, const char* fn) {
  if (!lua_isinteger(L, idx)) luaL_error(L, "%s: expected a duration such as ms(300) or -ms(300)", fn);
  return lua_tointeger(L, idx);
}

int l_clock_skew(lua_State* L) {
  require_running(L, "clock_skew()");
  const size_t n = node_arg(L, 1, "clock_skew()");
  check(L, self(L).nemesis()->clock_skew(n, signed_duration(L, 2, "clock_skew()")));
  return 0;
}

int l_clock_jump(lua_State* L) {
  require_running(L, "clock_jump()");
  const size_t n = node_arg(L, 1, "clock_jump()");
  check(L, self(L).nemesis()->clock_jump(n, signed_duration(L, 2, "clock_jump()")));
  return 0;
}

int l_clock_drift(lua_State* L) {
  require_running(L, "clock_drift()");
  const size_t n = node_arg(L, 1, "clock_drift()");
  check(L, self(L).nemesis()->clock_drift(n, luaL_checkinteger(L, 2)));
  return 0;
}

int l_drop(lua_State* L) {
  require_running(L, "drop()");
  check(L, self(L).nemesis()->drop(luaL_checknumber(L, 1)));
  return 0;
}

int l_delay(lua_State* L) {
  require_running(L, "delay()");
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
  const size_t n = node_arg(L, 1, "failpoint()");
  const char* point = luaL_checkstring(L, 2);
  const char* action = luaL_checkstring(L, 3);
  Fields f(L, 4, "failpoint()", {"delay", "skip", "times"});
  const sim::DurationNs delay = f.duration("delay").value_or(0);
  const int64_t skip = f.integer("skip", 0, 1'000'000'000).value_or(0);
  const int64_t times = f.integer("times", 0, 1'000'000'000).value_or(1);
  check(L, self(L).nemesis()->failpoint(n, point, action, delay, static_cast<uint64_t>(skip), static_cast<uint64_t>(times)));
  return 0;
}

}  // namespace

void register_api(lua_State* L, Scenario* scenario) {
  const luaL_Reg fns[] = {
      {"ms", unit<1'000'000>},  {"s", unit<1'000'000'000>}, {"us", unit<1'000>},
      {"uniform", l_uniform},   {"normal", l_normal},       {"exponential", l_exponential},
      {"lognormal", l_lognormal}, {"pareto", l_pareto},
      {"cluster", l_cluster},   {"workload", l_workload},   {"run_for", l_run_for},
      {"check", l_check},       {"swarm", l_swarm},         {"at", l_at},
      {"after", l_after},       {"every", l_every},         {"leader", l_leader},
      {"follower", l_follower}, {"random_node", l_random_node}, {"nodes", l_nodes},
      {"now", l_now},           {"isolate", l_isolate},     {"one_way", l_one_way_shape},
      {"partition", l_partition}, {"heal", l_heal},         {"crash", l_crash},
      {"kill", l_kill},         {"restart", l_restart},     {"pause", l_pause},
      {"resume", l_resume},     {"slow_fsync", l_slow_fsync}, {"normal_fsync", l_normal_fsync},
      {"fsync_error", l_fsync_error}, {"disk_full", l_disk_full}, {"bitflip", l_bitflip},
      {"clock_skew", l_clock_skew}, {"clock_jump", l_clock_jump}, {"clock_drift", l_clock_drift},
      {"drop", l_drop},         {"delay", l_delay},         {"failpoint", l_failpoint},
  };
  for (const luaL_Reg& r : fns) {
    lua_pushlightuserdata(L, scenario);
    lua_pushcclosure(L, r.func, 1);
    lua_setglobal(L, r.name);
  }
  for (const char* shape : {"majorities_ring", "minority_third", "bridge"}) {
    shape_table(L, shape);
    lua_setglobal(L, shape);
  }
}

}  // namespace dst::scenarios
