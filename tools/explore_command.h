// `dst explore SCENARIO [--seed S] [--runs N] [--jobs J] [--out DIR] [--keep-going] [-- RUN ARGS]`:
// guided exploration (docs/explore.md). Runs batches of `dst run SCENARIO --seed X [--fork F]`
// children proposed by explore::Corpus (tools/explore_corpus.h) from what earlier runs reached,
// reports coverage as it grows and every violating run with its reproduce command.
//
// Exit codes as dst sweep's: 1 a run violated, crashed or timed out; else 3 a checker gave up;
// else 2 usage or scenario error; else 0.
#pragma once

#include <string>
#include <vector>

namespace dst {

int explore_command(const std::string& self, const std::vector<std::string>& argv);

}  // namespace dst
