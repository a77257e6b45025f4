// A sandboxed Lua 5.4 state for scenario scripts.
//
// What a scenario may not do: read or write files, run programs, load code (io, os, package,
// require, dofile, loadfile, load, debug are gone), see the wall clock, or draw unseeded random
// numbers (math.random is replaced by a generator seeded from the run's seed). Bounds: a memory
// limit (the allocator refuses past it) and an instruction limit (a count hook stops the script).
// Determinism: Lua's string hashing is seeded per process, so `pairs` and `next` would visit a
// table in an order that changes from run to run; `next` is removed and `pairs` visits keys in
// sorted order (numbers ascending, then strings).
//
// Errors carry the script's file and line: chunks are named "@<path>", so a runtime error or a
// luaL_error from a host function reads "scenarios/x.lua:12: partition{}: unknown node 7; ...".
// The library is liblua5.4-c++ (Lua built as C++): its errors unwind as C++ exceptions, so host
// functions written in C++ run their destructors when they raise one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "sim/rng.h"

struct lua_State;
struct lua_Debug;

namespace dst::scenarios {

struct LuaLimits {
  size_t memory_bytes = 64u << 20;
  uint64_t instructions = 500'000'000;  // over the whole run, callbacks included
};

class LuaHost {
 public:
  LuaHost(const LuaLimits& limits, uint64_t seed);
  ~LuaHost();
  LuaHost(const LuaHost&) = delete;
  LuaHost& operator=(const LuaHost&) = delete;

  lua_State* state() { return L_; }

  // Runs a chunk given as text (the host reads files, never the script), named `name` in
  // messages: kInvalidArgument with "name:line: message" on a syntax or runtime error.
  Status run_string(const std::string& code, const std::string& name);
  // Calls the function stored in the registry at `ref` with no arguments (an at/every callback).
  Status call_ref(int ref);

  size_t memory_used() const { return used_; }
  uint64_t instructions_used() const;

 private:
  static void* allocate(void* ud, void* ptr, size_t old_size, size_t new_size);
  static void count_hook(lua_State* L, lua_Debug* ar);
  Status protected_call(int nargs);
  void open_sandbox(uint64_t seed);

  lua_State* L_ = nullptr;
  LuaLimits limits_;
  size_t used_ = 0;
  uint64_t hook_calls_ = 0;
  sim::Rng rng_;
};

// Lua's own "what went wrong" message of a failed call on top of the stack, popped.
std::string pop_error(lua_State* L);

}  // namespace dst::scenarios
