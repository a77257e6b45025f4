// The sandbox's base library: pairs in sorted order, print and tostring without addresses,
// pcall/xpcall that cannot swallow a limit, setmetatable without finalizers, math.random from
// the run's seed, and the guard every wrapped library function shares (call_original).
#include <lua.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "base/limits.h"
#include "scenarios/lua_host.h"
#include "scenarios/lua_sandbox.h"

namespace dst::scenarios {

namespace {

// math.random as Lua documents it (no argument: [0, 1); m: [1, m]; m, n: [m, n]), from the
// host's seeded generator.
int lua_random(lua_State* L) {
  sim::Rng& rng = *static_cast<sim::Rng*>(lua_touserdata(L, lua_upvalueindex(1)));
  const int n = lua_gettop(L);
  if (n == 0) {
    lua_pushnumber(L, rng.uniform_real());
    return 1;
  }
  luaL_argcheck(L, n <= 2, 3, "wrong number of arguments");
  lua_Integer lo = 1, hi = 0;
  if (n == 1) {
    hi = luaL_checkinteger(L, 1);
    if (hi == 0) {  // math.random(0): an integer with all bits random, as Lua 5.4 has it
      lua_pushinteger(L, static_cast<lua_Integer>(rng.next_u64()));
      return 1;
    }
  } else {
    lo = luaL_checkinteger(L, 1);
    hi = luaL_checkinteger(L, 2);
  }
  luaL_argcheck(L, lo <= hi, n, "interval is empty");
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  const uint64_t draw = span == UINT64_MAX ? rng.next_u64() : rng.uniform_u64(span + 1);
  lua_pushinteger(L, static_cast<lua_Integer>(static_cast<uint64_t>(lo) + draw));
  return 1;
}

int lua_no_reseed(lua_State* L) {
  return luaL_error(L, "math.randomseed: scenarios draw from the run's seed (dst run --seed N); reseeding is not allowed");
}

// --- pairs in sorted order ---

struct SortKey {
  bool is_string;
  lua_Integer position;  // in the array of keys
  std::string_view text;  // strings: the bytes (the key array keeps them alive)
};

// Collects t's keys into a new array (left on the stack) and the SortKey list; refuses keys that
// have no fixed order.
std::vector<SortKey> collect_keys(lua_State* L, int t, int keys) {
  std::vector<SortKey> out;
  lua_pushnil(L);
  while (lua_next(L, t) != 0) {
    lua_pop(L, 1);
    const int type = lua_type(L, -1);
    if (type != LUA_TNUMBER && type != LUA_TSTRING)
      luaL_error(L, "pairs: only number and string keys can be visited in a fixed order (found a %s key)",
                 luaL_typename(L, -1));
    lua_pushvalue(L, -1);
    lua_rawseti(L, keys, static_cast<lua_Integer>(out.size() + 1));
    SortKey k{type == LUA_TSTRING, static_cast<lua_Integer>(out.size() + 1), {}};
    if (k.is_string) {
      size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      k.text = std::string_view(s, len);
    }
    out.push_back(k);
    LuaHost::of(L).charge(L, 1);
  }
  return out;
}

int sorted_pairs_step(lua_State* L) {
  // upvalue 1: the table; upvalue 2: the sorted key array; upvalue 3: the next position.
  const lua_Integer i = lua_tointeger(L, lua_upvalueindex(3));
  if (lua_rawgeti(L, lua_upvalueindex(2), i) == LUA_TNIL) return 0;
  lua_pushinteger(L, i + 1);
  lua_replace(L, lua_upvalueindex(3));
  lua_pushvalue(L, -1);
  lua_gettable(L, lua_upvalueindex(1));
  return 2;
}

// pairs(t): numbers ascending, then strings in byte order.
int lua_sorted_pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  lua_newtable(L);  // 2: the keys in lua_next's order
  std::vector<SortKey> keys = collect_keys(L, 1, 2);
  LuaHost& host = LuaHost::of(L);
  uint64_t compared_bytes = 0;
  auto less = [&](const SortKey& a, const SortKey& b) {
    if (a.is_string != b.is_string) return !a.is_string;
    if (a.is_string) {
      compared_bytes += std::min(a.text.size(), b.text.size());
      return a.text < b.text;
    }
    lua_rawgeti(L, 2, a.position);
    lua_rawgeti(L, 2, b.position);
    const bool r = lua_compare(L, -2, -1, LUA_OPLT) != 0;  // numbers: no metamethods, no errors
    lua_pop(L, 2);
    return r;
  };
  std::sort(keys.begin(), keys.end(), less);
  host.charge(L, keys.size() * 2 + compared_bytes / limits::kScenarioBytesPerInstruction);
  lua_createtable(L, static_cast<int>(std::min<size_t>(keys.size(), 1u << 20)), 0);  // 3: sorted
  for (size_t i = 0; i < keys.size(); ++i) {
    lua_rawgeti(L, 2, keys[i].position);
    lua_rawseti(L, 3, static_cast<lua_Integer>(i + 1));
  }
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 3);
  lua_pushinteger(L, 1);
  lua_pushcclosure(L, sorted_pairs_step, 3);
  return 1;
}

