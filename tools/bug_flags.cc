#include "tools/bug_flags.h"

#include <algorithm>

#include "node/raft/config.h"

namespace dst {

Result<uint32_t> parse_bug_list(const std::string& names) {
  uint32_t bits = 0;
  size_t start = 0;
  while (start <= names.size()) {
    const size_t comma = std::min(names.find(',', start), names.size());
    Result<raft::Bug> b = raft::parse_bug(names.substr(start, comma - start));
    if (!b.is_ok()) return b.status();
    bits |= static_cast<uint32_t>(*b);
    start = comma + 1;
  }
  return bits;
}

std::string bug_names_help() {
  std::string names;
  for (raft::Bug b : raft::all_bugs()) names += (names.empty() ? "" : ", ") + std::string(raft::bug_name(b));
  return "switch on safety bugs, comma-separated: " + names;
}

}  // namespace dst
