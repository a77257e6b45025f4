// A small, strict command-line parser for dst's subcommands.
//
// Every flag is declared with its help text; an unknown flag, a missing value or a bad value is a
// usage error (exit 2) whose message names the flag and what was expected.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace dst::cli {

class Args {
 public:
  // `command` is for messages ("dst run").
  Args(std::string command, std::vector<std::string> argv);

  // Declarations, before parse().
  void flag(const std::string& name, const std::string& help);                     // --name
  void option(const std::string& name, const std::string& value_name, const std::string& help);  // --name V
  void positional(const std::string& name, const std::string& help, bool optional);
  // After the last positional: any number more of the same kind (`dst check FILE...`), at most
  // `max`; more is a usage error.
  void more_positionals(size_t max);

  Status parse();
  // What every subcommand does first: parse; on a usage error print it and the usage on stderr
  // and return exit code 2; on --help print the usage (and `more_help`) and return 0; otherwise
  // nullopt: go on.
  std::optional<int> parse_or_exit(const std::string& more_help = "");

  bool has(const std::string& name) const;
  std::optional<std::string> value(const std::string& name) const;
  Result<uint64_t> u64(const std::string& name, uint64_t default_value) const;
  // A duration such as 500ms or 2m, in [min, max] (0s is as much a value as 0).
  Result<int64_t> duration_ns(const std::string& name, int64_t default_value, int64_t min, int64_t max) const;
  std::optional<std::string> positional_value(const std::string& name) const;
  // The arguments beyond the declared positionals (more_positionals), in order.
  const std::vector<std::string>& more() const { return more_; }
  // Arguments after "--", passed through untouched.
  const std::vector<std::string>& passthrough() const { return passthrough_; }

  std::string usage() const;
  // Prints `message`, a blank line and the usage to stderr; returns the usage exit code (2), for
  // a command's own checks of what parse() accepted.
  int usage_error(const std::string& message) const;

 private:
  struct Spec {
    bool takes_value;
    std::string value_name;
    std::string help;
  };
  struct PositionalSpec {
    std::string name;
    std::string help;
    bool optional;
  };
  std::string command_;
  std::vector<std::string> argv_;
  std::map<std::string, Spec> specs_;
  std::vector<PositionalSpec> positional_specs_;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::string> positionals_;
  std::vector<std::string> passthrough_;
  std::vector<std::string> more_;
  size_t more_max_ = 0;
};

}  // namespace dst::cli