// --- text without addresses ---

int lua_tostring_sandboxed(lua_State* L) {
  luaL_checkany(L, 1);
  push_deterministic_text(L, 1);
  return 1;
}

// print(...): one line through the host (bounded), values as tostring() gives them.
int lua_print(lua_State* L) {
  LuaHost& host = LuaHost::of(L);
  std::string line;
  const int n = lua_gettop(L);
  for (int i = 1; i <= n && line.size() <= host.print_bytes_left(); ++i) {
    push_deterministic_text(L, i);
    size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    if (i > 1) line += "\t";
    line.append(s, std::min(len, host.print_bytes_left() + 1));
    lua_pop(L, 1);
  }
  charge_bytes(L, line.size());
  host.print_line(line);
  return 0;
}

// --- protected calls that cannot swallow a limit ---

int lua_pcall_sandboxed(lua_State* L) {
  luaL_checkany(L, 1);
  const int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  LuaHost::of(L).rethrow_if_exhausted(L, status);
  if (status != LUA_OK) LuaHost::of(L).charge(L, limits::kScenarioCaughtErrorInstructions);
  lua_pushboolean(L, status == LUA_OK);
  lua_insert(L, 1);
  return lua_gettop(L);
}

// The message handler xpcall installs in front of the script's: once a limit ran out the error
// passes through untouched (a limit raised by the hook would otherwise run the script's handler
// with the hook off).
int guarded_message_handler(lua_State* L) {
  if (LuaHost::of(L).exhausted()) return 1;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

int lua_xpcall_sandboxed(lua_State* L) {
  const int n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushvalue(L, 2);
  lua_pushcclosure(L, guarded_message_handler, 1);
  lua_replace(L, 2);  // f, guard, args...
  lua_pushboolean(L, 1);
  lua_pushvalue(L, 1);
  lua_rotate(L, 3, 2);  // f, guard, true, f, args...
  const int status = lua_pcall(L, n - 2, LUA_MULTRET, 2);
  LuaHost::of(L).rethrow_if_exhausted(L, status);
  if (status != LUA_OK) LuaHost::of(L).charge(L, limits::kScenarioCaughtErrorInstructions);
  if (status != LUA_OK) {
    lua_pushboolean(L, 0);
    lua_replace(L, 3);  // f, guard, false, error
  }
  return lua_gettop(L) - 2;
}

// setmetatable(t, mt) as Lua's, except that a metatable with __gc is refused.
int lua_setmetatable_sandboxed(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  const int t = lua_type(L, 2);
  luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
  if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return luaL_error(L, "cannot change a protected metatable");
  if (t == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 2) != LUA_TNIL)
      return luaL_error(L, "setmetatable: finalizers (__gc) are not allowed in scenarios: they would run when the "
                           "garbage collector decides, outside the instruction budget");
    lua_pop(L, 1);
  }
  lua_settop(L, 2);
  lua_setmetatable(L, 1);
  return 1;
}

// tonumber(s [, base]) as Lua's, charged for the bytes it scans.
int lua_tonumber_counted(lua_State* L) {
  if (lua_type(L, 1) == LUA_TSTRING) charge_bytes(L, lua_rawlen(L, 1));
  return call_original(L, "tonumber");
}

}  // namespace

