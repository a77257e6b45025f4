// See bench_runner.h.
#include "bench/bench_runner.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <iostream>
#include <map>

#include "bench/bench_json.h"

namespace dst::bench {

namespace {

// Console output as usual, plus the numbers the summary needs.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) records_.push_back(record(run));
    for (const Run& run : runs) {
      // With --benchmark_repetitions the summary shows the fastest repetition: on a shared,
      // noisy machine that is the figure closest to the code's own cost. Means, medians and
      // deviations are in the console table above it.
      if (run.error_occurred || run.iterations == 0 || run.run_type == Run::RT_Aggregate) continue;
      const std::string name = run.benchmark_name();
      // Per item where the benchmark counts items (one iteration may be many round trips).
      auto items = run.counters.find("items_per_second");
      const double ns = items != run.counters.end() && items->second.value > 0
                            ? 1e9 / items->second.value
                            : run.GetAdjustedRealTime() * multiplier(run.time_unit);
      auto [it, fresh] = ns_per_item_.emplace(name, ns);
      if (!fresh && ns >= it->second) continue;
      it->second = ns;
      for (const auto& [key, counter] : run.counters) counters_[name + ":" + key] = counter.value;
    }
  }

  const std::vector<BenchRecord>& records() const { return records_; }

  void print_summary() const {
    if (print_checker_summary()) return;
    if (print_cluster_summary()) return;
    if (auto it = ns_per_item_.find("kv/apply/3"); it != ns_per_item_.end()) {
      std::printf("\nsummary (issue #4):\n");
      std::printf("  %-30s %12.1f k requests per wall s\n", "kv/apply/3", 1e9 / it->second / 1e3);
      auto v = counters_.find("kv/apply/3:virtual_requests_per_s");
      if (v != counters_.end()) std::printf("  %-30s %12.0f requests per virtual s\n", "kv/apply/3", v->second);
      return;
    }
    if (ns_per_item_.count("raft/commit/3") || ns_per_item_.count("raft/commit/5")) {
      std::printf("\nsummary (issue #3):\n");
      for (const char* n : {"raft/commit/3", "raft/commit/5"}) {
        auto it = ns_per_item_.find(n);
        if (it != ns_per_item_.end())
          std::printf("  %-30s %12.1f k committed entries per wall s\n", n, 1e9 / it->second / 1e3);
      }
      for (const char* n : {"raft/commit/3", "raft/commit/5"}) {
        auto it = counters_.find(std::string(n) + ":virtual_commits_per_s");
        if (it != counters_.end()) std::printf("  %-30s %12.0f commits per virtual s\n", n, it->second);
      }
      return;
    }
    std::printf("\nsummary (goals from issue #2):\n");
    print_ns("fiber switch round trip", "sim/fiber_switch_round_trip", 40.0);
    print_ns("raw Boost.Context round trip", "sim/raw_context_round_trip", 0);
    // The goal was set when the raw round trip measured 12 ns here; the ratio, taken within this
    // run, says how the code compares when the shared machine is slower or faster than then.
    auto fiber = ns_per_item_.find("sim/fiber_switch_round_trip");
    auto raw = ns_per_item_.find("sim/raw_context_round_trip");
    if (fiber != ns_per_item_.end() && raw != ns_per_item_.end() && raw->second > 0) {
      const double ratio = fiber->second / raw->second;
      std::printf("  %-30s %12.2fx   (goal 40 ns at a 12 ns raw round trip: <= %.2fx, %s)\n",
                  "fiber / raw round trip", ratio, 40.0 / 12.0, ratio <= 40.0 / 12.0 ? "met" : "NOT met");
    }
    print_ns("yield via the scheduler", "sim/yield_via_scheduler", 0);
    print_rate("scheduler events", "sim/scheduler_events", 5e6);
    print_rate("fiber sleep events", "sim/fiber_sleep_events", 0);
    print_rate("network datagrams", "sim/network_datagrams", 0);
    print_rate("network stream messages", "sim/network_stream_messages", 0);
    auto it = counters_.find("sim/demo_world_10s:virtual_s_per_wall_s");
    if (it != counters_.end()) {
      std::printf("  %-30s %12.0f virtual s per wall s\n", "demo world", it->second);
    }
  }

 private:
  static BenchRecord record(const Run& run) {
    BenchRecord r;
    r.name = run.benchmark_name();
    r.run_type = run.run_type == Run::RT_Aggregate ? "aggregate" : "iteration";
    r.aggregate = run.run_type == Run::RT_Aggregate ? run.aggregate_name : "";
    r.repetition = run.repetition_index;
    r.iterations = run.iterations;
    r.real_time_ns = run.GetAdjustedRealTime() * multiplier(run.time_unit);
    r.cpu_time_ns = run.GetAdjustedCPUTime() * multiplier(run.time_unit);
    for (const auto& [key, counter] : run.counters) r.counters[key] = counter.value;
    if (run.error_occurred) r.error = run.error_message.empty() ? "failed" : run.error_message;
    return r;
  }

