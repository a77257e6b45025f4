// The linearizability checker on Porcupine's kv test logs (testdata/porcupine-kv/, a copy of ../shared/testdata), with
// per-key partitioning and without (the latter under a step budget: Porcupine gives up on c50
// without partitioning after 120 s). Each benchmark records the verdict, the model steps and
// Porcupine's own time on the same file (from testdata/README.md) for the summary table.
#include <benchmark/benchmark.h>

#include <string>

#include "checker/linearizability/imported_check.h"
#include "history/import_porcupine.h"

namespace dst::checker {
namespace {

struct BenchFile {
  const char* name;
  Verdict expected;
  double porcupine_ms_partitioned;  // README: medians over 5 rounds, Go 1.19, one core
  double porcupine_ms_whole;        // 0: Porcupine gave up after 120 s
};
constexpr BenchFile kFiles[] = {
    {"c01-ok", Verdict::kLinearizable, 0.05, 0.13}, {"c01-bad", Verdict::kViolation, 0.03, 0.06},
    {"c10-ok", Verdict::kLinearizable, 0.43, 4600}, {"c10-bad", Verdict::kViolation, 0.32, 4600},
    {"c50-ok", Verdict::kLinearizable, 240, 0},     {"c50-bad", Verdict::kViolation, 33, 0},
};
// Budget for the runs without partitioning: a few seconds of search at most.
constexpr uint64_t kWholeBudgetSteps = 5'000'000;

void BM_CheckPorcupineKv(benchmark::State& state, const BenchFile& file, bool partition) {
  auto h = history::import_porcupine_kv_file(std::string(DST_TESTDATA_DIR) + "/porcupine-kv/" + file.name + ".txt");
  if (!h.is_ok()) {
    state.SkipWithError(h.status().to_string().c_str());
    return;
  }
  SearchOptions options;
  options.partition = partition;
  if (!partition) options.step_budget = kWholeBudgetSteps;
  CheckResult last;
  for (auto _ : state) {
    // No counterexample minimisation: Porcupine has none, so its times do not include one.
    Result<CheckResult> r = check_imported(*h, ImportedModel::kKv, options, /*minimize=*/false);
    if (!r.is_ok()) {
      state.SkipWithError(r.status().to_string().c_str());
      return;
    }
    last = std::move(*r);
    benchmark::DoNotOptimize(last.steps);
  }
  state.counters["ops"] = static_cast<double>(h->ops.size());
  state.counters["steps"] = static_cast<double>(last.steps);
  state.counters["verdict"] = static_cast<double>(last.verdict);  // 0 linearizable, 1 violation, 2 unknown
  state.counters["expected"] = static_cast<double>(file.expected);
  state.counters["porcupine_ms"] = partition ? file.porcupine_ms_partitioned : file.porcupine_ms_whole;
}

int register_all() {
  for (const BenchFile& f : kFiles) {
    benchmark::RegisterBenchmark((std::string("checker/") + f.name + "/partitioned").c_str(),
                                 [&f](benchmark::State& s) { BM_CheckPorcupineKv(s, f, true); })
        ->Unit(benchmark::kMillisecond);
    auto* whole = benchmark::RegisterBenchmark((std::string("checker/") + f.name + "/whole").c_str(),
                                               [&f](benchmark::State& s) { BM_CheckPorcupineKv(s, f, false); });
    whole->Unit(benchmark::kMillisecond);
    if (std::string(f.name).rfind("c01", 0) != 0) whole->Iterations(1);  // seconds each
  }
  return 0;
}
const int kRegistered = register_all();

}  // namespace
}  // namespace dst::checker
