// `dst schedule RUN.db`: the fault schedule a run recorded (the run database's `schedule`
// table), written out as a Lua file that `dst run --schedule FILE` replays (faults/schedule_text.h).
#pragma once

#include <string>
#include <vector>

namespace dst {

int schedule_command(const std::vector<std::string>& argv);

}  // namespace dst
