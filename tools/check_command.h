// `dst check FILE [--model register|kv] [--format jepsen|porcupine-kv] [--budget STEPS]`: checks a
// history recorded by another tool for linearizability and prints the verdict, the model steps,
// the time and, for a violation, a small counterexample with line numbers.
//
// Exit codes: 0 linearizable, 1 not linearizable, 2 bad usage or input (the message names the file,
// the line and what was expected), 3 the budget ran out without a verdict.
#pragma once

#include <string>
#include <vector>

namespace dst {

int check_command(const std::string& self, const std::vector<std::string>& argv);

}  // namespace dst
