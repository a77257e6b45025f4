// The counted pattern matcher against Lua's own: the manual's examples, the errors, the limits
// (steps, depth, pattern length), and a differential test that runs string.find, match, gmatch
// and gsub on thousands of random subjects and patterns in the sandbox and in a plain Lua state
// and requires the same results and the same error messages.
#include "scenarios/lua_pattern.h"
#include "base/parse_number.h"

#include <gtest/gtest.h>

#include <lua.hpp>

#include "scenarios/lua_host.h"
#include "sim/rng.h"

namespace dst::scenarios {
namespace {

// Calls string.<fn>(args...) in L from C and describes what came back: "ok: 1 3 'ab'" or
// "error: <message>". gmatch is iterated (at most 40 matches).
std::string call_string_fn(lua_State* L, const std::string& fn, const std::vector<std::string>& args) {
  const int base = lua_gettop(L);
  lua_getglobal(L, "string");
  lua_getfield(L, -1, fn.c_str());
  lua_remove(L, -2);
  for (const std::string& a : args) {
    if (a.rfind("#", 0) == 0) lua_pushinteger(L, parse_i64(a.substr(1)).value());  // "#3": an integer
    else lua_pushlstring(L, a.data(), a.size());
  }
  std::string out;
  auto describe = [&](int from) {
    for (int i = from; i <= lua_gettop(L); ++i) {
      if (lua_type(L, i) == LUA_TNUMBER) out += " " + std::to_string(lua_tointeger(L, i));
      else if (lua_type(L, i) == LUA_TSTRING) out += " '" + std::string(lua_tostring(L, i)) + "'";
      else out += std::string(" ") + luaL_typename(L, i);
    }
  };
  if (lua_pcall(L, static_cast<int>(args.size()), LUA_MULTRET, 0) != LUA_OK) {
    out = std::string("error: ") + lua_tostring(L, -1);
    lua_settop(L, base);
    return out;
  }
  out = "ok:";
  if (fn == "gmatch") {
    const int iterator = lua_gettop(L);
    for (int n = 0; n < 40; ++n) {
      lua_pushvalue(L, iterator);
      if (lua_pcall(L, 0, LUA_MULTRET, 0) != LUA_OK) {
        out += std::string(" error: ") + lua_tostring(L, -1);
        break;
      }
      if (lua_gettop(L) == iterator) break;
      out += " [";
      describe(iterator + 1);
      out += " ]";
      lua_settop(L, iterator);
    }
  } else {
    describe(base + 1);
  }
  lua_settop(L, base);
  return out;
}

class PatternTest : public ::testing::Test {
 protected:
  PatternTest() : sandbox_({}, 1), plain_(luaL_newstate()) { luaL_openlibs(plain_); }
  ~PatternTest() override { lua_close(plain_); }
  std::string ours(const std::string& fn, const std::vector<std::string>& args) {
    return call_string_fn(sandbox_.state(), fn, args);
  }
  std::string luas(const std::string& fn, const std::vector<std::string>& args) { return call_string_fn(plain_, fn, args); }

  LuaHost sandbox_;
  lua_State* plain_;
};

TEST_F(PatternTest, TheManualsExamples) {
  EXPECT_EQ(ours("find", {"hello world", "o w"}), "ok: 5 7");
  EXPECT_EQ(ours("find", {"hello world", "(o)(r)"}), "ok: 8 9 'o' 'r'");
  EXPECT_EQ(ours("match", {"key = value", "(%w+)%s*=%s*(%w+)"}), "ok: 'key' 'value'");
  EXPECT_EQ(ours("gsub", {"hello world", "(%w+)", "%1 %1"}), "ok: 'hello hello world world' 2");
  EXPECT_EQ(ours("gsub", {"hello world", "%w+", "%0 %0", "#1"}), "ok: 'hello hello world' 1");
  EXPECT_EQ(ours("gsub", {"abc", "", "-"}), "ok: '-a-b-c-' 4");
  EXPECT_EQ(ours("match", {"THE (quick) fox", "%((%a+)%)"}), "ok: 'quick'");
  EXPECT_EQ(ours("find", {"THE (quick) fox", "%f[%a]%a+", "#5"}), "ok: 6 10");
  EXPECT_EQ(ours("match", {"x = (a(b)c) y", "%b()"}), "ok: '(a(b)c)'");
  EXPECT_EQ(ours("match", {"hello", "()ll()"}), "ok: 3 5");
  EXPECT_EQ(ours("match", {"abcabc", "(abc)%1"}), "ok: 'abc'");
  EXPECT_EQ(ours("gmatch", {"one two  three", "%a+"}), "ok: [ 'one' ] [ 'two' ] [ 'three' ]");
  EXPECT_EQ(ours("gmatch", {"abc", "x*"}), "ok: [ '' ] [ '' ] [ '' ] [ '' ]");
  EXPECT_EQ(ours("find", {"a.b", ".", "#1", "1"}), "ok: 2 2");  // plain
  EXPECT_EQ(ours("find", {"aaa", "^a", "#2"}), "ok: 2 2");
  EXPECT_EQ(ours("match", {"  x", "^x"}), "ok: nil");
  EXPECT_EQ(ours("match", {"ab", "b$"}), "ok: 'b'");
}

TEST_F(PatternTest, ErrorsAreLuas) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"a", "%"}, {"a", "[a"}, {"a", "(a"}, {"a", "a)"}, {"a", "%b"},
                                             {"a", "%f"}, {"a", "%1"}, {"aa", "(a)%2"}, {"a", "%0"}}) {
    EXPECT_EQ(ours("match", args), luas("match", args)) << args[1];
    EXPECT_EQ(ours("match", args).substr(0, 6), "error:") << args[1];
  }
  EXPECT_EQ(ours("gsub", {"abc", "b", "%2"}), luas("gsub", {"abc", "b", "%2"}));
  EXPECT_EQ(ours("gsub", {"abc", "b", "%"}), luas("gsub", {"abc", "b", "%"}));
  std::string many;
  for (int i = 0; i < 33; ++i) many += "()";
  EXPECT_EQ(ours("find", {"a", many}), "error: too many captures");
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "a?";
  EXPECT_EQ(ours("find", {"", deep}), luas("find", {"", deep}));
  std::string nested;
  for (int i = 0; i < 201; ++i) nested += "(";
  EXPECT_EQ(ours("find", {"a", nested}), luas("find", {"a", nested}));
}

