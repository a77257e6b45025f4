// The sandbox's string and utf8 libraries: the pattern functions on our counted matcher
// (lua_pattern.h), string.rep/byte of our own with the string and result limits, and guards in
// front of Lua's string.format (no %p, no addresses through %s), string.unpack and utf8.* that
// charge the bytes they scan. Semantics and messages follow Lua 5.4's manual.
#include <lua.hpp>

#include <climits>
#include <cstring>
#include <string>

#include "base/limits.h"
#include "scenarios/lua_host.h"
#include "scenarios/lua_pattern.h"
#include "scenarios/lua_sandbox.h"

namespace dst::scenarios {

namespace {

// Lua's relative string positions: a start index (negative counts from the end, 0 means 1).
size_t start_position(lua_Integer pos, size_t len) {
  if (pos > 0) return static_cast<size_t>(pos);
  if (pos == 0) return 1;
  if (pos < -static_cast<lua_Integer>(len)) return 1;
  return len + static_cast<size_t>(pos) + 1;
}

// An end index, clipped to [0, len].
size_t end_position(lua_Integer pos, size_t len) {
  if (pos > static_cast<lua_Integer>(len)) return len;
  if (pos >= 0) return static_cast<size_t>(pos);
  if (pos < -static_cast<lua_Integer>(len)) return 0;
  return len + static_cast<size_t>(pos) + 1;
}

std::string_view check_pattern(lua_State* L, int idx) {
  size_t len = 0;
  const char* p = luaL_checklstring(L, idx, &len);
  if (len > limits::kScenarioPatternBytesMax)
    luaL_error(L, "the pattern is %d bytes; a scenario's patterns may be at most %d", static_cast<int>(std::min<size_t>(len, INT_MAX)),
               static_cast<int>(limits::kScenarioPatternBytesMax));
  return std::string_view(p, len);
}

// One attempt of the matcher at `start`, charged; raises the matcher's error.
std::optional<size_t> counted_match(lua_State* L, PatternMatcher& m, size_t start) {
  LuaHost& host = LuaHost::of(L);
  const std::optional<size_t> end = m.match_at(start, host.instructions_left());
  host.charge(L, m.steps());  // raises if the steps ran the budget out
  if (m.failed()) luaL_error(L, "%s", m.error().c_str());
  return end;
}

// Pushes capture i (the whole match [begin, end) when there are none and i is 0).
void push_capture(lua_State* L, const PatternMatcher& m, std::string_view s, size_t i, size_t begin, size_t end) {
  if (i >= m.capture_count()) {
    if (i != 0) luaL_error(L, "invalid capture index %%%d", static_cast<int>(i + 1));
    lua_pushlstring(L, s.data() + begin, end - begin);
    return;
  }
  const PatternCapture& c = m.capture(i);
  if (c.length == PatternCapture::kUnfinished) luaL_error(L, "unfinished capture");
  if (c.length == PatternCapture::kPosition) lua_pushinteger(L, static_cast<lua_Integer>(c.begin + 1));
  else lua_pushlstring(L, s.data() + c.begin, static_cast<size_t>(c.length));
}

// Pushes every capture (or the whole match when there are none and `whole` is set).
int push_captures(lua_State* L, const PatternMatcher& m, std::string_view s, size_t begin, size_t end, bool whole) {
  const size_t n = m.capture_count() == 0 && whole ? 1 : m.capture_count();
  luaL_checkstack(L, static_cast<int>(n), "too many captures");
  for (size_t i = 0; i < n; ++i) push_capture(L, m, s, i, begin, end);
  return static_cast<int>(n);
}

// A plain search for `needle`, charged for every byte compared.
std::optional<size_t> plain_find(lua_State* L, std::string_view hay, size_t from, std::string_view needle) {
  if (needle.empty()) return from;
  if (needle.size() > hay.size() - from) return std::nullopt;
  LuaHost& host = LuaHost::of(L);
  uint64_t compared = 0;
  std::optional<size_t> found;
  for (size_t at = from; at + needle.size() <= hay.size(); ++at) {
    const void* hit = std::memchr(hay.data() + at, needle[0], hay.size() - needle.size() + 1 - at);
    if (hit == nullptr) break;
    at = static_cast<size_t>(static_cast<const char*>(hit) - hay.data());
    compared += needle.size();
    if (std::memcmp(hay.data() + at, needle.data(), needle.size()) == 0) {
      found = at;
      break;
    }
    if (compared > (1u << 20)) {  // charge as it goes, so a long search stops at the budget
      host.charge(L, compared / limits::kScenarioBytesPerInstruction);
      compared = 0;
    }
  }
  charge_bytes(L, compared + (found ? *found - from : hay.size() - from));
  return found;
}

int find_or_match(lua_State* L, bool find) {
  size_t ls = 0;
  const char* sp = luaL_checklstring(L, 1, &ls);
  const std::string_view s(sp, ls);
  size_t lp = 0;
  luaL_checklstring(L, 2, &lp);
  const size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
  if (init > ls) {
    luaL_pushfail(L);
    return 1;
  }
  if (find && (lua_toboolean(L, 4) || pattern_is_plain(std::string_view(lua_tostring(L, 2), lp)))) {
    const std::optional<size_t> at = plain_find(L, s, init, std::string_view(lua_tostring(L, 2), lp));
    if (!at) {
      luaL_pushfail(L);
      return 1;
    }
    lua_pushinteger(L, static_cast<lua_Integer>(*at + 1));
    lua_pushinteger(L, static_cast<lua_Integer>(*at + lp));
    return 2;
  }
  std::string_view p = check_pattern(L, 2);
  const bool anchor = !p.empty() && p[0] == '^';
  if (anchor) p.remove_prefix(1);
  PatternMatcher m(s, p);
  size_t start = init;
  do {
    if (const std::optional<size_t> end = counted_match(L, m, start)) {
      if (!find) return push_captures(L, m, s, start, *end, true);
      lua_pushinteger(L, static_cast<lua_Integer>(start + 1));
      lua_pushinteger(L, static_cast<lua_Integer>(*end));
      return push_captures(L, m, s, 0, 0, false) + 2;
    }
  } while (start++ < ls && !anchor);
  luaL_pushfail(L);
  return 1;
}

int str_find(lua_State* L) { return find_or_match(L, true); }
int str_match(lua_State* L) { return find_or_match(L, false); }

// gmatch's state between calls of its iterator (a full userdata without metatable).
struct GmatchState {
  size_t next;        // where the next search starts
  size_t last_match;  // end of the previous match (SIZE_MAX: none), so an empty match there is skipped
};

int gmatch_step(lua_State* L) {
  size_t ls = 0, lp = 0;
  const char* sp = lua_tolstring(L, lua_upvalueindex(1), &ls);
  const char* pp = lua_tolstring(L, lua_upvalueindex(2), &lp);
  auto* state = static_cast<GmatchState*>(lua_touserdata(L, lua_upvalueindex(3)));
  const std::string_view s(sp, ls);
  PatternMatcher m(s, std::string_view(pp, lp));
  for (size_t start = state->next; start <= ls; ++start) {
    const std::optional<size_t> end = counted_match(L, m, start);
    if (end && *end != state->last_match) {
      state->next = state->last_match = *end;
      return push_captures(L, m, s, start, *end, true);
    }
  }
  state->next = ls + 1;
  return 0;
}

int str_gmatch(lua_State* L) {
  size_t ls = 0;
  luaL_checklstring(L, 1, &ls);
  check_pattern(L, 2);
  size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
  if (init > ls) init = ls + 1;
  lua_settop(L, 2);
  auto* state = static_cast<GmatchState*>(lua_newuserdatauv(L, sizeof(GmatchState), 0));
  state->next = init;
  state->last_match = SIZE_MAX;
  lua_pushcclosure(L, gmatch_step, 3);
  return 1;
}

// gsub's replacement string: %0-%9 and %%.
void add_replacement_text(lua_State* L, luaL_Buffer* b, const PatternMatcher& m, std::string_view s, size_t begin,
                          size_t end) {
  size_t lr = 0;
  const char* r = lua_tolstring(L, 3, &lr);
  for (size_t i = 0; i < lr; ++i) {
    if (r[i] != '%') {
      luaL_addchar(b, r[i]);
      continue;
    }
    const char c = ++i < lr ? r[i] : '\0';
    if (c == '%') {
      luaL_addchar(b, '%');
    } else if (c == '0') {
      luaL_addlstring(b, s.data() + begin, end - begin);
    } else if (c >= '1' && c <= '9') {
      push_capture(L, m, s, static_cast<size_t>(c - '1'), begin, end);
      luaL_tolstring(L, -1, nullptr);  // a position capture is a number
      lua_remove(L, -2);
      luaL_addvalue(b);
    } else {
      luaL_error(L, "invalid use of '%c' in replacement string", '%');
    }
  }
}

// Adds the replacement of the match [begin, end); false if the match itself was kept.
bool add_replacement(lua_State* L, luaL_Buffer* b, const PatternMatcher& m, std::string_view s, size_t begin,
                     size_t end, int repl_type) {
  if (repl_type == LUA_TFUNCTION) {
    lua_pushvalue(L, 3);
    const int n = push_captures(L, m, s, begin, end, true);
    lua_call(L, n, 1);
  } else if (repl_type == LUA_TTABLE) {
    push_capture(L, m, s, 0, begin, end);
    lua_gettable(L, 3);
  } else {
    add_replacement_text(L, b, m, s, begin, end);
    return true;
  }
  if (!lua_toboolean(L, -1)) {  // nil or false: keep the original text
    lua_pop(L, 1);
    luaL_addlstring(b, s.data() + begin, end - begin);
    return false;
  }
  if (!lua_isstring(L, -1)) return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1)) != 0;
  luaL_addvalue(b);
  return true;
}

