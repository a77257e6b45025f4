// `dst shell`: the command-line front of ShellSession (tools/shell_session.h).
#pragma once

#include <string>
#include <vector>

namespace dst {

int shell_command(const std::string& self, const std::vector<std::string>& argv);

}  // namespace dst
