// `dst check FILE [--format run-db|jepsen|porcupine-kv] [--model etcd|register|mutex|kv] [--budget STEPS]
// [--html OUT]`: checks a recorded history and prints the verdict, the work done, the time and, for
// a violation, a small counterexample (with line numbers for imported logs). A run database
// (`dst run etcd --out DIR`) is checked with the etcd model and the watch guarantees; Jepsen
// histories with the register or mutex model, Porcupine logs with the kv model. `--html` writes the page of the history around
// the violation (reports/violation_html.h).
//
// Exit codes: 0 linearizable, 1 not linearizable, 2 bad usage or input (the message names the file,
// the line and what was expected), 3 the budget ran out without a verdict.
#pragma once

#include <string>
#include <vector>

namespace dst {

int check_command(const std::string& self, const std::vector<std::string>& argv);

}  // namespace dst
