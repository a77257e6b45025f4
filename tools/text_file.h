// Small text-file helpers the command line's file formats share (result files, sweep and coverage
// tables): reading a whole file, splitting a line at its tabs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dst {

// The whole file; kNotFound "PATH: cannot open" when it cannot be opened.
Result<std::string> read_text_file(const std::string& path);
// "a\tb\t" -> {"a", "b", ""}: every field, empty ones included.
std::vector<std::string> split_tabs(std::string_view line);

}  // namespace dst
