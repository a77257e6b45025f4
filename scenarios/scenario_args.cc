// See scenario_args.h: distributions and option tables.
#include "scenarios/scenario_args.h"

#include <iterator>

namespace dst::scenarios::api {

namespace {

std::string dur(int64_t ns) { return sim::format_duration(ns); }

// "lognormal(): the median is 0ns; expected 1ns..1m0.0s" style range messages.
std::string range_error(const std::string& kind, const char* name, int64_t v, int64_t lo, int64_t hi) {
  return kind + ": the " + name + " is " + dur(v) + "; expected " + dur(lo) + ".." + dur(hi);
}

std::string shape_error(const std::string& kind, const char* name, double v, const char* range) {
  return kind + ": the " + name + " is " + number_text(v) + "; expected a number in " + range;
}

}  // namespace

std::string check_dist_parameters(const std::string& kind, int64_t a, double b) {
  const int64_t max = limits::kScenarioLatencyNsMax;
  if (kind == "uniform") {
    if (a < 0 || a > max) return range_error(kind, "low end", a, 0, max);
    if (!(b >= static_cast<double>(a) && b <= static_cast<double>(max)))
      return "uniform: the high end is " + (std::isfinite(b) ? dur(static_cast<int64_t>(b)) : number_text(b)) +
             "; expected " + dur(a) + ".." + dur(max) + " (at least the low end)";
    return "";
  }
  if (kind == "normal") {
    if (a < 0 || a > max) return range_error(kind, "mean", a, 0, max);
    if (!(b >= 0 && b <= static_cast<double>(max)))
      return "normal: the standard deviation is " + (std::isfinite(b) ? dur(static_cast<int64_t>(b)) : number_text(b)) +
             "; expected 0ns.." + dur(max);
    return "";
  }
  if (kind == "exponential") return a < 1 || a > max ? range_error(kind, "mean", a, 1, max) : "";
  if (kind == "lognormal") {
    if (a < 1 || a > max) return range_error(kind, "median", a, 1, max);
    if (!(b >= 0 && b <= limits::kScenarioLognormalSigmaMax)) return shape_error(kind, "sigma", b, "0..10");
    return "";
  }
  if (kind == "pareto") {
    if (a < 1 || a > max) return range_error(kind, "scale", a, 1, max);
    if (!(b > 0 && b <= limits::kScenarioParetoShapeMax)) return shape_error(kind, "shape", b, "(0, 100]");
    return "";
  }
  return "unknown distribution '" + kind + "'; expected uniform, normal, exponential, lognormal or pareto";
}

sim::DurationDist to_dist(lua_State* L, int idx, const char* fn, const std::string& what, std::string* text) {
  idx = lua_absindex(L, idx);
  const sim::DurationNs max = limits::kScenarioLatencyNsMax;
  if (lua_type(L, idx) == LUA_TNUMBER) {
    const sim::DurationNs d = to_duration(L, idx, fn, what, max);
    *text = sim::format_duration(d);
    return sim::DurationDist::constant(d);
  }
  if (!lua_istable(L, idx) || lua_getfield(L, idx, "dist") != LUA_TSTRING)
    fail(L, std::string(fn) + ": " + what + ": expected a duration or a distribution such as uniform(ms(10), ms(50))");
  const std::string kind = lua_tostring(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, idx, "a");
  lua_getfield(L, idx, "b");
  const std::optional<int64_t> a = whole_number(L, -2);
  const bool b_ok = lua_type(L, -1) == LUA_TNUMBER || lua_isnil(L, -1);
  const double b = lua_tonumber(L, -1);
  lua_pop(L, 2);
  if (!a || !b_ok) fail(L, std::string(fn) + ": " + what + ": a " + kind + " distribution needs a duration 'a' and a number 'b'");
  if (const std::string e = check_dist_parameters(kind, *a, b); !e.empty()) fail(L, std::string(fn) + ": " + what + ": " + e);
  *text = lua_getfield(L, idx, "text") == LUA_TSTRING ? lua_tostring(L, -1) : kind;
  lua_pop(L, 1);
  if (text->size() > 200) text->resize(200);
  sim::DurationDist d;
  if (kind == "uniform") d = sim::DurationDist::uniform(*a, static_cast<sim::DurationNs>(b));
  else if (kind == "exponential") d = sim::DurationDist::exponential(*a);
  else if (kind == "normal") d = sim::DurationDist::normal(*a, static_cast<sim::DurationNs>(b));
  else if (kind == "lognormal") d = sim::DurationDist::lognormal(*a, b);
  else d = sim::DurationDist::pareto(*a, b);
  return d.clamped(0, max);
}

Fields::Fields(lua_State* L, int idx, const char* fn, std::initializer_list<const char*> allowed)
    : L_(L), idx_(lua_absindex(L, idx)), fn_(fn) {
  if (lua_isnoneornil(L, idx_)) {
    idx_ = 0;
    return;
  }
  if (!lua_istable(L, idx_)) luaL_error(L, "%s: expected a table of options, got %s", fn, luaL_typename(L, idx_));
  std::set<std::string> ok(allowed.begin(), allowed.end());
  std::set<std::string> unknown;  // sorted: the message does not depend on Lua's hash order
  uint64_t visited = 0;
  lua_pushnil(L);
  while (lua_next(L, idx_) != 0) {
    lua_pop(L, 1);
    if (++visited % 64 == 0) LuaHost::of(L).charge(L, 64);  // a huge options table costs what it takes
    if (lua_type(L, -1) != LUA_TSTRING) {
      if (!lua_isinteger(L, -1)) luaL_error(L, "%s: option names must be strings", fn);
      continue;  // positional entries are read by the caller
    }
    if (ok.count(lua_tostring(L, -1))) continue;
    unknown.insert(lua_tostring(L, -1));
    if (unknown.size() > 16) unknown.erase(std::prev(unknown.end()));  // keep the first 16 in sorted order
  }
  if (!unknown.empty()) {
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    std::string name = *unknown.begin();
    if (name.size() > 64) name = name.substr(0, 64) + "...";
    luaL_error(L, "%s: unknown field '%s'; expected one of: %s", fn, name.c_str(), list.c_str());
  }
}

bool Fields::has(const char* f) {
  if (idx_ == 0) return false;
  const bool present = lua_getfield(L_, idx_, f) != LUA_TNIL;
  lua_pop(L_, 1);
  return present;
}

// Reads field `f` with `read(index, name)` when it is there, leaving the stack as it was.
template <class Read>
auto Fields::optional_field(const char* f, Read read) -> std::optional<decltype(read(0, std::string()))> {
  if (push(f) == LUA_TNIL) {
    lua_pop(L_, 1);
    return std::nullopt;
  }
  auto v = read(-1, field_name(f));
  lua_pop(L_, 1);
  return v;
}

std::optional<int64_t> Fields::integer(const char* f, int64_t lo, int64_t hi) {
  return optional_field(f, [&](int i, const std::string& name) { return check_whole(L_, i, fn_, name, lo, hi); });
}

std::optional<double> Fields::number(const char* f, double lo, double hi) {
  return optional_field(f, [&](int i, const std::string& name) { return check_number(L_, i, fn_, name, lo, hi); });
}

std::optional<bool> Fields::boolean(const char* f) {
  return optional_field(f, [&](int i, const std::string& name) { return check_boolean(L_, i, fn_, name); });
}

std::optional<std::string> Fields::string(const char* f, size_t max_len) {
  return optional_field(f, [&](int i, const std::string& name) { return check_string(L_, i, fn_, name, max_len); });
}

std::optional<sim::DurationNs> Fields::duration(const char* f, sim::DurationNs max) {
  return optional_field(f, [&](int i, const std::string& name) { return to_duration(L_, i, fn_, name, max); });
}

std::optional<sim::DurationDist> Fields::dist(const char* f, std::string* text) {
  return optional_field(f, [&](int i, const std::string& name) { return to_dist(L_, i, fn_, name, text); });
}

}  // namespace dst::scenarios::api
