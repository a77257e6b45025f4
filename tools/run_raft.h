// `dst run raft`: a Raft cluster under random faults, checked by the invariants and a liveness bound.
#pragma once

#include <string>
#include <vector>

namespace dst {

// `self` is argv[0] (for the reproduce command); `argv` follows "run raft". Returns an exit code.
int run_raft_command(const std::string& self, const std::vector<std::string>& argv);

}  // namespace dst
