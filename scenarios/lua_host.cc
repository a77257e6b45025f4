#include "scenarios/lua_host.h"

#include <lua.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/assert.h"
#include "scenarios/lua_sandbox.h"

namespace dst::scenarios {

namespace {

// The count hook runs every kHookEvery VM instructions while the budget lasts, then at every one.
constexpr int kHookEvery = 10'000;

// Lua passes the type of a new object as old_size when ptr is NULL (lua_Alloc's contract).
constexpr size_t kNewStringTag = LUA_TSTRING;
// A string object's header and terminator on top of its bytes (TString; generous).
constexpr size_t kStringOverheadBytes = 64;

std::string mib_text(uint64_t bytes) {
  char buf[32];
  if (bytes >= (1u << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1u << 20));
  else std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  return buf;
}

// Lua compares strings (<, <=, table.sort) with strcoll, once per piece between NUL bytes, so
// comparing two 16 KiB strings of NULs is one instruction but 16,384 calls. Defined here, this
// strcoll is the one the Lua library calls (an executable's symbol comes before libc's), and it
// counts every call so the host charges it. dst never calls setlocale: in the C locale strcoll
// is strcmp.
uint64_t g_string_comparisons = 0;

}  // namespace

}  // namespace dst::scenarios

extern "C" int strcoll(const char* a, const char* b) noexcept {
  ++dst::scenarios::g_string_comparisons;
  return std::strcmp(a, b);
}

