// The random nemesis's log (SimCluster::fault_log, "t=1.234s crash n2 power-loss") as fault
// windows for the run database and the report's shading: each action is paired with the one that
// undoes it (a partition or cut with the next heal or partition, a crash with the member's restart,
// a pause with its resume, a slow fsync with the normal one, message loss with the next loss
// setting); what is still open at `heal_ns` (the harness's final heal) ends there. Arming a fault
// point and failing the next fsync are instants. The heals themselves are not faults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/history.h"

namespace dst::world {

std::vector<history::Fault> pair_nemesis_log(const std::vector<std::string>& log, int64_t heal_ns);

}  // namespace dst::world
