// Standalone benchmark binary: `build/bench/dst_bench [prefix] [google benchmark flags]`.
// The same benchmarks run through `dst bench sim`.
#include <string>
#include <vector>

#include "bench/bench_runner.h"

int main(int argc, char** argv) {
  std::string prefix = "sim";
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i == 1 && a.rfind("--", 0) != 0) {
      prefix = a;
    } else {
      args.push_back(a);
    }
  }
  return dst::bench::run_benchmarks(prefix, args);
}
