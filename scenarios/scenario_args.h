// The argument checking every scenario function shares (scenario_api_*.cc): durations,
// distributions, option tables checked against the names a function accepts, node numbers, and
// errors that luaL_error prefixes with the script's file and line. Internal to scenarios/.
#pragma once

#include <lua.hpp>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>

#include "scenarios/scenario.h"

namespace dst::scenarios::api {

// Raises a Lua error with this message (lua_pushfstring knows no %lld or %g: format here).
[[noreturn]] inline void fail(lua_State* L, const std::string& msg) {
  luaL_error(L, "%s", msg.c_str());
  std::abort();  // luaL_error does not return
}

inline std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

inline Scenario& self(lua_State* L) { return *static_cast<Scenario*>(lua_touserdata(L, lua_upvalueindex(1))); }

inline std::string where(lua_State* L) {
  luaL_where(L, 1);
  std::string w = lua_tostring(L, -1);
  lua_pop(L, 1);
  if (w.size() >= 2 && w.substr(w.size() - 2) == ": ") w.resize(w.size() - 2);
  return w;
}

inline void require_loading(lua_State* L, const char* fn) {
  if (!self(L).loading())
    luaL_error(L, "%s: configuration belongs at the top of the scenario, not inside a scheduled function", fn);
}

inline void require_running(lua_State* L, const char* fn) {
  if (self(L).loading() || self(L).nemesis() == nullptr)
    luaL_error(L, "%s: faults act on the running world; call it inside at(), every() or after()", fn);
}

// A duration: an integer count of nanoseconds, as ms() and s() make. Small nonzero values are
// almost certainly a forgotten unit.
inline sim::DurationNs to_duration(lua_State* L, int idx, const char* fn, const char* what) {
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
inline sim::DurationDist to_dist(lua_State* L, int idx, const char* fn, const char* what, std::string* text) {
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
inline size_t node_arg(lua_State* L, int idx, const char* fn) {
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

inline void check(lua_State* L, const Status& st) {
  if (!st.is_ok()) luaL_error(L, "%s", st.message().c_str());
}

}  // namespace dst::scenarios::api
