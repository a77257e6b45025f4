// `dst run SCENARIO.lua`: a Lua scenario (scenarios/scenario.h) run with a seed, then the checkers
// its check{} asks for; the same report, run database and exit codes as `dst run etcd`.
#pragma once

#include <string>
#include <vector>

namespace dst {

// With `embedded`, a --schedule file's embedded scenario text (faults/schedule_text.h) is run
// instead of the file at `path` (`dst run --schedule FILE`; a scenario named on the command line
// is read from its file).
int run_scenario_command(const std::string& self, const std::string& path, const std::vector<std::string>& argv,
                         bool embedded = false);
// `dst run --schedule FILE [options]`: the scenario (and seed, bugs) the schedule names, replayed.
int run_schedule_command(const std::string& self, const std::vector<std::string>& argv);
// Whether `path` is a schedule file (a line starts with replay{, which no scenario can call), so
// that `dst run FILE` runs a shrunk schedule as `dst run --schedule FILE` does.
bool is_schedule_file(const std::string& path);

}  // namespace dst
