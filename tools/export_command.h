// `dst export RUN.db --format jepsen-log [--out PATH]`: a recorded run in another tool's format.
// jepsen-log: Jepsen's log lines, one register per key (history/export_jepsen.h), which `dst
// check`, Jepsen's and Porcupine's tools read. With one key the log goes to PATH (or stdout);
// with several, PATH is a directory and each key's log is KEY.log in it (the key with / and other
// characters a file name cannot hold written as _XX).
//
// Exit codes: 0 written, 2 bad usage or input (an operation a register cannot say, named).
#pragma once

#include <string>
#include <vector>

namespace dst {

int export_command(const std::vector<std::string>& argv);

}  // namespace dst
