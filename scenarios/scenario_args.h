// The argument checking every scenario function shares (scenario_*_api.cc): whole numbers,
// numbers, strings, booleans, durations and distributions with their accepted ranges, option
// tables checked against the names a function accepts, node numbers, argument counts. Every
// error names the function, the argument and what was accepted; luaL_error prefixes the script's
// file and line. Internal to scenarios/.
#pragma once

#include <lua.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>

#include "base/limits.h"
#include "scenarios/lua_host.h"
#include "scenarios/scenario.h"

namespace dst::scenarios::api {

// Raises a Lua error with this message (lua_pushfstring knows no %lld or %g: format here).
[[noreturn]] inline void fail(lua_State* L, const std::string& msg) {
  luaL_error(L, "%s", msg.c_str());
  std::abort();  // luaL_error does not return
}

inline std::string number_text(double v) {
  if (std::isnan(v)) return "nan";  // printf may say -nan for 0/0
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
  if (self(L).loading())
    luaL_error(L, "%s: faults act on the running world; call it inside at(), every() or after()", fn);
  if (self(L).world_gone()) luaL_error(L, "%s: the run is over; nothing acts on the world any more", fn);
  if (self(L).nemesis() == nullptr)
    luaL_error(L, "%s: faults act on the running world; call it inside at(), every() or after()", fn);
}

// An action on the world costs kScenarioActionInstructions of the budget (what it sets off in
// the simulation is far more than its Lua cost), so a loop of actions ends at the budget.
inline void charge_action(lua_State* L) { LuaHost::of(L).charge(L, limits::kScenarioActionInstructions); }

// At most `max` arguments: a misspelt call such as crash(1, 2) is an error, not ignored.
inline void check_arg_count(lua_State* L, int max, const char* fn) {
  const int n = lua_gettop(L);
  if (n > max)
    fail(L, std::string(fn) + ": expected at most " + std::to_string(max) + " argument" + (max == 1 ? "" : "s") +
                ", got " + std::to_string(n));
}

// A whole number: an integer, or a float with a whole value (2^40 is a float in Lua).
inline std::optional<int64_t> whole_number(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TNUMBER) return std::nullopt;
  int is_integer = 0;
  const lua_Integer v = lua_tointegerx(L, idx, &is_integer);
  if (!is_integer) return std::nullopt;
  return v;
}

inline int64_t check_whole(lua_State* L, int idx, const char* fn, const std::string& what, int64_t lo, int64_t hi) {
  const std::optional<int64_t> v = whole_number(L, idx);
  if (!v) {
    if (lua_type(L, idx) == LUA_TNUMBER)
      fail(L, std::string(fn) + ": " + what + " is " + number_text(lua_tonumber(L, idx)) + "; expected a whole number in " +
                  std::to_string(lo) + ".." + std::to_string(hi));
    fail(L, std::string(fn) + ": " + what + ": expected a whole number in " + std::to_string(lo) + ".." +
                std::to_string(hi) + ", got " + luaL_typename(L, idx));
  }
  if (*v < lo || *v > hi)
    fail(L, std::string(fn) + ": " + what + " is " + std::to_string(*v) + "; expected " + std::to_string(lo) + ".." +
                std::to_string(hi));
  return *v;
}

// A finite number in [lo, hi].
inline double check_number(lua_State* L, int idx, const char* fn, const std::string& what, double lo, double hi) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    fail(L, std::string(fn) + ": " + what + ": expected a number in " + number_text(lo) + ".." + number_text(hi) +
                ", got " + luaL_typename(L, idx));
  const double v = lua_tonumber(L, idx);
  if (!(v >= lo && v <= hi))  // NaN fails too
    fail(L, std::string(fn) + ": " + what + " is " + number_text(v) + "; expected " + number_text(lo) + ".." +
                number_text(hi));
  return v;
}

inline bool check_boolean(lua_State* L, int idx, const char* fn, const std::string& what) {
  if (!lua_isboolean(L, idx)) fail(L, std::string(fn) + ": " + what + ": expected true or false, got " + luaL_typename(L, idx));
  return lua_toboolean(L, idx) != 0;
}

