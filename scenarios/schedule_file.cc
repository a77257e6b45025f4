#include "scenarios/schedule_file.h"

#include "base/parse_number.h"

#include <lua.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "base/limits.h"
#include "client/mix_draw.h"
#include "faults/nemesis.h"
#include "scenarios/lua_host.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_args.h"
#include "sim/clock.h"

namespace dst::scenarios {

namespace {

using api::Fields;
using api::fail;
using faults::FaultKind;
using faults::FaultStep;

struct Loading {
  faults::Schedule schedule;
  bool replay_seen = false;
  bool reduce_seen = false;
  bool source_seen = false;
};

Loading& loading(lua_State* L) { return *static_cast<Loading*>(lua_touserdata(L, lua_upvalueindex(1))); }

constexpr int64_t kNodeMax = 1000;  // the world checks the real range; this only bounds the number

size_t node_field(Fields& f, const char* name) {
  const std::optional<int64_t> n = f.integer(name, 1, kNodeMax);
  return n ? static_cast<size_t>(*n) : 0;
}

faults::Groups groups_field(lua_State* L, Fields& f) {
  faults::Groups groups;
  if (f.push("groups") != LUA_TTABLE) fail(L, "step{}: partition: field 'groups': expected a list of groups such as {{1}, {2, 3}}");
  const int t = lua_gettop(L);
  for (lua_Integer g = 1; lua_rawgeti(L, t, g) != LUA_TNIL; ++g) {
    if (g > static_cast<lua_Integer>(limits::kRaftMembersMax) || !lua_istable(L, -1))
      fail(L, "step{}: partition: group " + std::to_string(g) + ": expected a list of at most " +
                  std::to_string(limits::kRaftMembersMax) + " groups of node numbers");
    groups.emplace_back();
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; ++i) {
      if (i > static_cast<lua_Integer>(limits::kRaftMembersMax)) fail(L, "step{}: partition: a group lists too many nodes");
      groups.back().push_back(static_cast<size_t>(api::check_whole(L, -1, "step{}", "partition: a node", 1, kNodeMax)));
      lua_pop(L, 1);
    }
    lua_pop(L, 2);
  }
  lua_pop(L, 2);
  return groups;
}

// A latency as schedule_text.h writes it: a duration, or {dist=, a=, b=, min=, max=, text=}.
void latency_field(lua_State* L, Fields& f, FaultStep& s) {
  const int type = f.push("latency");
  const int idx = lua_gettop(L);
  if (type == LUA_TNUMBER) {
    s.dist = sim::DurationDist::constant(api::to_duration(L, idx, "step{}", "latency", limits::kScenarioLatencyNsMax));
    s.dist_text = sim::format_duration(static_cast<sim::DurationNs>(s.dist.a));
  } else if (type == LUA_TTABLE) {
    Fields d(L, idx, "step{}: latency", {"dist", "a", "b", "min", "max", "text"});
    const int64_t max = limits::kScenarioLatencyNsMax;
    lua_pushvalue(L, idx);  // to_dist reads dist, a, b and text and checks them
    s.dist = api::to_dist(L, -1, "step{}", "latency", &s.dist_text);
    lua_pop(L, 1);
    const int64_t lo = d.integer("min", 0, max).value_or(0), hi = d.integer("max", 0, max).value_or(max);
    if (lo > hi) fail(L, "step{}: latency: min is above max");
    s.dist = s.dist.clamped(lo, hi);
  } else {
    fail(L, "step{}: field 'latency': expected a duration or a distribution {dist=..., a=..., b=...}");
  }
  lua_pop(L, 1);
}

void kind_fields(lua_State* L, Fields& f, FaultStep& s) {
  switch (s.kind) {
    case FaultKind::kPartition: s.groups = groups_field(L, f); break;
    case FaultKind::kOneWay: s.to = node_field(f, "to"); break;
    case FaultKind::kDrop:
      s.loss = f.number("loss", 0, 1).value_or(0);
      s.duplicate = f.number("duplicate", 0, 1).value_or(0);
      s.reorder = f.number("reorder", 0, 1).value_or(0);
      break;
    case FaultKind::kDelay: case FaultKind::kSlowFsync: latency_field(L, f, s); break;
    case FaultKind::kKill:
      s.lose_unsynced = f.boolean("lose_unsynced").value_or(false);
      s.torn = f.boolean("torn").value_or(false);
      break;
    case FaultKind::kFsyncError: s.count = f.integer("count", 1, 1'000'000).value_or(1); break;
    case FaultKind::kWatchStall: s.ns = f.integer("ns", 0, limits::kWatchStallNsMax).value_or(0); break;
    case FaultKind::kClientStall: s.ns = f.integer("ns", 0, limits::kClientStallNsMax).value_or(0); break;
    case FaultKind::kWatchRewind: s.count = f.integer("count", 1, limits::kWatchRewindRevisionsMax).value_or(1); break;
    case FaultKind::kDiskFull: s.full = f.boolean("full").value_or(true); break;
    case FaultKind::kBitflip:
      s.file = f.string("file").value_or("");
      s.offset = static_cast<uint64_t>(f.integer("offset", 0, int64_t{1} << 40).value_or(0));
      s.length = static_cast<uint64_t>(f.integer("length", 1, int64_t{1} << 40).value_or(4096));
      s.bits = static_cast<int>(f.integer("bits", 1, 64).value_or(1));
      break;
    case FaultKind::kClockSkew: case FaultKind::kClockJump:
      s.ns = f.integer("ns", -limits::kClockOffsetNsMax, limits::kClockOffsetNsMax).value_or(0);
      break;
    case FaultKind::kClockDrift:
      s.ppm = f.integer("ppm", -sim::NodeClock::kDriftPpmMax, sim::NodeClock::kDriftPpmMax).value_or(0);
      break;
    case FaultKind::kFailpoint:
      s.point = f.string("point", 64).value_or("");
      s.action = f.string("action", 64).value_or("");
      s.delay = f.integer("delay", 0, limits::kScenarioLatencyNsMax).value_or(0);
      s.skip = static_cast<uint64_t>(f.integer("skip", 0, 1'000'000'000).value_or(0));
      s.times = static_cast<uint64_t>(f.integer("times", 0, 1'000'000'000).value_or(1));
      break;
    default: break;
  }
}

int l_step(lua_State* L) {
  Loading& ld = loading(L);
  if (!ld.replay_seen) fail(L, "step{}: the file must start with replay{scenario=..., seed=...}");
  if (ld.schedule.steps.size() >= faults::Nemesis::kStepsMax)
    fail(L, "step{}: more than " + std::to_string(faults::Nemesis::kStepsMax) + " steps; a schedule is at most that long");
  api::check_arg_count(L, 1, "step{}");
  Fields f(L, 1, "step{}", {"at", "kind", "origin", "call", "node", "to", "groups", "loss", "duplicate", "reorder",
                           "latency", "lose_unsynced", "torn", "full", "count", "file", "offset", "length", "bits",
                           "ns", "ppm", "point", "action", "delay", "skip", "times", "refused"});
  if (f.index() == 0) fail(L, "step{}: expected a table such as step{at=1200000000, kind=\"crash\", node=2}");
  FaultStep s;
  const std::optional<int64_t> at = f.integer("at", 0, int64_t{1} << 62);
  if (!at) fail(L, "step{}: field 'at' (the virtual time in ns) is required");
  s.at = *at;
  const std::string kind = f.string("kind", 64).value_or("");
  const std::optional<FaultKind> k = faults::parse_fault_kind(kind);
  if (!k) fail(L, "step{}: field 'kind': unknown fault kind '" + kind + "' (e.g. \"crash\", \"partition\", \"kill\")");
  s.kind = *k;
  const std::optional<int64_t> call = f.integer("call", 1, int64_t{1} << 62);
  const std::string origin = f.string("origin", 16).value_or(call ? "script" : "timed");
  const std::optional<faults::Origin> o = faults::parse_origin(origin);
  if (!o) fail(L, "step{}: field 'origin': expected \"random\", \"script\", \"config\" or \"timed\", got '" + origin + "'");
  s.origin = *o;
  if ((s.origin == faults::Origin::kScript) != call.has_value())
    fail(L, "step{}: a step with origin=\"script\" needs call=K (the script's K-th fault call), and only such a step");
  s.call = call ? static_cast<uint64_t>(*call) : 0;
  if (faults::acts_on_member(s.kind) || faults::acts_on_kube(s.kind) || faults::acts_on_workload(s.kind)) {
    s.node = node_field(f, "node");
    if (s.node == 0) fail(L, "step{}: " + kind + ": field 'node' (1-based) is required");
  }
  kind_fields(L, f, s);
  s.refused = f.string("refused", 4096).value_or("");
  ld.schedule.steps.push_back(std::move(s));
  return 0;
}

int l_replay(lua_State* L) {
  Loading& ld = loading(L);
  if (ld.replay_seen) fail(L, "replay{}: called twice; a schedule file has one replay{} line");
  api::check_arg_count(L, 1, "replay{}");
  Fields f(L, 1, "replay{}", {"scenario", "seed", "bug"});
  ld.schedule.scenario = f.string("scenario", 4096).value_or("");
  if (ld.schedule.scenario.empty()) fail(L, "replay{}: field 'scenario' (the scenario file's path) is required");
  const std::string seed = f.string("seed", 32).value_or("");
  const std::optional<uint64_t> v = parse_u64(seed);
  if (!v) fail(L, "replay{}: field 'seed': expected the seed as a decimal string such as \"42\", got '" + seed + "'");
  ld.schedule.seed = v.value_or(0);
  ld.schedule.bugs = f.string("bug", 1024).value_or("");
  ld.replay_seen = true;
  return 0;
}

// reduce{without={"txn", ...}}: the request kinds, each a known name once.
std::vector<std::string> kinds_field(lua_State* L, Fields& f) {
  std::vector<std::string> kinds;
  const int type = f.push("without");
  if (type == LUA_TNIL) {
    lua_pop(L, 1);
    return kinds;
  }
  const std::vector<std::string>& names = client::kv_kind_names();
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  if (type != LUA_TTABLE) fail(L, "reduce{}: field 'without': expected a list of request kinds such as {\"txn\"}");
  // A list, nothing else: every key 1..n (a hole or a named field would be skipped unseen).
  const std::string not_a_list = "reduce{}: field 'without': expected a list of at most " + std::to_string(names.size()) +
                                 " request kinds such as {\"txn\"}, with no holes and no named fields";
  size_t keys = 0;
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pop(L, 1);
    if (++keys > names.size()) fail(L, not_a_list);
  }
  if (keys != lua_rawlen(L, -1)) fail(L, not_a_list);
  for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; ++i) {
    const char* kind = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    if (std::find(names.begin(), names.end(), kind) == names.end() ||
        std::find(kinds.begin(), kinds.end(), kind) != kinds.end())
      fail(L, "reduce{}: field 'without': item " + std::to_string(i) + ": expected a request kind named once, one of: " + known);
    kinds.emplace_back(kind);
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
  return kinds;
}

int l_reduce(lua_State* L) {
  Loading& ld = loading(L);
  if (!ld.replay_seen) fail(L, "reduce{}: the file must start with replay{scenario=..., seed=...}");
  if (ld.reduce_seen) fail(L, "reduce{}: called twice; a schedule file has at most one reduce{} line");
  api::check_arg_count(L, 1, "reduce{}");
  Fields f(L, 1, "reduce{}", {"nodes", "clients", "watchers", "keys", "rate", "run_for", "without"});
  if (f.index() == 0) fail(L, "reduce{}: expected a table such as reduce{clients=1, run_for=3000000000}");
  faults::Reduction& r = ld.schedule.reduce;
  // The bounds of cluster{}, workload{} and run_for(): a reduction is a scenario's configuration.
  if (auto n = f.integer("nodes", 1, 9)) r.nodes = static_cast<uint64_t>(*n);
  if (auto n = f.integer("clients", 0, 256)) r.clients = static_cast<uint64_t>(*n);
  if (auto n = f.integer("watchers", 0, 64)) r.watchers = static_cast<uint64_t>(*n);
  if (auto n = f.integer("keys", 1, 100000)) r.keys = static_cast<uint64_t>(*n);
  if (auto v = f.number("rate", 0.1, 10000)) r.rate = *v;
  if (auto ns = f.integer("run_for", limits::kScenarioRunForNsMin, limits::kScenarioRunForNsMax)) r.run_for_ns = *ns;
  r.without = kinds_field(L, f);
  if (r.without.size() == client::kv_kind_names().size())
    fail(L, "reduce{}: field 'without': every request kind is listed; at least one must be sent");
  ld.reduce_seen = true;
  return 0;
}

int l_scenario_source(lua_State* L) {
  Loading& ld = loading(L);
  if (!ld.replay_seen) fail(L, "scenario_source: the file must start with replay{scenario=..., seed=...}");
  if (ld.source_seen) fail(L, "scenario_source: given twice; a schedule file embeds at most one scenario");
  api::check_arg_count(L, 1, "scenario_source");
  if (lua_type(L, 1) != LUA_TSTRING) fail(L, "scenario_source: expected the scenario's text as a string, [==[ ... ]==]");
  size_t len = 0;
  const char* text = lua_tolstring(L, 1, &len);
  if (len == 0 || len > limits::kScenarioFileBytesMax)
    fail(L, "scenario_source: the scenario's text is 1 to " + std::to_string(limits::kScenarioFileBytesMax) + " bytes");
  ld.schedule.source.assign(text, len);
  ld.source_seen = true;
  return 0;
}

}  // namespace

Result<faults::Schedule> load_schedule_source(const std::string& name, const std::string& code) {
  LuaHost host(LuaLimits{}, 0);
  Loading ld;
  lua_State* L = host.state();
  const luaL_Reg fns[] = {{"step", l_step}, {"replay", l_replay}, {"reduce", l_reduce}, {"scenario_source", l_scenario_source}};
  for (const luaL_Reg& fn : fns) {
    lua_pushlightuserdata(L, &ld);
    lua_pushcclosure(L, fn.func, 1);
    lua_setglobal(L, fn.name);
  }
  if (Status st = host.run_string(code, name); !st.is_ok()) return st;
  if (!ld.replay_seen)
    return Status(StatusCode::kInvalidArgument, name + ": not a fault schedule: no replay{scenario=..., seed=...} line");
  return std::move(ld.schedule);
}

Result<faults::Schedule> load_schedule(const std::string& path) {
  Result<std::string> text = Scenario::read_file(path);
  if (!text.is_ok()) return text.status();
  return load_schedule_source(path, *text);
}

}  // namespace dst::scenarios