int str_gsub(lua_State* L) {
  size_t ls = 0;
  const char* sp = luaL_checklstring(L, 1, &ls);
  const std::string_view s(sp, ls);
  std::string_view p = check_pattern(L, 2);
  const int repl_type = lua_type(L, 3);
  const lua_Integer max_replacements = luaL_optinteger(L, 4, static_cast<lua_Integer>(ls) + 1);
  luaL_argexpected(L, repl_type == LUA_TNUMBER || repl_type == LUA_TSTRING || repl_type == LUA_TFUNCTION ||
                          repl_type == LUA_TTABLE,
                   3, "string/function/table");
  const bool anchor = !p.empty() && p[0] == '^';
  if (anchor) p.remove_prefix(1);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  PatternMatcher m(s, p);
  size_t src = 0, last_match = SIZE_MAX;
  lua_Integer n = 0;
  bool changed = false;
  while (n < max_replacements) {
    const std::optional<size_t> end = counted_match(L, m, src);
    if (end && *end != last_match) {
      ++n;
      changed = add_replacement(L, &b, m, s, src, *end, repl_type) || changed;
      src = last_match = *end;
    } else if (src < ls) {
      luaL_addchar(&b, s[src++]);
    } else {
      break;
    }
    if (luaL_bufflen(&b) > limits::kScenarioStringBytesMax)
      return luaL_error(L, "string.gsub: the result is longer than %d bytes, the longest string a scenario may make",
                        static_cast<int>(limits::kScenarioStringBytesMax));
    if (anchor) break;
  }
  if (!changed) {
    lua_pushvalue(L, 1);
  } else {
    luaL_addlstring(&b, s.data() + src, ls - src);
    luaL_pushresult(&b);
  }
  lua_pushinteger(L, n);
  return 2;
}

