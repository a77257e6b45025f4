// `dst merge RESULTS_FILE... [--out FILE]`: combines the sweep.tsv files of the shards of one sweep
// (`dst sweep --shard I/N`) into one summary, the same table an unsharded sweep prints, and with
// --out writes the merged results file (itself mergeable again). Refuses, naming the file, results
// of another scenario or other run arguments, and a seed present in two files. See docs/sweep.md.
//
// Exit codes: like `dst sweep` on the merged rows (1 violation/crash/timeout, else 3 gave up, else 2
// scenario error, else 0); 2 for a usage error, an unreadable or conflicting file, or seeds the
// files' ranges cover that no file has (a shard is missing; the summary of the rest still prints).
#pragma once

#include <string>
#include <vector>

namespace dst {

int merge_command(const std::string& self, const std::vector<std::string>& argv);

}  // namespace dst
