// `dst sweep SCENARIO --seeds A..B [--jobs J] [--shard I/N | --shards N] [--out DIR] [--dst PATH]
// [--timeout D] [--keep-passing] [--no-run-out] [-- RUN ARGS...]`: runs `dst run SCENARIO --seed S RUN ARGS...` for
// every seed S of the range that belongs to this shard, as child processes (at most J at once), and
// summarizes their verdicts. See docs/sweep.md.
//
// Exit codes: 1 if any seed violated a guarantee (or crashed or timed out), else 3 if any checker
// gave up, else 2 on a usage error or if any seed exited 2 (scenario error), else 0.
#pragma once

#include <string>
#include <vector>

namespace dst {

// `self` is the path of the running dst binary: the children run `self run ...` unless --dst says
// otherwise.
int sweep_command(const std::string& self, const std::vector<std::string>& argv);

}  // namespace dst
