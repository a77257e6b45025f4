#include "tools/bug_flags.h"

#include <algorithm>
#include <string_view>

#include "node/raft/config.h"
#include "kube/kube_bugs.h"
#include "node/server/node_bugs.h"

namespace dst {

namespace {

// The bug zoo's names (issue #7) for bugs that already had one.
struct Alias {
  std::string_view alias;
  std::string_view name;
};
constexpr Alias kAliases[] = {
    {"vote-not-persisted", "vote-before-persist"},
    {"ack-before-fsync", "ack-before-persist"},
};

std::string_view resolve(std::string_view name) {
  for (const Alias& a : kAliases)
    if (a.alias == name) return a.name;
  return name;
}

}  // namespace

Result<BugSet> parse_bug_list(const std::string& names) {
  BugSet bugs;
  size_t start = 0;
  while (start <= names.size()) {
    const size_t comma = std::min(names.find(',', start), names.size());
    const std::string_view name = resolve(std::string_view(names).substr(start, comma - start));
    if (Result<raft::Bug> r = raft::parse_bug(name); r.is_ok()) {
      bugs.raft |= static_cast<uint32_t>(*r);
    } else if (Result<node::NodeBug> n = node::parse_node_bug(name); n.is_ok()) {
      bugs.node |= static_cast<uint32_t>(*n);
    } else if (Result<kube::KubeBug> k = kube::parse_kube_bug(name); k.is_ok()) {
      bugs.kube |= static_cast<uint32_t>(*k);
    } else {
      return Status(StatusCode::kInvalidArgument, "unknown bug '" + std::string(name) + "'; expected one of: " +
                                                      bug_names_help().substr(bug_names_help().find(':') + 2));
    }
    start = comma + 1;
  }
  return bugs;
}

std::string bug_names_help() {
  std::string names;
  for (raft::Bug b : raft::all_bugs()) names += (names.empty() ? "" : ", ") + std::string(raft::bug_name(b));
  for (node::NodeBug b : node::all_node_bugs()) names += ", " + std::string(node::node_bug_name(b));
  for (kube::KubeBug b : kube::all_kube_bugs()) names += ", " + std::string(kube::kube_bug_name(b));
  for (const Alias& a : kAliases) names += ", " + std::string(a.alias);
  return "switch on safety bugs, comma-separated: " + names;
}

}  // namespace dst
