// A small stand-in for spf13/pflag, the flag parser under etcdctl's cobra commands: long flags
// (--rev=5, --rev 5), shorthands (-w json, -wjson, -w=json), booleans (--prefix, --prefix=false),
// flags anywhere among the positional arguments, and "--" ending the flags. Error texts are
// pflag's ("unknown flag: --foo", "flag needs an argument: --rev", ...), so `dst shell` answers
// a mistyped line the way etcdctl would.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dst::etcdctl {

// kDuration: Go's time.ParseDuration text. kStringSlice: comma-separated values; given again, the
// new values are added to the earlier ones (pflag's stringSlice).
enum class FlagKind { kBool, kInt64, kString, kDuration, kStringSlice };

struct FlagSpec {
  std::string_view name;  // without the leading "--"
  char shorthand = 0;     // 0: none
  FlagKind kind = FlagKind::kBool;
};

class ParsedFlags {
 public:
  bool has(std::string_view name) const { return values_.count(std::string(name)) != 0; }
  // Defaults apply when the flag was not given. Values were validated while parsing.
  bool get_bool(std::string_view name) const;
  int64_t get_int(std::string_view name, int64_t fallback = 0) const;
  std::string get_string(std::string_view name, std::string_view fallback = "") const;
  int64_t get_duration_ns(std::string_view name, int64_t fallback) const;
  // Every value given, in order (empty when the flag was not given).
  std::vector<std::string> get_slice(std::string_view name) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  friend Result<ParsedFlags> parse_flags(const std::vector<std::string>& args, const std::vector<FlagSpec>& specs);
  std::map<std::string, std::string> values_;  // long name -> last given value
  std::vector<std::string> positional_;
};

// Parses args against specs. Bool flags store "true"/"false"; int flags must be base-10 int64.
Result<ParsedFlags> parse_flags(const std::vector<std::string>& args, const std::vector<FlagSpec>& specs);

}  // namespace dst::etcdctl