  // `dst bench checker`: our time and steps next to Porcupine's on each file (issue #5).
  bool print_checker_summary() const {
    bool any = false;
    for (const auto& [name, ns] : ns_per_item_) {
      if (name.rfind("checker/", 0) != 0 || name.rfind(kHistoryScale, 0) == 0 || name.rfind(kSets, 0) == 0) continue;
      if (!any) {
        std::printf("\nsummary (issue #5: >= 10x faster than Porcupine, same verdicts):\n");
        std::printf("  %-28s %6s %-13s %10s %10s %12s %9s\n", "benchmark", "ops", "verdict", "ms", "steps",
                    "porcupine ms", "speed-up");
        any = true;
      }
      // (clang 14 cannot capture a structured binding; a named copy of the key it can)
      auto counter = [&, prefix = name + ":"](const char* key) {
        auto it = counters_.find(prefix + key);
        return it == counters_.end() ? -1.0 : it->second;
      };
      static const char* kVerdicts[] = {"linearizable", "violation", "unknown"};
      const int v = static_cast<int>(counter("verdict"));
      const bool as_expected = v == static_cast<int>(counter("expected"));
      const double ms = ns / 1e6;
      const double porcupine = counter("porcupine_ms");
      char speedup[32];
      if (porcupine > 0) std::snprintf(speedup, sizeof speedup, "%.1fx", porcupine / ms);
      else std::snprintf(speedup, sizeof speedup, "(gave up)");
      std::printf("  %-28s %6.0f %-13s %10.4f %10.0f %12s %9s\n", name.c_str(), counter("ops"),
                  v >= 0 && v <= 2 ? kVerdicts[v] : "?", ms, counter("steps"),
                  porcupine > 0 ? std::to_string(porcupine).substr(0, std::to_string(porcupine).find('.') + 3).c_str()
                                : "> 120000",
                  speedup);
      if (!as_expected && v != 2) std::printf("  ^ WRONG VERDICT\n");
    }
    const bool sets = print_set_summary();
    return print_history_scale_summary() || sets || any;
  }
  // Sets of small Jepsen register histories next to Porcupine on the same files (issue 25).
  static constexpr const char* kSets = "checker/sets/";
  bool print_set_summary() const {
    bool any = false;
    for (const auto& [name, ns] : ns_per_item_) {
      if (name.rfind(kSets, 0) != 0) continue;
      auto counter = [&, prefix = name + ":"](const char* key) {
        auto it = counters_.find(prefix + key);
        return it == counters_.end() ? -1.0 : it->second;
      };
      if (!any) {
        std::printf("\nsummary (issue #25: same verdicts as Porcupine; verdicts >= 10x faster, verdict + explanation "
                    ">= 3x faster than Porcupine's verdict; sums of per-file medians):\n");
        std::printf("  %-44s %6s %5s %8s %12s %14s %13s %9s %13s %11s\n", "set", "files", "fail", "gave up", "verdict ms",
                    "+ explain ms", "porcupine ms", "verdicts", "+ explain", "disagree");
        any = true;
      }
      const double porcupine = counter("porcupine_ms"), verdict = counter("verdict_ms"),
                   explained = counter("explained_ms");
      char ratio_v[32] = "-", ratio_e[32] = "-";
      if (porcupine > 0) {
        std::snprintf(ratio_v, sizeof ratio_v, "%.1fx", porcupine / verdict);
        std::snprintf(ratio_e, sizeof ratio_e, "%.1fx", porcupine / explained);
      }
      std::printf("  %-44s %6.0f %5.0f %8.0f %12.2f %14.2f %13.2f %9s %13s %11.0f\n", name.c_str(), counter("files"),
                  counter("violations"), counter("gave_up"), verdict, explained, porcupine, ratio_v, ratio_e,
                  counter("disagreements"));
      if (porcupine <= 0) std::printf("  ^ no Porcupine helper: build it with ci/porcupine-helper.sh PORCUPINE_DIR\n");
      if (counter("disagreements") > 0) std::printf("  ^ VERDICTS DIFFER FROM PORCUPINE'S\n");
    }
    return any;
  }
  // The checkers on long recorded histories: time and memory per size (issue 23).
  static constexpr const char* kHistoryScale = "checker/etcd_history/";
  bool print_history_scale_summary() const {
    bool any = false;
    for (const auto& [name, ns] : ns_per_item_) {
      if (name.rfind(kHistoryScale, 0) != 0) continue;
      auto counter = [&, prefix = name + ":"](const char* key) {
        auto it = counters_.find(prefix + key);
        return it == counters_.end() ? 0.0 : it->second;
      };
      if (!any) {
        std::printf("\nsummary (issue #23: long histories, near-linear growth; 1M ops < 60 s and < 4 GB):\n");
        std::printf("  %-34s %9s %12s %10s %10s %9s %12s\n", "benchmark", "ops", "watch events", "etcd s",
                    "watch s", "us/op", "peak RSS MB");
        any = true;
      }
      std::printf("  %-34s %9.0f %12.0f %10.2f %10.2f %9.2f %12.0f\n", name.c_str(), counter("ops"),
                  counter("watch_events"), counter("lin_check_s"), counter("watch_check_s"), counter("us_per_op"),
                  counter("peak_rss_mb"));
    }
    return any;
  }
  // `dst bench cluster`: how much faster than real time, and where the wall time goes (issue #6).
  bool print_cluster_summary() const {
    bool any = false;
    for (const auto& [name, ns] : ns_per_item_) {
      if (name.rfind("cluster/", 0) != 0) continue;
      auto counter = [&, prefix = name + ":"](const char* key) {
        auto it = counters_.find(prefix + key);
        return it == counters_.end() ? 0.0 : it->second;
      };
      if (!any) std::printf("\nsummary (issue #6: >= 100x real time at 1,000 QPS with watches and recording):\n");
      any = true;
      const double x = counter("x_realtime");
      const double sim = counter("sim_wall_s"), lin = counter("lin_check_wall_s"), watch = counter("watch_check_wall_s");
      const double total = sim + lin + watch;
      std::printf("  %-24s %6.0fx real time (goal >= 100x: %s); %.0f ops and %.0f watch events in %.1f virtual s\n",
                  name.c_str(), x, x >= 100 ? "met" : "NOT met", counter("ops"), counter("watch_events"),
                  counter("virtual_s"));
      std::printf("  %-24s %6.0f checked ops per wall s; wall %.2fs = simulate %.0f%% + linearizability %.0f%% + watch %.0f%%\n",
                  "", counter("checked_ops_per_s"), total, 100 * sim / total, 100 * lin / total, 100 * watch / total);
    }
    return any;
  }
  static double multiplier(benchmark::TimeUnit unit) {
    switch (unit) {
      case benchmark::kNanosecond: return 1;
      case benchmark::kMicrosecond: return 1e3;
      case benchmark::kMillisecond: return 1e6;
      case benchmark::kSecond: return 1e9;
    }
    return 1;
  }
  void print_ns(const char* label, const std::string& name, double goal_max) const {
    auto it = ns_per_item_.find(name);
    if (it == ns_per_item_.end()) return;
    std::printf("  %-30s %12.1f ns", label, it->second);
    if (goal_max > 0) std::printf("   (goal <= %.0f ns: %s)", goal_max, it->second <= goal_max ? "met" : "NOT met");
    std::printf("\n");
  }
  void print_rate(const char* label, const std::string& name, double goal_min) const {
    auto it = ns_per_item_.find(name);
    if (it == ns_per_item_.end()) return;
    const double per_second = 1e9 / it->second;
    std::printf("  %-30s %12.2f M/s", label, per_second / 1e6);
    if (goal_min > 0) {
      std::printf("   (goal >= %.0f M/s: %s)", goal_min / 1e6, per_second >= goal_min ? "met" : "NOT met");
    }
    std::printf("\n");
  }

