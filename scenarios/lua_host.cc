#include "scenarios/lua_host.h"

#include <lua.hpp>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "base/assert.h"

namespace dst::scenarios {

namespace {

// The count hook runs every kHookEvery VM instructions.
constexpr int kHookEvery = 10'000;

LuaHost* host_of(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return static_cast<LuaHost*>(ud);
}

// math.random as Lua documents it (no argument: [0, 1); m: [1, m]; m, n: [m, n]), from the
// host's seeded generator.
int lua_random(lua_State* L) {
  sim::Rng& rng = *static_cast<sim::Rng*>(lua_touserdata(L, lua_upvalueindex(1)));
  const int n = lua_gettop(L);
  if (n == 0) {
    lua_pushnumber(L, rng.uniform_real());
    return 1;
  }
  lua_Integer lo = 1, hi = 0;
  if (n == 1) {
    hi = luaL_checkinteger(L, 1);
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

// Sorted-order `pairs`: collects the keys, sorts numbers before strings (other key types are
// refused: their order could not be made deterministic), and iterates the sorted array.
bool key_less(lua_State* L, int a, int b) {
  const int ta = lua_type(L, a), tb = lua_type(L, b);
  if (ta != tb) return ta == LUA_TNUMBER;
  if (ta == LUA_TNUMBER) return lua_compare(L, a, b, LUA_OPLT) != 0;
  size_t la = 0, lb = 0;
  const char* sa = lua_tolstring(L, a, &la);
  const char* sb = lua_tolstring(L, b, &lb);
  return std::string_view(sa, la) < std::string_view(sb, lb);
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

int lua_sorted_pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_newtable(L);  // the keys
  const int keys = lua_gettop(L);
  lua_Integer n = 0;
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    lua_pop(L, 1);
    const int t = lua_type(L, -1);
    if (t != LUA_TNUMBER && t != LUA_TSTRING)
      return luaL_error(L, "pairs: only number and string keys can be visited in a fixed order (found a %s key)",
                        luaL_typename(L, -1));
    lua_pushvalue(L, -1);
    lua_rawseti(L, keys, ++n);
  }
  // Insertion sort on the Lua stack values through the array (scenario tables are small).
  for (lua_Integer i = 2; i <= n; ++i) {
    for (lua_Integer j = i; j > 1; --j) {
      lua_rawgeti(L, keys, j);
      lua_rawgeti(L, keys, j - 1);
      const bool less = key_less(L, -2, -1);
      if (!less) {
        lua_pop(L, 2);
        break;
      }
      lua_rawseti(L, keys, j);      // a[j] = a[j-1]
      lua_rawseti(L, keys, j - 1);  // a[j-1] = old a[j]
    }
  }
  lua_pushvalue(L, 1);
  lua_pushvalue(L, keys);
  lua_pushinteger(L, 1);
  lua_pushcclosure(L, sorted_pairs_step, 3);
  return 1;
}

// print(...) goes to the run's output, prefixed, through the host's sink (stdout here).
int lua_print(lua_State* L) {
  std::string line = "lua: ";
  const int n = lua_gettop(L);
  for (int i = 1; i <= n; ++i) {
    size_t len = 0;
    const char* s = luaL_tolstring(L, i, &len);
    if (i > 1) line += "\t";
    line.append(s, len);
    lua_pop(L, 1);
  }
  std::printf("%s\n", line.c_str());
  return 0;
}

}  // namespace

std::string pop_error(lua_State* L) {
  size_t len = 0;
  const char* s = lua_tolstring(L, -1, &len);
  std::string msg = s != nullptr ? std::string(s, len) : std::string("(error object is a ") + luaL_typename(L, -1) + ")";
  lua_pop(L, 1);
  return msg;
}

LuaHost::LuaHost(const LuaLimits& limits, uint64_t seed)
    : limits_(limits), rng_(sim::Rng::substream(seed, "scenario-lua")) {
  L_ = lua_newstate(&LuaHost::allocate, this);
  DST_ASSERT_MSG(L_ != nullptr, "lua_newstate failed (memory limit too small?)");
  open_sandbox(seed);
  lua_sethook(L_, &LuaHost::count_hook, LUA_MASKCOUNT, kHookEvery);
}

LuaHost::~LuaHost() {
  if (L_ != nullptr) lua_close(L_);
}

uint64_t LuaHost::instructions_used() const { return hook_calls_ * kHookEvery; }

void* LuaHost::allocate(void* ud, void* ptr, size_t old_size, size_t new_size) {
  LuaHost* h = static_cast<LuaHost*>(ud);
  const size_t old_bytes = ptr != nullptr ? old_size : 0;
  if (new_size == 0) {
    std::free(ptr);
    h->used_ -= old_bytes;
    return nullptr;
  }
  if (new_size > old_bytes && h->used_ - old_bytes + new_size > h->limits_.memory_bytes) return nullptr;
  void* p = std::realloc(ptr, new_size);
  if (p == nullptr) return nullptr;
  h->used_ = h->used_ - old_bytes + new_size;
  return p;
}

void LuaHost::count_hook(lua_State* L, lua_Debug*) {
  LuaHost* h = host_of(L);
  ++h->hook_calls_;
  if (h->instructions_used() > h->limits_.instructions)
    luaL_error(L, "the scenario ran more than %d million Lua instructions (an endless loop?)",
               static_cast<int>(h->limits_.instructions / 1'000'000));
}

void LuaHost::open_sandbox(uint64_t) {
  // Only these libraries; no io, os, package, debug, coroutine.
  const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},
                           {LUA_STRLIBNAME, luaopen_string},
                           {LUA_TABLIBNAME, luaopen_table},
                           {LUA_MATHLIBNAME, luaopen_math},
                           {LUA_UTF8LIBNAME, luaopen_utf8}};
  for (const luaL_Reg& lib : libs) {
    luaL_requiref(L_, lib.name, lib.func, 1);
    lua_pop(L_, 1);
  }
  for (const char* name : {"dofile", "loadfile", "load", "require", "collectgarbage", "next", "rawequal", "rawlen",
                           "rawget", "rawset"}) {
    lua_pushnil(L_);
    lua_setglobal(L_, name);
  }
  lua_pushcfunction(L_, lua_sorted_pairs);
  lua_setglobal(L_, "pairs");
  lua_pushcfunction(L_, lua_print);
  lua_setglobal(L_, "print");
  lua_getglobal(L_, "math");
  lua_pushlightuserdata(L_, &rng_);
  lua_pushcclosure(L_, lua_random, 1);
  lua_setfield(L_, -2, "random");
  lua_pushcfunction(L_, lua_no_reseed);
  lua_setfield(L_, -2, "randomseed");
  lua_pop(L_, 1);
  // string.dump would hand out bytecode; bytecode cannot be loaded (load is gone) but keep the
  // surface small.
  lua_getglobal(L_, "string");
  lua_pushnil(L_);
  lua_setfield(L_, -2, "dump");
  lua_pop(L_, 1);
}

Status LuaHost::protected_call(int nargs) {
  if (lua_pcall(L_, nargs, 0, 0) == LUA_OK) return Status::ok();
  return Status(StatusCode::kInvalidArgument, pop_error(L_));
}

Status LuaHost::run_string(const std::string& code, const std::string& name) {
  const std::string chunk = "@" + name;
  if (luaL_loadbufferx(L_, code.data(), code.size(), chunk.c_str(), "t") != LUA_OK)
    return Status(StatusCode::kInvalidArgument, pop_error(L_));
  return protected_call(0);
}

Status LuaHost::call_ref(int ref) {
  lua_rawgeti(L_, LUA_REGISTRYINDEX, ref);
  DST_ASSERT_EQ(lua_type(L_, -1), LUA_TFUNCTION);
  return protected_call(0);
}

}  // namespace dst::scenarios
