// Golden interaction tests: every testdata/*.txt script is run by InteractionEnv and its output
// compared with the expected text in the file. Set DST_REWRITE=1 to write the actual output back
// into the files (then read every diff before committing it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "node/raft/datadriven.h"
#include "node/raft/interaction_env.h"

namespace dst::raft {
namespace {

std::vector<std::string> scripts() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(DST_RAFT_TESTDATA_DIR))
    if (e.path().extension() == ".txt") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());  // directory order is unspecified
  return names;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class InteractionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(InteractionTest, MatchesGoldenOutput) {
  std::string path = std::string(DST_RAFT_TESTDATA_DIR) + "/" + GetParam();
  std::string text = read_file(path);
  auto script = datadriven::parse(path, text);
  ASSERT_TRUE(script.is_ok()) << script.status().to_string();
  ASSERT_FALSE(script->commands.empty()) << path << " has no commands";

  InteractionEnv env;
  std::vector<std::string> outputs;
  bool rewrite = std::getenv("DST_REWRITE") != nullptr;
  for (const datadriven::Command& cmd : script->commands) {
    auto out = env.handle(cmd);
    ASSERT_TRUE(out.is_ok()) << path << ": " << out.status().to_string();
    outputs.push_back(*out);
    if (!rewrite) {
      EXPECT_EQ(cmd.expected, *out) << path << ":" << cmd.line << ": output of '" << cmd.name
                                    << "' differs (DST_REWRITE=1 rewrites the file)";
    }
  }
  if (rewrite) {
    std::ofstream outfile(path, std::ios::binary | std::ios::trunc);
    outfile << datadriven::render(*script, outputs);
  }
  // Scripts that switch on a safety bug end with 'expect-violations'; all others must be clean.
  bool expects_violation = text.find("# expect: violation") != std::string::npos;
  if (expects_violation) {
    EXPECT_FALSE(env.invariants().ok()) << path << " expected an invariant violation";
  } else {
    EXPECT_TRUE(env.invariants().ok()) << path << ": " << env.invariants().violations().front();
  }
}

INSTANTIATE_TEST_SUITE_P(Scripts, InteractionTest, ::testing::ValuesIn(scripts()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.size() - 4);
                           std::replace_if(name.begin(), name.end(), [](char c) { return !isalnum(c); }, '_');
                           return name;
                         });

// Each script that expects a violation switches on a safety bug. The same script with the bug
// switched off must run clean: so the violation is caused by the removed rule and nothing else,
// and the rule has a test that fails when it is removed.
TEST(SafetyRules, EachBugScriptIsCleanWithoutTheBug) {
  std::set<std::string> bugs_exercised;
  for (const std::string& name : scripts()) {
    std::string path = std::string(DST_RAFT_TESTDATA_DIR) + "/" + name;
    std::string text = read_file(path);
    if (text.find("# expect: violation") == std::string::npos) continue;
    auto script = datadriven::parse(path, text);
    ASSERT_TRUE(script.is_ok()) << script.status().to_string();
    bool had_bug = false;
    for (datadriven::Command& cmd : script->commands) {
      auto& args = cmd.args;
      for (const auto& a : args)
        if (a.key == "bug") {
          had_bug = true;
          for (const std::string& b : a.values) bugs_exercised.insert(b);
        }
      args.erase(std::remove_if(args.begin(), args.end(), [](const datadriven::Arg& a) { return a.key == "bug"; }),
                 args.end());
    }
    EXPECT_TRUE(had_bug) << name << " expects a violation but switches on no bug";
    InteractionEnv env;
    for (const datadriven::Command& cmd : script->commands) {
      auto out = env.handle(cmd);
      ASSERT_TRUE(out.is_ok()) << name << ": " << out.status().to_string();
    }
    EXPECT_TRUE(env.invariants().ok()) << name << " without its bug: " << env.invariants().violations().front();
  }
  for (Bug b : all_bugs()) {
    if (bug_layer(b) != BugLayer::kRaft) continue;  // the member's and kube's bugs live above Raft
    EXPECT_EQ(bugs_exercised.count(std::string(bug_name(b))), 1u)
        << "no golden script shows a violation for bug " << bug_name(b);
  }
}

TEST(DataDriven, ParseErrorsNameTheLine) {
  auto r = datadriven::parse("x.txt", "add-nodes 3\nnot-a-separator\n");
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("x.txt:2"), std::string::npos) << r.status().message();
  auto u = datadriven::parse("y.txt", "cmd key=(1,2\n----\nok\n");
  ASSERT_FALSE(u.is_ok());
  EXPECT_NE(u.status().message().find("y.txt:1"), std::string::npos);
}

TEST(DataDriven, RenderRoundTrips) {
  std::string text = "# comment\n\nadd-nodes 3 voters=(1,2,3) index=10\n----\nline one\nline two\n\ncampaign 1\n----\nok\n";
  auto r = datadriven::parse("z.txt", text);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->commands.size(), 2u);
  EXPECT_EQ(r->commands[0].find("voters")->size(), 3u);
  std::vector<std::string> outs = {"line one\nline two", "ok"};
  EXPECT_EQ(datadriven::render(*r, outs), text);
}

TEST(InteractionEnv, UnknownCommandIsAnError) {
  InteractionEnv env;
  auto r = datadriven::parse("t.txt", "frobnicate 1\n----\nok\n");
  ASSERT_TRUE(r.is_ok());
  auto out = env.handle(r->commands[0]);
  ASSERT_FALSE(out.is_ok());
  EXPECT_NE(out.status().message().find("line 1"), std::string::npos);
}

}  // namespace
}  // namespace dst::raft