  std::map<std::string, double> ns_per_item_;
  std::map<std::string, double> counters_;
  std::vector<BenchRecord> records_;
};

std::vector<std::function<void()>>& large_registrars() {
  static std::vector<std::function<void()>> registrars;
  return registrars;
}

}  // namespace

void add_large_benchmarks(std::function<void()> registrar) { large_registrars().push_back(std::move(registrar)); }

int run_benchmarks(const std::string& prefix, const std::vector<std::string>& args) {
  std::vector<std::string> storage = {"dst-bench", "--benchmark_filter=^" + prefix + "/"};
  bool json = false;
  for (const std::string& arg : args) {
    if (arg == "--json") json = true;
    else if (arg == "--large") for (const auto& registrar : large_registrars()) registrar();
    else storage.push_back(arg);
  }
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  if (benchmark::ReportUnrecognizedArguments(argc, argv.data())) return 2;
  SummaryReporter reporter;
  // With --json stdout carries only the JSON document; the table a person reads goes to stderr.
  if (json) reporter.SetOutputStream(&std::cerr);
  const size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  if (ran == 0) {
    std::fprintf(stderr, "dst bench: no benchmark matches '%s'\n", prefix.c_str());
    return 2;
  }
  if (json) std::fputs(bench_json(prefix, reporter.records()).c_str(), stdout);
  else reporter.print_summary();
  // A slow machine never fails a bench; a run that broke (its checks failed, it could not set up)
  // does, loudly, so that a script or CI cannot mistake it for a figure.
  int failed = 0;
  for (const BenchRecord& r : reporter.records()) {
    if (r.error.empty()) continue;
    std::fprintf(stderr, "dst bench: %s FAILED: %s\n", r.name.c_str(), r.error.c_str());
    ++failed;
  }
  return failed > 0 ? 1 : 0;
}

}  // namespace dst::bench