TEST(PatternLimits, StepsAreCountedAndBounded) {
  const std::string subject(40, 'a');
  const std::string pattern = "a-a-a-a-a-a-a-a-a-a-b";  // polynomial of degree 10 in the subject
  PatternMatcher m(subject, pattern);
  EXPECT_FALSE(m.match_at(0, 100'000).has_value());
  EXPECT_TRUE(m.out_of_steps());
  EXPECT_EQ(m.steps(), 100'001u);
  PatternMatcher easy(subject, "a+");
  EXPECT_EQ(easy.match_at(0, 1'000), std::optional<size_t>(40));
  EXPECT_FALSE(easy.failed());
  EXPECT_LT(easy.steps(), 200u);
}

TEST(PatternLimits, TheSandboxStopsABacktrackingPatternAtTheBudget) {
  LuaHost h({.memory_bytes = 64u << 20, .instructions = 5'000'000}, 1);
  Status st = h.run_string("return string.find(string.rep('a', 60), string.rep('a-', 12) .. 'b')", "p.lua");
  EXPECT_EQ(st.message().rfind("p.lua:1: the scenario ran out of its budget of 5 million Lua instructions", 0), 0u)
      << st.message();
  LuaHost g({.memory_bytes = 64u << 20, .instructions = 5'000'000}, 1);
  st = g.run_string("return string.gsub(string.rep('a', 60), string.rep('a*', 12) .. 'b', '')", "p.lua");
  EXPECT_NE(st.message().find("ran out of its budget"), std::string::npos) << st.message();
  LuaHost long_pattern({}, 1);
  st = long_pattern.run_string("return string.match('x', string.rep('x', 5000))", "p.lua");
  EXPECT_EQ(st.message(), "p.lua:1: the pattern is 5000 bytes; a scenario's patterns may be at most 4096");
}

// Random subjects and patterns from a small alphabet that exercises every construct, run through
// both implementations; the results and the error messages must agree.
TEST_F(PatternTest, AgreesWithLuaOnRandomPatterns) {
  static const char* const kTokens[] = {"a", "b", "c", ".", "%a", "%d", "%s", "%w", "%A", "%p", "%x", "%l", "%U",
                                        "%c", "%g", "%%", "[ab]", "[^a]", "[a-c]", "[b-b]", "[%a%d]", "[]a]",
                                        "[^]]", "[a-]", "[%]]", "(", ")", "()", "*", "+", "-", "?", "^", "$",
                                        "%b()", "%bab", "%f[%a]", "%f[^a]", "%1", "%2", "%", "[", "]", "x", "1",
                                        " "};
  static const char kSubjectBytes[] = "aabbcc x1()[]%-.^$A 9\t";
  sim::Rng rng(20261201);
  int compared = 0, errors = 0, matches = 0;
  for (int round = 0; round < 8000; ++round) {
    std::string pattern;
    for (int i = 0, n = 1 + static_cast<int>(rng.uniform_u64(7)); i < n; ++i)
      pattern += kTokens[rng.uniform_u64(std::size(kTokens))];
    std::string subject;
    for (int i = 0, n = static_cast<int>(rng.uniform_u64(13)); i < n; ++i)
      subject += kSubjectBytes[rng.uniform_u64(sizeof kSubjectBytes - 1)];
    const std::string init = "#" + std::to_string(rng.uniform_int(-3, 6));
    std::vector<std::vector<std::string>> calls = {{"find", subject, pattern, init}, {"match", subject, pattern},
                                                   {"gmatch", subject, pattern}, {"gsub", subject, pattern, "<%0>"},
                                                   {"gsub", subject, pattern, "%1", "#2"}};
    for (const std::vector<std::string>& call : calls) {
      const std::vector<std::string> args(call.begin() + 1, call.end());
      const std::string expected = luas(call[0], args);
      ASSERT_EQ(ours(call[0], args), expected) << call[0] << "('" << subject << "', '" << pattern << "')";
      ++compared;
      errors += expected.rfind("error:", 0) == 0;
      matches += expected.find('\'') != std::string::npos;
    }
  }
  EXPECT_EQ(compared, 40000);
  EXPECT_GT(errors, 3000);   // the alphabet makes many malformed patterns: their messages are compared too
  EXPECT_GT(matches, 5000);  // and many that match
}

}  // namespace
}  // namespace dst::scenarios
