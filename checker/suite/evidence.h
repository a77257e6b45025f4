// A check's first violation as plain data: what the violation page draws and lists for any check
// of the suite (check_suite.h), so that a new check gets its page without an edit in reports/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dst::checker::suite {

struct Evidence {
  std::string check;    // the suite's check name: "linearizability", "watch", "kube", ...
  std::string rule;     // the rule it broke within that check ("stale-read", "reliable", ...)
  std::string message;  // one line: what was expected and what was seen
  int64_t at_ns = -1;   // virtual time it showed (-1: not known)
  std::vector<uint64_t> ops;      // operation ids involved
  std::vector<uint64_t> watches;  // watch ids involved
  std::vector<int64_t> revisions; // revisions involved
  std::vector<std::string> lines; // the checker's evidence, one per line
};

}  // namespace dst::checker::suite