int str_rep(lua_State* L) {
  size_t l = 0, lsep = 0;
  const char* s = luaL_checklstring(L, 1, &l);
  const lua_Integer n = luaL_checkinteger(L, 2);
  const char* sep = luaL_optlstring(L, 3, "", &lsep);
  if (n <= 0 || l + lsep == 0) {
    lua_pushliteral(L, "");
    return 1;
  }
  const uint64_t count = static_cast<uint64_t>(n);
  const uint64_t cap = limits::kScenarioStringBytesMax;
  if (count > cap || l * count + lsep * (count - 1) > cap)
    return luaL_error(L, "string.rep: the result would be longer than %d bytes, the longest string a scenario may make",
                      static_cast<int>(cap));
  const size_t total = static_cast<size_t>(l * count + lsep * (count - 1));
  charge_bytes(L, total);
  luaL_Buffer b;
  char* out = luaL_buffinitsize(L, &b, total);
  for (uint64_t i = 0; i < count; ++i) {
    std::memcpy(out, s, l);
    out += l;
    if (i + 1 < count && lsep > 0) {
      std::memcpy(out, sep, lsep);
      out += lsep;
    }
  }
  luaL_pushresultsize(&b, total);
  return 1;
}

int str_byte(lua_State* L) {
  size_t l = 0;
  const char* s = luaL_checklstring(L, 1, &l);
  const lua_Integer pi = luaL_optinteger(L, 2, 1);
  const size_t last = end_position(luaL_optinteger(L, 3, pi), l);
  const size_t first = start_position(pi, l);
  if (first > last) return 0;
  check_result_count(L, last - first + 1, "string.byte");
  const int n = static_cast<int>(last - first + 1);
  luaL_checkstack(L, n, "string slice too long");
  for (int i = 0; i < n; ++i) lua_pushinteger(L, static_cast<unsigned char>(s[first + static_cast<size_t>(i) - 1]));
  LuaHost::of(L).charge(L, static_cast<uint64_t>(n));
  return n;
}

