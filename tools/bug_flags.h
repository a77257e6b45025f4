// `--bug NAMES` of dst run: comma-separated safety bugs to switch on, so a run shows the checks
// catching them: Raft's (node/raft/config.h), the node's above Raft (node/server/node_bugs.h) and
// the Kubernetes layer's (kube/kube_bugs.h),
// under their own names or the bug zoo's aliases (issue #7: vote-not-persisted, ack-before-fsync).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace dst {

struct BugSet {
  uint32_t raft = 0;  // raft::Bug bits
  uint32_t node = 0;  // node::NodeBug bits
  uint32_t kube = 0;  // kube::KubeBug bits (kube/kube_bugs.h)
  bool empty() const { return raft == 0 && node == 0 && kube == 0; }
};

// "commit-old-term,stale-read" -> the bits; the error names the bad entry and lists the valid
// names.
Result<BugSet> parse_bug_list(const std::string& names);
// The help text: every bug's name.
std::string bug_names_help();

}  // namespace dst
