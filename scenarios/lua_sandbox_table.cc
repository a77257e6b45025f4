// The sandbox's table library: the functions that loop in C (sort, move, insert, remove, concat,
// unpack) are our own, charged for every element they touch, so a loop of them is bounded by the
// instruction budget. sort is a stable merge sort: Lua's quicksort picks pivots from clock() and
// time() once it meets a bad partition, which would make the order of equal elements change from
// run to run. Semantics and messages otherwise follow Lua 5.4's manual.
#include <lua.hpp>

#include <algorithm>
#include <climits>

#include "scenarios/lua_host.h"
#include "scenarios/lua_sandbox.h"

namespace dst::scenarios {

namespace {

lua_Integer list_length(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  return luaL_len(L, 1);
}

void charge_elements(lua_State* L, lua_Unsigned n) { LuaHost::of(L).charge(L, n); }

int table_insert(lua_State* L) {
  const lua_Integer first_empty = luaL_intop(+, list_length(L), 1);
  lua_Integer pos = first_empty;
  switch (lua_gettop(L)) {
    case 2:
      break;
    case 3: {
      pos = luaL_checkinteger(L, 2);
      luaL_argcheck(L, static_cast<lua_Unsigned>(pos) - 1u < static_cast<lua_Unsigned>(first_empty), 2,
                    "position out of bounds");
      charge_elements(L, static_cast<lua_Unsigned>(first_empty - pos));
      for (lua_Integer i = first_empty; i > pos; --i) {  // shift up
        lua_geti(L, 1, i - 1);
        lua_seti(L, 1, i);
      }
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments to 'insert'");
  }
  lua_seti(L, 1, pos);
  return 0;
}

int table_remove(lua_State* L) {
  const lua_Integer size = list_length(L);
  lua_Integer pos = luaL_optinteger(L, 2, size);
  if (pos != size)
    luaL_argcheck(L, static_cast<lua_Unsigned>(pos) - 1u <= static_cast<lua_Unsigned>(size), 1,  // sic: Lua says #1
                  "position out of bounds");
  // In unsigned arithmetic: size - pos overflows for pos = math.mininteger.
  if (pos < size) charge_elements(L, static_cast<lua_Unsigned>(size) - static_cast<lua_Unsigned>(pos));
  lua_geti(L, 1, pos);
  for (; pos < size; ++pos) {  // shift down
    lua_geti(L, 1, pos + 1);
    lua_seti(L, 1, pos);
  }
  lua_pushnil(L);
  lua_seti(L, 1, pos);
  return 1;
}

int table_move(lua_State* L) {
  const lua_Integer f = luaL_checkinteger(L, 2);
  const lua_Integer e = luaL_checkinteger(L, 3);
  const lua_Integer t = luaL_checkinteger(L, 4);
  const int dest = lua_isnoneornil(L, 5) ? 1 : 5;
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, dest, LUA_TTABLE);
  if (e >= f) {
    luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
    const lua_Integer n = e - f + 1;
    luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
    charge_elements(L, static_cast<lua_Unsigned>(n));
    const bool forward = t > e || t <= f || (dest != 1 && !lua_compare(L, 1, dest, LUA_OPEQ));
    for (lua_Integer k = 0; k < n; ++k) {
      const lua_Integer i = forward ? k : n - 1 - k;  // overlapping to the right: from the end
      lua_geti(L, 1, f + i);
      lua_seti(L, dest, t + i);
    }
  }
  lua_pushvalue(L, dest);
  return 1;
}

int table_concat(lua_State* L) {
  lua_Integer last = list_length(L);
  size_t sep_len = 0;
  const char* sep = luaL_optlstring(L, 2, "", &sep_len);
  lua_Integer i = luaL_optinteger(L, 3, 1);
  last = luaL_optinteger(L, 4, last);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (; i <= last; ++i) {
    lua_geti(L, 1, i);
    if (!lua_isstring(L, -1))
      return luaL_error(L, "invalid value (%s) at index %I in table for 'concat'", luaL_typename(L, -1),
                        static_cast<LUAI_UACINT>(i));
    charge_bytes(L, lua_rawlen(L, -1) + sep_len);
    luaL_addvalue(&b);
    if (i != last) luaL_addlstring(&b, sep, sep_len);
    if (luaL_bufflen(&b) > limits::kScenarioStringBytesMax)
      return luaL_error(L, "table.concat: the result is longer than %d bytes, the longest string a scenario may make",
                        static_cast<int>(limits::kScenarioStringBytesMax));
    if (i == LUA_MAXINTEGER) break;
  }
  luaL_pushresult(&b);
  return 1;
}

int table_unpack(lua_State* L) {
  lua_Integer i = luaL_optinteger(L, 2, 1);
  const lua_Integer e = lua_isnoneornil(L, 3) ? luaL_len(L, 1) : luaL_checkinteger(L, 3);
  if (i > e) return 0;
  // e - i before the + 1: from math.mininteger to math.maxinteger the count wraps to 0.
  const lua_Unsigned span = static_cast<lua_Unsigned>(e) - static_cast<lua_Unsigned>(i);
  check_result_count(L, span == UINT64_MAX ? span : span + 1, "table.unpack");
  const lua_Unsigned n = span + 1;
  if (!lua_checkstack(L, static_cast<int>(n))) return luaL_error(L, "too many results to unpack");
  charge_elements(L, n);
  for (; i < e; ++i) lua_geti(L, 1, i);
  lua_geti(L, 1, e);
  return static_cast<int>(n);
}

// --- sort ---

// a < b for the values at stack positions a and b: the comparator at index 2, or Lua's `<`.
bool sort_less(lua_State* L, int a, int b) {
  a = lua_absindex(L, a);
  b = lua_absindex(L, b);
  if (lua_isnil(L, 2)) return lua_compare(L, a, b, LUA_OPLT) != 0;
  lua_pushvalue(L, 2);
  lua_pushvalue(L, a);
  lua_pushvalue(L, b);
  lua_call(L, 2, 1);
  const bool r = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return r;
}

// Merges the runs [lo, mid) and [mid, hi) of table `src` into `dst` (both 1-based arrays).
void merge_runs(lua_State* L, int src, int dst, lua_Integer lo, lua_Integer mid, lua_Integer hi) {
  lua_Integer left = lo, right = mid;
  for (lua_Integer out = lo; out < hi; ++out) {
    bool take_right = false;
    if (left < mid && right < hi) {
      lua_rawgeti(L, src, right);
      lua_rawgeti(L, src, left);
      take_right = sort_less(L, -2, -1);  // only a strictly smaller right element goes first
      lua_pop(L, 2);
    } else {
      take_right = left >= mid;
    }
    lua_rawgeti(L, src, take_right ? right++ : left++);
    lua_rawseti(L, dst, out);
  }
}

int table_sort(lua_State* L) {
  const lua_Integer n = list_length(L);
  if (n <= 1) return 0;
  luaL_argcheck(L, n < INT_MAX, 1, "array too big");
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_settop(L, 2);
  charge_elements(L, static_cast<lua_Unsigned>(n));
  lua_createtable(L, static_cast<int>(n), 0);  // 3
  lua_createtable(L, static_cast<int>(n), 0);  // 4
  for (lua_Integer i = 1; i <= n; ++i) {
    lua_geti(L, 1, i);
    lua_rawseti(L, 3, i);
  }
  int src = 3, dst = 4;
  for (lua_Integer width = 1; width < n; width *= 2) {
    charge_elements(L, static_cast<lua_Unsigned>(n));
    for (lua_Integer lo = 1; lo <= n; lo += 2 * width) {
      const lua_Integer mid = std::min(lo + width, n + 1), hi = std::min(lo + 2 * width, n + 1);
      merge_runs(L, src, dst, lo, mid, hi);
    }
    std::swap(src, dst);
  }
  for (lua_Integer i = 1; i <= n; ++i) {
    lua_rawgeti(L, src, i);
    lua_seti(L, 1, i);
  }
  return 0;
}

}  // namespace

void open_sandbox_table(lua_State* L) {
  lua_getglobal(L, "table");
  const luaL_Reg fns[] = {{"insert", table_insert}, {"remove", table_remove}, {"move", table_move},
                          {"concat", table_concat}, {"unpack", table_unpack}, {"sort", table_sort}};
  for (const luaL_Reg& r : fns) {
    lua_pushcfunction(L, r.func);
    lua_setfield(L, -2, r.name);
  }
  lua_pop(L, 1);
}

}  // namespace dst::scenarios