// string.format: %s arguments become tostring()'s text first (so a table shows as "table: #3"),
// %p is refused; then Lua's own format, charged for what it made.
int str_format_guarded(lua_State* L) {
  size_t lf = 0;
  const char* f = luaL_checklstring(L, 1, &lf);
  const int top = lua_gettop(L);
  int arg = 1;
  for (size_t i = 0; i < lf; ++i) {
    if (f[i] != '%') continue;
    if (i + 1 < lf && f[i + 1] == '%') {
      ++i;
      continue;
    }
    ++arg;
    size_t j = i + 1;
    while (j < lf && std::strchr("-+ #0123456789.", f[j]) != nullptr && f[j] != '\0') ++j;
    const char conversion = j < lf ? f[j] : '\0';
    if (conversion == 'p')
      return luaL_error(L, "string.format: '%%p' would show a memory address, which differs from run to run");
    if (conversion == 's' && arg <= top) {
      push_deterministic_text(L, arg);
      lua_replace(L, arg);
    }
    i = j;
  }
  const int results = call_original(L, "format");
  charge_bytes(L, lua_rawlen(L, -1));
  return results;
}

// string.pack, packsize and unpack read their format in C: charged for its length (and the
// data unpack reads, and what pack makes), then Lua's own.
int str_pack_guarded(lua_State* L) {
  if (lua_type(L, 1) == LUA_TSTRING) charge_bytes(L, lua_rawlen(L, 1));
  const int results = call_original(L, lua_tostring(L, lua_upvalueindex(2)));
  if (lua_type(L, -1) == LUA_TSTRING) charge_bytes(L, lua_rawlen(L, -1));
  return results;
}

int str_unpack_guarded(lua_State* L) {
  if (lua_type(L, 1) == LUA_TSTRING) charge_bytes(L, lua_rawlen(L, 1));
  if (lua_type(L, 2) == LUA_TSTRING) charge_bytes(L, lua_rawlen(L, 2));
  const int n = call_original(L, "unpack");
  check_result_count(L, static_cast<uint64_t>(n > 0 ? n - 1 : 0), "string.unpack");
  return n;
}

// utf8 functions that scan a string: charged for its length, then Lua's own.
int utf8_scan_guarded(lua_State* L) {
  if (lua_type(L, 1) == LUA_TSTRING) charge_bytes(L, lua_rawlen(L, 1));
  return call_original(L, lua_tostring(L, lua_upvalueindex(2)));
}

int utf8_codepoint_guarded(lua_State* L) {
  size_t l = 0;
  luaL_checklstring(L, 1, &l);
  const lua_Integer pi = luaL_optinteger(L, 2, 1);
  const size_t first = start_position(pi, l);
  const size_t last = end_position(luaL_optinteger(L, 3, pi), l);
  if (first <= last) check_result_count(L, last - first + 1, "utf8.codepoint");
  charge_bytes(L, first <= last ? last - first + 1 : 0);
  return call_original(L, "codepoint");
}

// utf8.codes' iterator, charged for the bytes each step skips.
int utf8_codes_step(lua_State* L) {
  const lua_Integer from = lua_tointeger(L, 2);
  const int n = call_original(L, "codes");
  const lua_Integer to = n > 0 && lua_isinteger(L, -n) ? lua_tointeger(L, -n) : static_cast<lua_Integer>(lua_rawlen(L, 1));
  charge_bytes(L, to > from ? static_cast<uint64_t>(to - from) : 0);
  return n;
}

int utf8_codes_guarded(lua_State* L) {
  const int n = call_original(L, "codes");  // iterator, s, 0
  luaL_checkstack(L, 1, "codes");
  lua_pushvalue(L, -n);
  lua_pushcclosure(L, utf8_codes_step, 1);
  lua_replace(L, -n - 1);
  return n;
}

void wrap_named(lua_State* L, const char* name, int (*fn)(lua_State*)) {
  lua_getfield(L, -1, name);
  lua_pushstring(L, name);
  lua_pushcclosure(L, fn, 2);
  lua_setfield(L, -2, name);
}

}  // namespace

void open_sandbox_string(lua_State* L) {
  lua_getglobal(L, "string");
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");  // bytecode: nothing to load it with, but keep the surface small
  const luaL_Reg own[] = {{"find", str_find}, {"match", str_match}, {"gmatch", str_gmatch},
                          {"gsub", str_gsub}, {"rep", str_rep},     {"byte", str_byte}};
  for (const luaL_Reg& r : own) {
    lua_pushcfunction(L, r.func);
    lua_setfield(L, -2, r.name);
  }
  wrap_field(L, "format", str_format_guarded);
  wrap_field(L, "unpack", str_unpack_guarded);
  wrap_named(L, "pack", str_pack_guarded);
  wrap_named(L, "packsize", str_pack_guarded);
  lua_pop(L, 1);
  lua_getglobal(L, "utf8");
  wrap_named(L, "len", utf8_scan_guarded);
  wrap_named(L, "offset", utf8_scan_guarded);
  wrap_field(L, "codepoint", utf8_codepoint_guarded);
  wrap_field(L, "codes", utf8_codes_guarded);
  lua_pop(L, 1);
}

}  // namespace dst::scenarios
