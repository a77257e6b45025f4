// `dst run SCENARIO.lua`: a Lua scenario (scenarios/scenario.h) run with a seed, then the checkers
// its check{} asks for; the same report, run database and exit codes as `dst run etcd`.
#pragma once

#include <string>
#include <vector>

namespace dst {

int run_scenario_command(const std::string& self, const std::string& path, const std::vector<std::string>& argv);
// `dst run --schedule FILE [options]`: the scenario (and seed, bugs) the schedule names, replayed.
int run_schedule_command(const std::string& self, const std::vector<std::string>& argv);

}  // namespace dst