void push_deterministic_text(lua_State* L, int idx) {
  idx = lua_absindex(L, idx);
  switch (lua_type(L, idx)) {
    case LUA_TTABLE:
    case LUA_TFUNCTION:
    case LUA_TUSERDATA:
    case LUA_TLIGHTUSERDATA:
    case LUA_TTHREAD:
      break;
    default:
      luaL_tolstring(L, idx, nullptr);  // no address in these
      return;
  }
  if (luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
    lua_pop(L, 1);
    luaL_tolstring(L, idx, nullptr);  // calls it and checks that it gave a string
    return;
  }
  std::string kind = luaL_typename(L, idx);
  if (luaL_getmetafield(L, idx, "__name") != LUA_TNIL) {
    if (lua_type(L, -1) == LUA_TSTRING) kind = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  const std::string text = kind + ": #" + std::to_string(LuaHost::of(L).object_number(L, idx));
  lua_pushlstring(L, text.data(), text.size());
}

void charge_bytes(lua_State* L, uint64_t bytes) {
  LuaHost::of(L).charge(L, 1 + bytes / limits::kScenarioBytesPerInstruction);
}

void check_result_count(lua_State* L, uint64_t n, const char* fn) {
  if (n > limits::kScenarioResultsMax)
    luaL_error(L, "%s: %d results asked for; a library call returns at most %d values in a scenario", fn,
               static_cast<int>(std::min<uint64_t>(n, INT32_MAX)), static_cast<int>(limits::kScenarioResultsMax));
}

int call_original(lua_State* L, const char* name) {
  const int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  const int status = lua_pcall(L, n, LUA_MULTRET, 0);
  LuaHost::of(L).rethrow_if_exhausted(L, status);
  if (status == LUA_OK) return lua_gettop(L);
  if (lua_type(L, -1) != LUA_TSTRING) return lua_error(L);
  std::string msg = lua_tostring(L, -1);
  const std::string unnamed = " to '?'";
  if (size_t at = msg.find(unnamed); at != std::string::npos) msg.replace(at, unnamed.size(), std::string(" to '") + name + "'");
  if (!starts_with_location(msg)) {
    const std::string where = lua_location(L, 1);
    if (!where.empty()) msg = where + ": " + msg;
  }
  lua_pushlstring(L, msg.data(), msg.size());
  return lua_error(L);
}

void wrap_field(lua_State* L, const char* name, int (*fn)(lua_State*)) {
  lua_getfield(L, -1, name);
  lua_pushcclosure(L, fn, 1);
  lua_setfield(L, -2, name);
}

void open_sandbox_base(lua_State* L, sim::Rng* rng) {
  for (const char* name : {"dofile", "loadfile", "load", "require", "collectgarbage", "next", "rawequal", "rawlen",
                           "rawget", "rawset", "warn"}) {
    lua_pushnil(L);
    lua_setglobal(L, name);
  }
  const luaL_Reg replaced[] = {{"pairs", lua_sorted_pairs},
                               {"print", lua_print},
                               {"tostring", lua_tostring_sandboxed},
                               {"pcall", lua_pcall_sandboxed},
                               {"xpcall", lua_xpcall_sandboxed},
                               {"setmetatable", lua_setmetatable_sandboxed}};
  for (const luaL_Reg& r : replaced) {
    lua_pushcfunction(L, r.func);
    lua_setglobal(L, r.name);
  }
  lua_pushglobaltable(L);
  wrap_field(L, "tonumber", lua_tonumber_counted);
  lua_pop(L, 1);
  lua_getglobal(L, "math");
  lua_pushlightuserdata(L, rng);
  lua_pushcclosure(L, lua_random, 1);
  lua_setfield(L, -2, "random");
  lua_pushcfunction(L, lua_no_reseed);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
}

void open_sandbox(lua_State* L, sim::Rng* rng) {
  // Only these libraries; no io, os, package, debug, coroutine.
  const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},
                           {LUA_STRLIBNAME, luaopen_string},
                           {LUA_TABLIBNAME, luaopen_table},
                           {LUA_MATHLIBNAME, luaopen_math},
                           {LUA_UTF8LIBNAME, luaopen_utf8}};
  for (const luaL_Reg& lib : libs) {
    luaL_requiref(L, lib.name, lib.func, 1);
    lua_pop(L, 1);
  }
  open_sandbox_base(L, rng);
  open_sandbox_table(L);
  open_sandbox_string(L);
}

}  // namespace dst::scenarios