// A string (not a number: a name is never meant as one) of at most max_len bytes.
inline std::string check_string(lua_State* L, int idx, const char* fn, const std::string& what, size_t max_len = 256) {
  if (lua_type(L, idx) != LUA_TSTRING) fail(L, std::string(fn) + ": " + what + ": expected a string, got " + luaL_typename(L, idx));
  size_t len = 0;
  const char* s = lua_tolstring(L, idx, &len);
  if (len > max_len)
    fail(L, std::string(fn) + ": " + what + " is " + std::to_string(len) + " bytes long; at most " + std::to_string(max_len));
  return std::string(s, len);
}

// A duration: a whole number of nanoseconds, as ms() and s() make, in [0, max]. Small nonzero
// values are almost certainly a forgotten unit.
inline sim::DurationNs to_duration(lua_State* L, int idx, const char* fn, const std::string& what,
                                   sim::DurationNs max = limits::kScenarioRunForNsMax) {
  const std::optional<int64_t> v = whole_number(L, idx);
  if (!v) {
    if (lua_type(L, idx) == LUA_TNUMBER)
      fail(L, std::string(fn) + ": " + what + " must be a whole number of nanoseconds; write it with ms(), s() or us()");
    fail(L, std::string(fn) + ": " + what + ": expected a duration such as ms(50) or s(2), got " + luaL_typename(L, idx));
  }
  if (*v < 0) fail(L, std::string(fn) + ": " + what + " must not be negative");
  if (*v > 0 && *v < 1000) {
    const std::string n = std::to_string(*v);
    fail(L, std::string(fn) + ": " + what + " is " + n + " ns; durations are in nanoseconds: write ms(" + n + ") or s(" + n + ")");
  }
  if (*v > max)
    fail(L, std::string(fn) + ": " + what + " is " + sim::format_duration(*v) + "; at most " + sim::format_duration(max));
  return *v;
}

// Checks a distribution's parameters (a: a duration in ns; b: a duration for uniform and normal,
// a shape otherwise); the error, or "" when they are fine.
std::string check_dist_parameters(const std::string& kind, int64_t a, double b);

// A distribution: a table made by uniform(), exponential(), ... (or written by hand, with the
// same fields), or a plain duration (a constant). Every parameter is checked; samples are
// clamped to [0, kScenarioLatencyNsMax].
sim::DurationDist to_dist(lua_State* L, int idx, const char* fn, const std::string& what, std::string* text);

// The fields of an options table, checked against the names a function accepts.
class Fields {
 public:
  Fields(lua_State* L, int idx, const char* fn, std::initializer_list<const char*> allowed);
  bool has(const char* f);
  // Pushes the field's value (the caller pops it).
  int push(const char* f) { return idx_ == 0 ? (lua_pushnil(L_), LUA_TNIL) : lua_getfield(L_, idx_, f); }
  std::optional<int64_t> integer(const char* f, int64_t lo, int64_t hi);
  std::optional<double> number(const char* f, double lo, double hi);
  std::optional<bool> boolean(const char* f);
  std::optional<std::string> string(const char* f, size_t max_len = 256);
  std::optional<sim::DurationNs> duration(const char* f, sim::DurationNs max = limits::kScenarioRunForNsMax);
  std::optional<sim::DurationDist> dist(const char* f, std::string* text);
  int index() const { return idx_; }

 private:
  std::string field_name(const char* f) const { return std::string("field '") + f + "'"; }
  template <class Read>
  auto optional_field(const char* f, Read read) -> std::optional<decltype(read(0, std::string()))>;
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
  const std::optional<int64_t> v = whole_number(L, idx);
  if (!v) luaL_error(L, "%s: expected a node number (1..%d), got %s", fn, static_cast<int>(n), luaL_typename(L, idx));
  if (Status st = s.nemesis()->check_member(*v, fn); !st.is_ok()) luaL_error(L, "%s", st.message().c_str());
  return static_cast<size_t>(*v);
}

inline void check(lua_State* L, const Status& st) {
  if (!st.is_ok()) luaL_error(L, "%s", st.message().c_str());
}

}  // namespace dst::scenarios::api
