// The library a scenario's Lua state gets (internal to scenarios/): the base, string, table, math
// and utf8 libraries with everything that could reach outside, leak an address, run without
// being counted or depend on the process replaced or removed. docs/scenarios.md ("The sandbox")
// is the user's list; lua_host.h says why.
//
// Three kinds of replacement:
// - our own implementation, counted as it works: pairs, print, tostring, pcall, xpcall,
//   setmetatable, math.random, table.sort/move/insert/remove/concat/unpack, string.rep/byte and
//   the pattern functions (string.find/match/gmatch/gsub, on lua_pattern.h);
// - Lua's own function behind a guard that checks or charges first and re-raises its errors with
//   the caller's line (string.format, string.unpack, tonumber, utf8.*): call_original;
// - removed: load, loadfile, dofile, require, collectgarbage, next, rawget, rawset, rawequal,
//   rawlen, warn, string.dump, math.randomseed (refused with a message).
#pragma once

#include <cstdint>

#include "sim/rng.h"

struct lua_State;

namespace dst::scenarios {

// Opens the libraries into L's globals; `rng` (math.random's stream) must outlive the state.
void open_sandbox(lua_State* L, sim::Rng* rng);

// --- shared by lua_sandbox_*.cc ---
void open_sandbox_base(lua_State* L, sim::Rng* rng);
void open_sandbox_table(lua_State* L);
void open_sandbox_string(lua_State* L);

// Calls the function in upvalue 1 with this call's arguments, protected: a limit that ran out is
// raised again, and any other error is raised again with the caller's file and line and with the
// function called `name` (Lua's own message would name neither: its caller is C). Returns the
// number of results, as a lua_CFunction does.
int call_original(lua_State* L, const char* name);
// Replaces t[name] (t at the top of the stack) with a C closure whose upvalue 1 is the old value.
void wrap_field(lua_State* L, const char* name, int (*fn)(lua_State*));
// Charges the work of scanning or copying `bytes` bytes.
void charge_bytes(lua_State* L, uint64_t bytes);
// Refuses more than limits::kScenarioResultsMax results from one call.
void check_result_count(lua_State* L, uint64_t n, const char* fn);
// Pushes the text tostring() gives for the value at idx: Lua's own for strings, numbers,
// booleans, nil and objects with __tostring; "table: #3" (or "NAME: #3" with __name) otherwise.
void push_deterministic_text(lua_State* L, int idx);

}  // namespace dst::scenarios
