// The sandbox: what a scenario cannot reach, the limits, deterministic iteration and random
// numbers, and errors that name the file and line.
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

TEST(LuaHost, NoFilesProgramsOrLoading) {
  LuaHost h({}, 1);
  for (const char* name : {"io", "os", "require", "dofile", "loadfile", "load", "debug", "package", "next"}) {
    EXPECT_EQ(run(h, std::string("assert(") + name + " == nil, '" + name + " is reachable')"), "ok") << name;
  }
  EXPECT_EQ(run(h, "x = string.dump"), "ok");
  EXPECT_EQ(global_string(h, "x"), "nil");
}

TEST(LuaHost, ErrorsNameTheFileAndLine) {
  LuaHost h({}, 1);
  EXPECT_EQ(run(h, "local a = 1\nlocal b = nil\nreturn b.c"), "t.lua:3: attempt to index a nil value (local 'b')");
  EXPECT_EQ(run(h, "x = = 1"), "t.lua:1: unexpected symbol near '='");
  EXPECT_NE(run(h, "math.randomseed(3)").find("reseeding is not allowed"), std::string::npos);
}

TEST(LuaHost, InstructionAndMemoryLimits) {
  LuaHost loop({.memory_bytes = 64u << 20, .instructions = 1'000'000}, 1);
  EXPECT_NE(run(loop, "while true do end").find("more than 1 million Lua instructions"), std::string::npos);
  LuaHost mem({.memory_bytes = 4u << 20, .instructions = 500'000'000}, 1);
  EXPECT_NE(run(mem, "local t = {} for i = 1, 1e7 do t[i] = i end").find("not enough memory"), std::string::npos);
  EXPECT_LE(mem.memory_used(), 4u << 20);
}

TEST(LuaHost, PairsVisitsKeysInSortedOrder) {
  LuaHost h({}, 1);
  EXPECT_EQ(run(h, "local t = {zeta=1, alpha=2, [3]=3, [1]=4, mid=5}\n"
                   "out = '' for k, v in pairs(t) do out = out .. tostring(k) .. '=' .. v .. ' ' end"),
            "ok");
  EXPECT_EQ(global_string(h, "out"), "1=4 3=3 alpha=2 mid=5 zeta=1 ");
  EXPECT_NE(run(h, "for k in pairs({[{}] = 1}) do end").find("only number and string keys"), std::string::npos);
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

}  // namespace
}  // namespace dst::scenarios
