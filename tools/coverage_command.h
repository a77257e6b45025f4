// `dst coverage COVERAGE_FILE... [--markdown TITLE] [--must-reach FILE]`: adds up the coverage.tsv
// files of several sweeps (of any scenarios: a suite), prints how much of the catalogue they
// reached and what none did, or with --markdown the whole table (docs/coverage.md: each name, its
// meaning, the seeds that reached it and where it was first reached, "<sweep dir>:<seed>").
// --must-reach FILE names coverage names (one per line, '#' comments) the files must reach
// between them. Exit: 0; 1 a --must-reach name was reached by no sweep; 2 usage or a bad file.
#pragma once

#include <string>
#include <vector>

namespace dst {

int coverage_command(const std::vector<std::string>& argv);

}  // namespace dst
