// The argument parsing the interaction environment's command handlers share
// (interaction_env*.cc): every error names the script line and the command.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "base/parse_number.h"
#include "node/raft/datadriven.h"

namespace dst::raft::interaction {

inline Status bad(const datadriven::Command& cmd, const std::string& what) {
  return Status(StatusCode::kInvalidArgument, cmd.where() + ": " + cmd.name + ": " + what);
}

inline Result<uint64_t> parse_u64(const datadriven::Command& cmd, const std::string& s) {
  const std::optional<uint64_t> v = dst::parse_u64(s);
  if (!v) return bad(cmd, "expected a non-negative integer, got '" + s + "'");
  return *v;
}

inline Result<bool> parse_bool(const datadriven::Command& cmd, const std::string& s) {
  if (s == "true") return true;
  if (s == "false") return false;
  return bad(cmd, "expected true or false, got '" + s + "'");
}

}  // namespace dst::raft::interaction