namespace dst::scenarios {

bool starts_with_location(std::string_view message) {
  // "x.lua:12: ..." (Lua shortens long paths to "...h/x.lua:12: ...")
  const size_t colon = message.find(": ");
  if (colon == std::string_view::npos) return false;
  const std::string_view head = message.substr(0, colon);
  const size_t last = head.rfind(':');
  if (last == std::string_view::npos || last + 1 == head.size()) return false;
  for (size_t i = last + 1; i < head.size(); ++i)
    if (head[i] < '0' || head[i] > '9') return false;
  return true;
}

std::string pop_error(lua_State* L) {
  size_t len = 0;
  const char* s = lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER ? lua_tolstring(L, -1, &len) : nullptr;
  std::string msg = s != nullptr ? std::string(s, len) : std::string("(error object is a ") + luaL_typename(L, -1) + ")";
  lua_pop(L, 1);
  return msg;
}

// Reads only the call stack (lua_getstack/lua_getinfo "Sl" allocate nothing), so the allocator may
// call it too: in Lua 5.4.4 every allocation leaves the CallInfo list and the stack valid while
// it runs (luaD_reallocstack allocates the new stack before it touches the old one). Later
// releases move the stack in place, so there the allocator does not look.
std::string lua_location(lua_State* L, int from) {
  lua_Debug ar;
  for (int level = from; level < 1000 && lua_getstack(L, level, &ar) != 0; ++level) {
    if (lua_getinfo(L, "Sl", &ar) == 0) break;
    if (ar.currentline > 0) return std::string(ar.short_src) + ":" + std::to_string(ar.currentline);
  }
  return "";
}

namespace {

// The message handler of the host's calls into Lua: an error that names no line (error("x", 0),
// error({})) gets the line it was raised at, so every error says where. (Lua calls no handler
// for a memory error; the host names that one's line itself.)
int locate_error(lua_State* L) {
  if (lua_type(L, 1) == LUA_TSTRING && starts_with_location(lua_tostring(L, 1))) return 1;
  const std::string where = lua_location(L, 1);
  const bool text = lua_type(L, 1) == LUA_TSTRING || lua_type(L, 1) == LUA_TNUMBER;
  const std::string what = text ? std::string(lua_tostring(L, 1)) : std::string("(error object is a ") + luaL_typename(L, 1) + ")";
  const std::string located = where.empty() ? what : where + ": " + what;
  lua_pushlstring(L, located.data(), located.size());
  return 1;
}

}  // namespace

int LuaHost::call_located() {
  const int fn = lua_gettop(L_);
  lua_pushcfunction(L_, locate_error);  // a light C function: allocates nothing
  lua_insert(L_, fn);
  const int status = lua_pcall(L_, 0, 0, fn);
  lua_remove(L_, fn);
  return status;
}

LuaHost::LuaHost(const LuaLimits& limits, uint64_t seed)
    : limits_(limits), rng_(sim::Rng::substream(seed, "scenario-lua")) {
  lua_State* L = lua_newstate(&LuaHost::allocate, this);
  DST_ASSERT_MSG(L != nullptr, "lua_newstate failed (memory limit too small?)");
  L_ = L;
  lua_newtable(L_);  // object -> number, weak keys: numbering an object never keeps it alive
  lua_createtable(L_, 0, 1);
  lua_pushliteral(L_, "k");
  lua_setfield(L_, -2, "__mode");
  lua_setmetatable(L_, -2);
  object_numbers_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
  open_sandbox(L_, &rng_);
  lua_sethook(L_, &LuaHost::count_hook, LUA_MASKCOUNT, kHookEvery);
}

LuaHost::~LuaHost() {
  if (L_ != nullptr) lua_close(L_);  // runs no script code: the sandbox refuses finalizers
}

LuaHost& LuaHost::of(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return *static_cast<LuaHost*>(ud);
}

void* LuaHost::allocate(void* ud, void* ptr, size_t old_size, size_t new_size) {
  LuaHost* h = static_cast<LuaHost*>(ud);
  const size_t old_bytes = ptr != nullptr ? old_size : 0;
  if (new_size == 0) {
    std::free(ptr);
    h->used_ -= old_bytes;
    return nullptr;
  }
  const bool is_string = ptr == nullptr && old_size == kNewStringTag;
  if (is_string && new_size > limits::kScenarioStringBytesMax + kStringOverheadBytes) {
    h->note_refusal(ptr, old_size, new_size, true);
    return nullptr;
  }
  if (new_size > old_bytes && h->used_ - old_bytes + new_size > h->limits_.memory_bytes) {
    h->note_refusal(ptr, old_size, new_size, false);
    return nullptr;
  }
  void* p = std::realloc(ptr, new_size);
  if (p == nullptr) return nullptr;
  h->used_ = h->used_ - old_bytes + new_size;
  if (new_size > old_bytes) {
    h->allocated_total_ += new_size - old_bytes;
    h->last_refused_.reset();  // a collection made room: the next refusal is a first one again
  }
  return p;
}

void LuaHost::note_refusal(void* ptr, size_t old_size, size_t new_size, bool is_string) {
  const Request request{ptr, old_size, new_size};
  const bool final_refusal = last_refused_ == request;
  last_refused_ = request;
  refused_bytes_ = new_size;
  refused_string_ = is_string;
#if LUA_VERSION_RELEASE_NUM <= 50404
  refused_at_ = L_ != nullptr ? lua_location(L_) : "";
#else
  refused_at_.clear();
#endif
  if (final_refusal && L_ != nullptr) finish(Exhausted::kMemory, refused_at_);
}

uint64_t LuaHost::instructions_used() const {
  return hook_instructions_ + charged_ + allocated_total_ / limits::kScenarioBytesPerInstruction;
}

uint64_t LuaHost::instructions_left() const {
  const uint64_t used = instructions_used();
  return used < limits_.instructions ? limits_.instructions - used : 0;
}

void LuaHost::take_string_comparisons() {
  charged_ += std::min(g_string_comparisons, limits_.instructions + 1);
  g_string_comparisons = 0;
}

void LuaHost::count_hook(lua_State* L, lua_Debug*) {
  LuaHost& h = of(L);
  h.hook_instructions_ += kHookEvery;
  h.take_string_comparisons();
  if (h.exhausted() || h.instructions_left() == 0) h.raise_exhausted(L, Exhausted::kInstructions, lua_location(L));
}

void LuaHost::charge(lua_State* L, uint64_t steps) {
  charged_ += std::min(steps, limits_.instructions + 1);  // one charge is enough to run out; no overflow
  take_string_comparisons();
  if (exhausted() || instructions_left() == 0) raise_exhausted(L, Exhausted::kInstructions, lua_location(L));
}

void LuaHost::charge_between_calls(uint64_t steps) {
  charged_ += std::min(steps, limits_.instructions + 1);
  if (!exhausted() && instructions_left() == 0) finish(Exhausted::kInstructions, "");
}

std::string LuaHost::memory_message(const std::string& where) const {
  const std::string prefix = (where.empty() ? chunk_ : where) + ": ";
  if (refused_string_)
    return prefix + "the scenario made a string of " + mib_text(refused_bytes_) + "; strings are limited to " +
           mib_text(limits::kScenarioStringBytesMax);
  return prefix + "the scenario needs more than " + mib_text(limits_.memory_bytes) +
         " of memory (its tables, strings and functions; " + mib_text(refused_bytes_) + " more were asked for)";
}

std::string LuaHost::budget_message(const std::string& where) const {
  return (where.empty() ? chunk_ : where) + ": the scenario ran out of its budget of " +
         std::to_string(limits_.instructions / 1'000'000) +
         " million Lua instructions (an endless loop? the budget covers the whole run: the top level and every "
         "scheduled function)";
}

void LuaHost::finish(Exhausted why, const std::string& where) {
  if (exhausted()) return;
  exhausted_ = why;
  exhausted_message_ = why == Exhausted::kMemory ? memory_message(where) : budget_message(where);
  // From now on the hook fires at every instruction: nothing the script runs gets further.
  lua_sethook(L_, &LuaHost::count_hook, LUA_MASKCOUNT, 1);
}

void LuaHost::raise_exhausted(lua_State* L, Exhausted why, const std::string& where) {
  finish(why, where);
  lua_pushlstring(L, exhausted_message_.data(), exhausted_message_.size());
  lua_error(L);
  std::abort();  // lua_error does not return
}

void LuaHost::rethrow_if_exhausted(lua_State* L, int status) {
  if (status == LUA_ERRMEM && !exhausted()) raise_exhausted(L, Exhausted::kMemory, refused_at_);
  if (exhausted()) raise_exhausted(L, exhausted_, "");
}

Status LuaHost::finish_call(int status, const std::string& chunk) {
  take_string_comparisons();
  if (status == LUA_ERRMEM) finish(Exhausted::kMemory, refused_at_.empty() ? chunk : refused_at_);
  if (exhausted()) {
    if (status != LUA_OK) lua_pop(L_, 1);
    return Status(StatusCode::kInvalidArgument, exhausted_message_);
  }
  if (status == LUA_OK) return Status::ok();
  return Status(StatusCode::kInvalidArgument, pop_error(L_));
}

Status LuaHost::run_string(const std::string& code, const std::string& name) {
  if (exhausted()) return Status(StatusCode::kInvalidArgument, exhausted_message_);
  chunk_ = name;
  g_string_comparisons = 0;  // made outside Lua: nobody's
  const std::string chunk = "@" + name;
  const int loaded = luaL_loadbufferx(L_, code.data(), code.size(), chunk.c_str(), "t");
  if (loaded != LUA_OK) {
    Status st = finish_call(loaded, name);
    // A syntax error names its line; "attempt to load a binary chunk" names nothing.
    if (!starts_with_location(st.message())) return Status(StatusCode::kInvalidArgument, name + ": " + st.message());
    return st;
  }
  return finish_call(call_located(), name);
}

Status LuaHost::call_ref(int ref) {
  if (exhausted()) return Status(StatusCode::kInvalidArgument, exhausted_message_);
  g_string_comparisons = 0;  // made outside Lua: nobody's
  lua_rawgeti(L_, LUA_REGISTRYINDEX, ref);
  DST_ASSERT_EQ(lua_type(L_, -1), LUA_TFUNCTION);
  return finish_call(call_located(), chunk_);
}

void LuaHost::release_ref(int ref) { luaL_unref(L_, LUA_REGISTRYINDEX, ref); }

void LuaHost::print_line(std::string_view line) {
  auto emit = [this](const std::string& text) {
    if (print_sink_) print_sink_(text);
    else std::printf("%s\n", text.c_str());
  };
  const size_t room = print_bytes_left();
  if (line.size() <= room) {
    printed_ += line.size();
    emit("lua: " + std::string(line));
    return;
  }
  printed_ = limits_.print_bytes;
  if (print_notice_given_) return;
  print_notice_given_ = true;
  if (room > 0) emit("lua: " + std::string(line.substr(0, room)));
  emit("lua: (print output reached its limit of " + std::to_string(limits_.print_bytes) +
       " bytes; the rest of the scenario's output is dropped)");
}

uint64_t LuaHost::object_number(lua_State* L, int idx) {
  idx = lua_absindex(L, idx);
  lua_rawgeti(L, LUA_REGISTRYINDEX, object_numbers_ref_);
  lua_pushvalue(L, idx);
  if (lua_rawget(L, -2) == LUA_TNUMBER) {
    const uint64_t n = static_cast<uint64_t>(lua_tointeger(L, -1));
    lua_pop(L, 2);
    return n;
  }
  lua_pop(L, 1);
  const uint64_t n = ++objects_numbered_;
  lua_pushvalue(L, idx);
  lua_pushinteger(L, static_cast<lua_Integer>(n));
  lua_rawset(L, -3);
  lua_pop(L, 1);
  return n;
}

}  // namespace dst::scenarios
