// `dst shrink` (issue 24): from a failing run to the smallest fault schedule that still fails the
// same check. The run is replayed from its schedule (`dst run --schedule`, exact: the unedited
// schedule gives the original trace hash) with fewer and fewer of its fault steps, by delta
// debugging (tools/shrink_search.h); every candidate is a child `dst run`, several at once with
// --jobs, and the result depends only on the input and --max-runs, never on timing. The shrunk
// schedule is run once more, recorded (run database and report), and must give the same trace
// hash as its candidate run did.
#pragma once

#include <string>
#include <vector>

namespace dst {

int shrink_command(const std::string& self, const std::vector<std::string>& argv);

}  // namespace dst
