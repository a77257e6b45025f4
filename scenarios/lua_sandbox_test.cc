// The sandbox's own library functions against Lua's: table.insert/remove/move/concat/unpack/sort,
// string.rep/byte/format, tostring and pcall give the results and the error messages a plain Lua
// 5.4 state gives, on ordinary inputs; where they differ on purpose (sort is stable, addresses are
// numbers, limits) the tests say so.
#include "scenarios/lua_sandbox.h"

#include <gtest/gtest.h>

#include <lua.hpp>

#include "scenarios/lua_host.h"

namespace dst::scenarios {
namespace {

// Runs `code` as chunk "t.lua" and describes its results ("1 'a' true") or its error.
std::string run_chunk(lua_State* L, const std::string& code) {
  const int base = lua_gettop(L);
  if (luaL_loadbufferx(L, code.data(), code.size(), "@t.lua", "t") != LUA_OK || lua_pcall(L, 0, LUA_MULTRET, 0) != LUA_OK) {
    std::string e = std::string("error: ") + (lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
    lua_settop(L, base);
    return e;
  }
  std::string out;
  for (int i = base + 1; i <= lua_gettop(L); ++i) {
    if (!out.empty()) out += " ";
    switch (lua_type(L, i)) {
      case LUA_TSTRING: out += "'" + std::string(lua_tostring(L, i)) + "'"; break;
      case LUA_TNUMBER:
      case LUA_TBOOLEAN:
      case LUA_TNIL: out += luaL_tolstring(L, i, nullptr); lua_pop(L, 1); break;
      default: out += luaL_typename(L, i);
    }
  }
  lua_settop(L, base);
  return out;
}

class SandboxVsLua : public ::testing::Test {
 protected:
  SandboxVsLua() : host_({}, 1), plain_(luaL_newstate()) { luaL_openlibs(plain_); }
  ~SandboxVsLua() override { lua_close(plain_); }
  std::string ours(const std::string& code) { return run_chunk(host_.state(), code); }
  std::string luas(const std::string& code) { return run_chunk(plain_, code); }
  void same(const std::string& code) { EXPECT_EQ(ours(code), luas(code)) << code; }

  LuaHost host_;
  lua_State* plain_;
};

TEST_F(SandboxVsLua, TableFunctions) {
  const char* const prelude = "local t = {10, 20, 30, 40} ";
  for (const char* body :
       {"table.insert(t, 50) return table.concat(t, ',')", "table.insert(t, 1, 5) return table.concat(t, ',')",
        "table.insert(t, 5, 5) return table.concat(t, ',')", "table.insert(t, 7, 5)", "table.insert(t, 0, 5)",
        "table.insert(t, 1, 2, 3)", "table.insert(t)", "return table.remove(t), table.concat(t, ',')",
        "return table.remove(t, 1), table.concat(t, ',')", "return table.remove(t, 5), #t", "return table.remove({}), 1",
        "return table.remove({}, 0)", "return table.remove(t, 7)",
        "return table.concat(table.move(t, 2, 4, 1), ',')", "return table.concat(table.move(t, 1, 3, 2), ',')",
        "return table.concat(table.move(t, 1, 4, 3, {}), ',')", "return table.move(t, 1, math.maxinteger, 2)",
        "return table.move(t, -1, math.maxinteger, 2)", "return table.concat(t)", "return table.concat(t, '-', 2, 3)",
        "return table.concat(t, '-', 3, 2)", "return table.concat({1, 'a', 2.5})", "return table.concat({1, {}, 3})",
        "return table.concat({}, 'x', 1, 2)", "return table.unpack(t)", "return table.unpack(t, 2, 3)",
        "return table.unpack(t, 3, 2)", "return table.unpack(t, -1, 1)", "return select('#', table.unpack({}, 1, 3))",
        "table.sort(t, function(a, b) return a > b end) return table.concat(t, ',')",
        "local u = {'b', 'c', 'a', 'aa', ''} table.sort(u) return table.concat(u, ',')",
        "local u = {3, 1.5, -2, 1e300, 0} table.sort(u) return table.concat(u, ',')", "table.sort({1, 'x'})",
        "table.sort({{}, {}})", "table.sort(t, 3)", "table.sort(nil)", "return table.pack(1, 2, 3).n"}) {
    same(std::string(prelude) + body);
  }
}

TEST_F(SandboxVsLua, SortIsStableAndDeterministic) {
  // Lua's quicksort leaves equal elements in an order that depends on pivots (taken from the
  // clock on bad inputs); ours keeps them in their original order.
  const std::string code =
      "local u = {} for i = 1, 300 do u[i] = {k = i % 7, i = i} end "
      "table.sort(u, function(a, b) return a.k < b.k end) "
      "local prev_k, prev_i = -1, 0 "
      "for _, e in ipairs(u) do if e.k == prev_k and e.i < prev_i then return 'unstable' end prev_k, prev_i = e.k, e.i end "
      "return u[1].i, u[300].i";
  EXPECT_EQ(ours(code), "7 300");
}

TEST_F(SandboxVsLua, StringFunctions) {
  for (const char* body :
       {"return string.rep('ab', 3)", "return string.rep('ab', 3, ',')", "return string.rep('ab', 0)",
        "return string.rep('', 5)", "return string.rep('x', -1)", "return string.byte('abc')",
        "return string.byte('abc', 2)", "return string.byte('abc', -2, -1)", "return string.byte('abc', 5)",
        "return string.byte('abc', 0, 10)", "return string.format('%5.2f|%d|%s|%q', 3.14159, 42, 'x', 'a\\nb')",
        "return string.format('%s %s', 1, true)", "return string.format('%d', 'x')", "return string.format('%d')",
        "return string.format('%y', 1)", "return string.format('%', 1)", "return string.format('%10s|', 'ab')",
        "return ('x'):rep(3)", "return tostring(12), tostring(nil), tostring(1.5), tostring('s')",
        "return tonumber('0x10'), tonumber('z', 36), tonumber('nope')", "return tonumber()",
        "return pcall(error, 'e')", "return pcall(error)", "return select(2, pcall(error, {}))",
        "return xpcall(function() error('x') end, function(m) return 'handled: ' .. m end)",
        "return xpcall(function(a, b) return a + b end, print, 2, 3)",
        "return tostring(setmetatable({}, {__tostring = function() return 'me' end}))",
        "return utf8.len('héllo'), utf8.codepoint('héllo', 1, 3)",
        "local n = 0 for p, c in utf8.codes('añb') do n = n + c end return n", "return string.unpack('i4', string.pack('i4', 7))"}) {
    same(body);
  }
}

TEST_F(SandboxVsLua, AddressesNeverShow) {
  // Numbers in the order objects are first shown, per state.
  EXPECT_EQ(ours("local a, b = {}, {} return tostring(a), tostring(b), tostring(a)"), "'table: #1' 'table: #2' 'table: #1'");
  EXPECT_EQ(ours("return tostring(print)"), "'function: #3'");
  EXPECT_EQ(ours("return string.format('%s', setmetatable({}, {__name = 'Thing'}))"), "'Thing: #4'");
  EXPECT_EQ(ours("return string.format('%p', {})"),
            "error: t.lua:1: string.format: '%p' would show a memory address, which differs from run to run");
  EXPECT_EQ(ours("return string.format('%5p', 1)").substr(0, 29), "error: t.lua:1: string.format");
  // Two states, the same script: the same text.
  LuaHost first({}, 1), second({}, 1);
  const std::string code = "local t = {} for i = 1, 5 do t[i] = tostring({}) .. tostring(function() end) end return table.concat(t)";
  EXPECT_EQ(run_chunk(first.state(), code), run_chunk(second.state(), code));
  EXPECT_EQ(run_chunk(first.state(), "return tostring({})"), "'table: #11'");
}

TEST_F(SandboxVsLua, WrappedFunctionsKeepTheCallersLine) {
  EXPECT_EQ(ours("\nreturn string.format('%d', 'x')"),
            "error: t.lua:2: bad argument #2 to 'format' (number expected, got string)");
  EXPECT_EQ(ours("\n\nreturn utf8.codepoint('\\xff')"), "error: t.lua:3: invalid UTF-8 code");
  EXPECT_EQ(ours("return tonumber('1', 99)"), "error: t.lua:1: bad argument #2 to 'tonumber' (base out of range)");
}

TEST_F(SandboxVsLua, ResultsPerCallAreBounded) {
  EXPECT_EQ(ours("return select('#', table.unpack({}, 1, 256))"), "256");
  EXPECT_EQ(ours("return table.unpack({}, 1, 257)"),
            "error: t.lua:1: table.unpack: 257 results asked for; a library call returns at most 256 values in a scenario");
  EXPECT_EQ(ours("return string.byte(string.rep('x', 300), 1, -1)").substr(0, 31), "error: t.lua:1: string.byte: 30");
  EXPECT_EQ(ours("return table.unpack({}, 1, math.maxinteger)").substr(0, 30), "error: t.lua:1: table.unpack: ");
  // The count of math.mininteger..math.maxinteger wraps to 0 if computed as e - i + 1.
  EXPECT_EQ(ours("return table.unpack({}, math.mininteger, math.maxinteger)").substr(0, 30), "error: t.lua:1: table.unpack: ");
}

// Arithmetic at the integers' ends (UBSan checks there is no signed overflow).
TEST_F(SandboxVsLua, IntegerEndsDoNotOverflow) {
  EXPECT_EQ(ours("return math.type(math.random(0))"), "'integer'");  // all 64 bits random, as Lua 5.4 has it
  // Charged for 2^64 moves: the budget runs out at once (and the state is finished).
  const std::string r = ours("return table.remove(setmetatable({}, {__len = function() return math.maxinteger end}), "
                             "math.mininteger)");
  EXPECT_NE(r.find("ran out of its budget"), std::string::npos) << r;
}

}  // namespace
}  // namespace dst::scenarios
