// Runs the registered Google Benchmarks whose names start with a prefix ("sim/", later "raft/",
// "kv/"...) and prints, after Google Benchmark's own table, a short summary of the headline
// figures against the project's goals.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace dst::bench {

// Registers benchmarks that run only with `--large` (minutes, gigabytes: e.g. the checker on a
// 1M-operation history). Called at static initialization by the benchmark files.
void add_large_benchmarks(std::function<void()> registrar);

// `args` are extra Google Benchmark flags (e.g. --benchmark_min_time=0.5). Returns an exit code.
int run_benchmarks(const std::string& prefix, const std::vector<std::string>& args);

}  // namespace dst::bench
