// The sandbox: what a scenario cannot reach, limits it cannot catch, handle or step around,
// deterministic iteration, numbers and text, and errors that name the file and line. One test per
// class of escape (issue #19), each with several ways in.
#include "scenarios/lua_host.h"

#include <gtest/gtest.h>

#include <lua.hpp>

namespace dst::scenarios {
namespace {

std::string run(LuaHost& h, const std::string& code) {
  Status st = h.run_string(code, "t.lua");
  return st.is_ok() ? "ok" : st.message();
}

std::string global_string(LuaHost& h, const char* name) {
  lua_getglobal(h.state(), name);
  std::string v = lua_tostring(h.state(), -1) ? lua_tostring(h.state(), -1) : "nil";
  lua_pop(h.state(), 1);
  return v;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

constexpr LuaLimits kSmallBudget{.memory_bytes = 64u << 20, .instructions = 2'000'000, .print_bytes = 1u << 20};

TEST(LuaHost, NoFilesProgramsOrLoading) {
  LuaHost h({}, 1);
  for (const char* name : {"io", "os", "require", "dofile", "loadfile", "load", "debug", "package", "next", "rawget",
                           "rawset", "rawequal", "rawlen", "collectgarbage", "coroutine", "warn"}) {
    EXPECT_EQ(run(h, std::string("assert(") + name + " == nil, '" + name + " is reachable')"), "ok") << name;
  }
  EXPECT_EQ(run(h, "x = string.dump"), "ok");
  EXPECT_EQ(global_string(h, "x"), "nil");
  LuaHost binary({}, 1);
  EXPECT_EQ(run(binary, "\x1bLua"), "t.lua: attempt to load a binary chunk (mode is 't')");
}

TEST(LuaHost, ErrorsNameTheFileAndLine) {
  LuaHost h({}, 1);
  EXPECT_EQ(run(h, "local a = 1\nlocal b = nil\nreturn b.c"), "t.lua:3: attempt to index a nil value (local 'b')");
  EXPECT_EQ(run(h, "x = = 1"), "t.lua:1: unexpected symbol near '='");
  EXPECT_NE(run(h, "math.randomseed(3)").find("reseeding is not allowed"), std::string::npos);
  EXPECT_EQ(run(h, "\nerror({})"), "t.lua:2: (error object is a table)");
  EXPECT_EQ(run(h, "\n\nerror('no position', 0)"), "t.lua:3: no position");
  EXPECT_EQ(run(h, "error(42, 0)"), "t.lua:1: 42");
  EXPECT_EQ(run(h, "local function f() error('in f', 0) end\nf()"), "t.lua:1: in f");
}

// The instruction budget, however the script tries to get past it.
TEST(LuaHost, TheInstructionBudgetCannotBeCaughtHandledOrBypassed) {
  const std::string budget = "the scenario ran out of its budget of 2 million Lua instructions";
  for (const char* escape : {
           "\nwhile true do end",
           "\nwhile true do pcall(function() while true do end end) end",
           "\nfor i = 1, 1e9 do pcall(pcall, pcall, function() while true do end end) end",
           "\nwhile true do xpcall(function() while true do end end, function(m) return m end) end",
           "\nxpcall(function() while true do end end, function() while true do end end)",
           "\nlocal ok = pcall(function() while true do end end) while true do end",
           "\ndo local x <close> = setmetatable({}, {__close = function() while true do end end}) while true do end end",
           "\nlocal t = setmetatable({}, {__index = function(t, k) while true do end end}) return t.x",
           "\nlocal s = string.rep('a', 60) while true do s:gsub('a', function() end) end",
           "\nlocal t = {} for i = 1, 100000 do t[i] = i end for i = 1, 1e9 do table.insert(t, 1, i) end",
           "\ntable.move({}, 1, math.maxinteger - 1, 2)",
           "\nlocal t = {} for i = 1, 100000 do t['k' .. i] = i end while true do for k in pairs(t) do break end end",
           "\nlocal s = string.rep('a', 16000) while true do s:find('b', 1, true) end",
           "\nlocal t = {} for i = 1, 200000 do t[i] = -i end while true do table.sort(t) end",
           "\nwhile true do local s = string.rep('x', 16000) .. 'y' end",
           "\nwhile true do pcall(function() undefined_function() end) end",
           "\nwhile true do pcall(error, {}) end",
           // C work that reads a long argument in one call
           "\nlocal f = (' '):rep(16000) while true do string.packsize(f) end",
           "\nlocal f = (' '):rep(16000) while true do string.pack(f) end",
           "\nlocal f = (' '):rep(16000) while true do pcall(string.unpack, f, '') end",
           "\nlocal p = '[' .. ('a'):rep(4000) .. 'b]*c' local s = ('b'):rep(16000) while true do s:find(p) end",
           // Lua compares strings piece by piece between NUL bytes (strcoll, counted)
           "\nlocal a = ('\\0'):rep(16000) while true do local _ = a < a end",
           "\nlocal a = ('\\0'):rep(16000) local t = {} for i = 1, 1000 do t[i] = a end while true do table.sort(t) end",
       }) {
    LuaHost h(kSmallBudget, 1);
    const std::string e = run(h, escape);
    EXPECT_TRUE(starts_with(e, "t.lua:2: " + budget)) << escape << "\n" << e;
    EXPECT_TRUE(h.exhausted());
    EXPECT_EQ(run(h, "return 1"), e) << "the state stays finished";
  }
}

// Lua's string comparison calls strcoll once per piece between NUL bytes; the host's strcoll
// (which the Lua library calls instead of libc's) counts them.
TEST(LuaHost, StringComparisonsInCAreCharged) {
  LuaHost h({}, 1);
  ASSERT_EQ(run(h, "a = ('\\0'):rep(16000)"), "ok");
  const uint64_t before = h.instructions_used();
  ASSERT_EQ(run(h, "local _ = a < a"), "ok");
  EXPECT_GE(h.instructions_used() - before, 16000u);
}

// A __gc finalizer would run when the collector decides, with the hook off.
TEST(LuaHost, FinalizersAreRefusedAndNeverRun) {
  LuaHost h({}, 1);
  EXPECT_EQ(run(h, "setmetatable({}, {__gc = function() end})"),
            "t.lua:1: setmetatable: finalizers (__gc) are not allowed in scenarios: they would run when the garbage "
            "collector decides, outside the instruction budget");
  EXPECT_EQ(run(h, "setmetatable({}, {__gc = false})").substr(0, 31), "t.lua:1: setmetatable: finalize");
  // Added after setmetatable, a __gc is not a finalizer (Lua's rule): it never runs, even at close.
  int ran = 0;
  {
    LuaHost late({}, 1);
    lua_pushlightuserdata(late.state(), &ran);
    lua_pushcclosure(late.state(), [](lua_State* L) {
      ++*static_cast<int*>(lua_touserdata(L, lua_upvalueindex(1)));
      return 0;
    }, 1);
    lua_setglobal(late.state(), "mark");
    EXPECT_EQ(run(late, "local mt = {} keep = setmetatable({}, mt) mt.__gc = function() mark() end "
                        "for i = 1, 1000 do setmetatable({}, mt == nil and {} or {}) end"),
              "ok");
  }
  EXPECT_EQ(ran, 0);
}

TEST(LuaHost, TheMemoryCapNamesTheLineAndCannotBeCaught) {
  for (const char* grow : {"\nlocal t = {} for i = 1, 1e9 do t[i] = i end",
                           "\nlocal t = {} while true do t[#t + 1] = {} end",
                           "\nwhile true do pcall(function() local t = {} for i = 1, 1e9 do t[i] = i end end) end"}) {
    LuaHost h({.memory_bytes = 4u << 20, .instructions = 500'000'000}, 1);
    const std::string e = run(h, grow);
    EXPECT_TRUE(starts_with(e, "t.lua:2: the scenario needs more than 4.0 MiB of memory")) << grow << "\n" << e;
    EXPECT_LE(h.memory_used(), 4u << 20);
  }
  // An error raised while the memory error unwinds (a __close handler's) does not replace it.
  for (const char* swallow : {"\nprint(pcall(function() local g <close> = setmetatable({}, {__close = function() "
                              "error('swallowed', 0) end}) local s = ('x'):rep(16000) .. ('x'):rep(16000) end)) "
                              "while true do end",
                              "\nlocal t = {} pcall(function() local g <close> = setmetatable({}, {__close = function() "
                              "error('swallowed', 0) end}) while true do t[#t + 1] = {} end end) while true do end"}) {
    LuaHost h({.memory_bytes = 4u << 20, .instructions = 500'000'000}, 1);
    h.set_print_sink([](std::string_view) {});
    const std::string e = run(h, swallow);
    EXPECT_TRUE(e.find("strings are limited to") != std::string::npos || e.find("of memory") != std::string::npos)
        << swallow << "\n" << e;
  }
  LuaHost s({}, 1);
  EXPECT_EQ(run(s, "local x = 'ab'\nfor i = 1, 20 do x = x .. x end"),
            "t.lua:2: the scenario made a string of 32.0 KiB; strings are limited to 16.0 KiB");
  LuaHost rep({}, 1);
  EXPECT_EQ(run(rep, "string.rep('x', 2^40)"),
            "t.lua:1: string.rep: the result would be longer than 16384 bytes, the longest string a scenario may make");
  LuaHost concat({}, 1);
  EXPECT_NE(run(concat, "local t = {} for i = 1, 2000 do t[i] = 'abcdefghij' end return table.concat(t)")
                .find("table.concat: the result is longer than 16384 bytes"),
            std::string::npos);
}

TEST(LuaHost, NoAddressesAndTheSameTextInEveryState) {
  auto text = [](const std::string& code) {
    LuaHost h({}, 1);
    EXPECT_EQ(run(h, code), "ok");
    return global_string(h, "out");
  };
  const std::string code =
      "local f = function() end out = tostring({}) .. ' ' .. tostring(f) .. ' ' .. string.format('%s|%10s', {}, f)";
  EXPECT_EQ(text(code), "table: #1 function: #2 table: #3|function: #2");
  for (int i = 0; i < 20; ++i) EXPECT_EQ(text(code), text(code));
  LuaHost h({}, 1);
  EXPECT_EQ(run(h, "return string.format('%p', print)"),
            "t.lua:1: string.format: '%p' would show a memory address, which differs from run to run");
}

TEST(LuaHost, PrintIsBoundedAndNamesObjectsByNumber) {
  std::vector<std::string> lines;
  LuaHost h({.memory_bytes = 64u << 20, .instructions = 500'000'000, .print_bytes = 100}, 1);
  h.set_print_sink([&](std::string_view line) { lines.emplace_back(line); });
  EXPECT_EQ(run(h, "print('a', 1, nil, {}) for i = 1, 1000 do print(string.rep('x', 30)) end"), "ok");
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0], "lua: a\t1\tnil\ttable: #1");
  EXPECT_EQ(lines.back(), "lua: (print output reached its limit of 100 bytes; the rest of the scenario's output is dropped)");
  EXPECT_LE(lines.size(), 6u);
}

TEST(LuaHost, PairsVisitsKeysInSortedOrder) {
  LuaHost h({}, 1);
  EXPECT_EQ(run(h, "local t = {zeta=1, alpha=2, [3]=3, [1]=4, mid=5, [2.5]=6, [-1]=7}\n"
                   "out = '' for k, v in pairs(t) do out = out .. tostring(k) .. '=' .. v .. ' ' end"),
            "ok");
  EXPECT_EQ(global_string(h, "out"), "-1=7 1=4 2.5=6 3=3 alpha=2 mid=5 zeta=1 ");
  EXPECT_NE(run(h, "for k in pairs({[{}] = 1}) do end").find("only number and string keys"), std::string::npos);
  // Large tables iterate in n log n, not n^2.
  EXPECT_EQ(run(h, "local t = {} for i = 1, 50000 do t['k' .. i] = i end local n = 0 for k in pairs(t) do n = n + 1 end "
                   "assert(n == 50000)"),
            "ok");
}

TEST(LuaHost, RandomNumbersComeFromTheSeed) {
  auto draws = [](uint64_t seed) {
    LuaHost h({}, seed);
    EXPECT_EQ(run(h, "out = '' for i = 1, 8 do out = out .. math.random(1, 1000) .. ' ' end"), "ok");
    return global_string(h, "out");
  };
  EXPECT_EQ(draws(7), draws(7));
  EXPECT_NE(draws(7), draws(8));
}

TEST(LuaHost, InstructionsAreCountedTheSameWayEveryTime) {
  auto used = [] {
    LuaHost h({}, 3);
    EXPECT_EQ(run(h, "local t = {} for i = 1, 5000 do t[#t + 1] = tostring(i):rep(3) end table.sort(t) "
                     "local s = table.concat(t, ',', 1, 100) s:gsub('%d+', function(x) return x end)"),
              "ok");
    return h.instructions_used();
  };
  const uint64_t first = used();
  EXPECT_GT(first, 0u);
  EXPECT_EQ(used(), first);
}

}  // namespace
}  // namespace dst::scenarios
