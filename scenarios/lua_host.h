// A sandboxed Lua 5.4 state for scenario scripts.
//
// What a scenario may not do: read or write files, run programs, load code (io, os, package,
// require, dofile, loadfile, load, debug are gone), see the wall clock, see an address, or draw
// unseeded random numbers (math.random is replaced by a generator seeded from the run's seed).
// docs/scenarios.md ("The sandbox") lists every rule; lua_sandbox*.cc implement the library.
//
// Bounds, none of which a script can catch, handle or step around:
// - instructions: a count hook counts VM instructions, and the library's C functions charge the
//   work they do (pattern matching steps, sorting, copying, every 64 bytes allocated) against the
//   same budget. Once it runs out the scenario is over: the hook then fires at every instruction,
//   pcall/xpcall re-raise the limit's error, and an xpcall message handler is not called.
// - memory: the allocator refuses past the limit, and a single string may not grow past
//   limits::kScenarioStringBytesMax (so one instruction that compares or scans strings stays cheap).
//   Running out is not catchable either.
// - print output, results per call, pattern length (limits.h).
// Errors name the file and line: chunks are named "@<path>"; the limits' errors carry the line of
// the innermost Lua function that was running.
//
// Determinism: Lua's string hashing is seeded per process, so `pairs` and `next` would visit a
// table in an order that changes from run to run, and table.sort picks pivots from clock() and
// time(); `next` is removed, `pairs` visits keys in sorted order, and sort is our own merge sort.
// tostring/print/%s name a table or function by the order in which it was first printed
// ("table: #3"), never by its address. Finalizers (__gc) are refused: they would run at times set
// by the collector, with the hook off.
//
// The library is liblua5.4-c++ (Lua built as C++): its errors unwind as C++ exceptions, so host
// functions written in C++ run their destructors when they raise one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/limits.h"
#include "base/status.h"
#include "sim/rng.h"

struct lua_State;
struct lua_Debug;

namespace dst::scenarios {

struct LuaLimits {
  size_t memory_bytes = limits::kScenarioMemoryBytesMax;
  uint64_t instructions = limits::kScenarioInstructionsMax;  // over the whole run, callbacks included
  size_t print_bytes = limits::kScenarioPrintBytesMax;
};

// Where print() lines go ("lua: ..." on stdout unless set).
using PrintSink = std::function<void(std::string_view line)>;

class LuaHost {
 public:
  LuaHost(const LuaLimits& limits, uint64_t seed);
  ~LuaHost();
  LuaHost(const LuaHost&) = delete;
  LuaHost& operator=(const LuaHost&) = delete;

  lua_State* state() { return L_; }

  // Runs a chunk given as text (the host reads files, never the script), named `name` in
  // messages: kInvalidArgument with "name:line: message" on a syntax or runtime error or when a
  // limit ran out.
  Status run_string(const std::string& code, const std::string& name);
  // Calls the function stored in the registry at `ref` with no arguments (an at/every callback).
  Status call_ref(int ref);
  // Releases a registry reference (a one-shot callback that ran).
  void release_ref(int ref);
  void set_print_sink(PrintSink sink) { print_sink_ = std::move(sink); }

  size_t memory_used() const { return used_; }
  // VM instructions counted, work charged by the library, and allocated bytes / 64.
  uint64_t instructions_used() const;
  // True once the instruction budget or the memory ran out: the state is finished.
  bool exhausted() const { return exhausted_ != Exhausted::kNo; }

  // --- for the sandbox's C functions (lua_sandbox*.cc) ---
  static LuaHost& of(lua_State* L);
  // Charges `steps` of C-side work against the instruction budget; past it raises the limit's
  // error, naming the line of the Lua function that called.
  void charge(lua_State* L, uint64_t steps);
  // Charges `steps` while no Lua code runs (a scheduled function about to be called): past the
  // budget the state is finished and the next call returns the limit's error.
  void charge_between_calls(uint64_t steps);
  uint64_t instructions_left() const;
  // After a protected call inside the sandbox (pcall, xpcall, a wrapped library function):
  // raises the limit's error again if a limit ran out, whatever the call's status, so no script
  // can swallow it. `status` is lua_pcall's result.
  void rethrow_if_exhausted(lua_State* L, int status);
  // print(): one line, bounded by limits_.print_bytes over the host's life.
  void print_line(std::string_view line);
  size_t print_bytes_left() const { return printed_ < limits_.print_bytes ? limits_.print_bytes - printed_ : 0; }
  // A number for the table/function/userdata at `idx` that depends only on the order in which
  // objects were first asked for (1, 2, ...), never on an address.
  uint64_t object_number(lua_State* L, int idx);

 private:
  enum class Exhausted : uint8_t { kNo, kInstructions, kMemory };
  static void* allocate(void* ud, void* ptr, size_t old_size, size_t new_size);
  static void count_hook(lua_State* L, lua_Debug* ar);
  [[noreturn]] void raise_exhausted(lua_State* L, Exhausted why, const std::string& where);
  void note_refusal(void* ptr, size_t old_size, size_t new_size, bool is_string);
  // Marks the state finished (the hook then stops the next instruction) without raising.
  void finish(Exhausted why, const std::string& where);
  std::string memory_message(const std::string& where) const;
  std::string budget_message(const std::string& where) const;
  // Charges the string comparisons Lua made in C since the last time (see strcoll in lua_host.cc).
  void take_string_comparisons();
  Status finish_call(int status, const std::string& chunk);
  // lua_pcall of the function on top, with a message handler that gives every error its line.
  int call_located();

  lua_State* L_ = nullptr;
  LuaLimits limits_;
  size_t used_ = 0;
  uint64_t allocated_total_ = 0;   // bytes ever allocated: every 64 of them cost an instruction
  uint64_t hook_instructions_ = 0;
  uint64_t charged_ = 0;
  size_t printed_ = 0;
  bool print_notice_given_ = false;
  uint64_t objects_numbered_ = 0;
  int object_numbers_ref_ = 0;  // registry: a weak-keyed table object -> number
  Exhausted exhausted_ = Exhausted::kNo;
  std::string exhausted_message_;
  // The last allocation the limit refused: its size, whether it was a string, and the line of the
  // Lua function that asked (Lua retries once after a full collection before it gives up).
  // When the same request is refused twice in a row (Lua's retry after a full collection) the
  // limit is final: the state is finished then, so an error raised while the memory error
  // unwinds (a __close handler's) cannot replace it and let the script go on.
  size_t refused_bytes_ = 0;
  bool refused_string_ = false;
  struct Request {
    void* ptr = nullptr;
    size_t old_size = 0, new_size = 0;
    bool operator==(const Request&) const = default;
  };
  std::optional<Request> last_refused_;
  std::string refused_at_;
  std::string chunk_;  // the chunk being run (for messages that have no line)
  PrintSink print_sink_;
  sim::Rng rng_;
};

// Whether a message begins with "file:line: ", as Lua's runtime and syntax errors do.
bool starts_with_location(std::string_view message);
// Lua's own "what went wrong" message of a failed call on top of the stack, popped.
std::string pop_error(lua_State* L);
// "scenarios/x.lua:12", the innermost Lua function running at stack level `from` or above, or ""
// when no Lua function is running (a C function called from the host).
std::string lua_location(lua_State* L, int from = 0);

}  // namespace dst::scenarios
