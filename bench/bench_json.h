// `dst bench --json`: every run Google Benchmark reported, as one JSON document a script can read
// (issue 23). Numbers are plain JSON numbers (non-finite ones become null); names and errors are
// escaped JSON strings.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dst::bench {

struct BenchRecord {
  std::string name;            // e.g. "cluster/1000qps/memory/iterations:2"
  std::string run_type;        // "iteration" or "aggregate"
  std::string aggregate;       // "mean", "median", "stddev"... for aggregates, else empty
  int64_t repetition = 0;      // which repetition an iteration run was (0-based)
  int64_t iterations = 0;
  double real_time_ns = 0;     // per iteration
  double cpu_time_ns = 0;      // per iteration
  std::map<std::string, double> counters;
  std::string error;           // empty unless the run failed (SkipWithError)
};

// {"suite": ..., "ok": no run failed, "failed": [names], "runs": [...]}.
std::string bench_json(const std::string& suite, const std::vector<BenchRecord>& runs);

}  // namespace dst::bench
