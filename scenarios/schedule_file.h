// Reads a fault schedule written as Lua (faults/schedule_text.h; `dst schedule RUN.db` and `dst
// shrink` write them): replay{scenario=..., seed=...} once, then at most one reduce{...}, step{...}
// per step, and at most one scenario_source [==[...]==] (the scenario's text, embedded). The file
// runs in the same sandbox as a scenario, with only these functions defined (times are plain
// nanoseconds); every field is checked, and an error names the file, the line and what was
// expected.
#pragma once

#include <string>

#include "base/status.h"
#include "faults/schedule_text.h"

namespace dst::scenarios {

Result<faults::Schedule> load_schedule(const std::string& path);
// The same from the file's text, named `name` in messages.
Result<faults::Schedule> load_schedule_source(const std::string& name, const std::string& code);

}  // namespace dst::scenarios
