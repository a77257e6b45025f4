// `--bug NAMES` of dst run: comma-separated Raft safety bugs (node/raft/config.h) to switch on, so a
// run shows the checks catching them.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace dst {

// "commit-old-term,vote-before-persist" -> raft::Bug bits; the error names the bad entry and lists
// the valid names.
Result<uint32_t> parse_bug_list(const std::string& names);
// The help text: every bug's name.
std::string bug_names_help();

}  // namespace dst
