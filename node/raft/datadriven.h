// A tiny reader/writer for golden "data-driven" test scripts, in the style of etcd's raft tests:
//
//   # comment
//   command arg key=value key=(1,2,3)
//   ----
//   expected output (no blank lines)
//   <blank line>
//
// The runner produces the actual output of every command; a test compares it with the expected
// text, or (with the rewrite flag) writes the file back with the actual output in place.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dst::datadriven {

struct Arg {
  std::string key;                  // "3" for a positional argument, "voters" for voters=(1,2,3)
  std::vector<std::string> values;  // empty for a positional argument
};

struct Command {
  int line = 0;          // 1-based line of the command in the file
  std::string name;      // "add-nodes"
  std::vector<Arg> args;
  std::string expected;  // without the trailing newline
  std::vector<std::string> preamble;  // comment and blank lines before the command, kept on rewrite

  // Positional arguments in order.
  std::vector<std::string> positional() const;
  // The values of key=..., or nullopt when absent.
  std::optional<std::vector<std::string>> find(std::string_view key) const;
  std::string where() const { return "line " + std::to_string(line); }
};

struct Script {
  std::vector<Command> commands;
  std::vector<std::string> trailer;  // comment and blank lines after the last command
};

// Parses a whole file; the error names the file and line of the first problem.
Result<Script> parse(std::string_view file_name, std::string_view text);
// The file again, with `outputs[i]` as the expected output of command i.
std::string render(const Script& script, const std::vector<std::string>& outputs);

}  // namespace dst::datadriven
