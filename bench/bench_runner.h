// Runs the registered Google Benchmarks whose names start with a prefix ("sim/", later "raft/",
// "kv/"...) and prints, after Google Benchmark's own table, a short summary of the headline
// figures against the project's goals.
#pragma once

#include <string>
#include <vector>

namespace dst::bench {

// `args` are extra Google Benchmark flags (e.g. --benchmark_min_time=0.5). Returns an exit code.
int run_benchmarks(const std::string& prefix, const std::vector<std::string>& args);

}  // namespace dst::bench
