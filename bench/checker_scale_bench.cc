// `dst bench checker`, the scale part (issue 23): the etcd-model and watch checkers on long
// histories recorded by the simulator itself: 3 members, 28 clients of the etcd-kv workload with
// leases and a compaction every 10 s, 4 watchers, and the random nemesis (partitions, crashes,
// message loss, every 3 s on average), so the history holds unknown outcomes, lease expiries and compactions.
// Sizes 10k and 100k operations by default; `--large` adds 1M (about 3 minutes and a few GB
// to record first). The history is recorded once per size, outside the timed loop; each
// iteration times the two checkers on it. Counters: operations and watch events checked, seconds
// per check (split etcd model / watch), microseconds per operation (flat when growth is linear),
// and the process's peak resident memory after the check (the recording included: an upper bound
// on what the check needs; `/usr/bin/time -v dst check RUN.db` measures the check alone).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <map>
#include <memory>
#include <string>

#include "bench/bench_runner.h"
#include "checker/linearizability/etcd_checker.h"
#include "checker/watch/watch_checker.h"
#include "history/recorder.h"
#include "sim/wall_clock.h"
#include "world/kv_run_world.h"

namespace dst::world {
namespace {

struct Recorded {
  history::MemoryRecorder recorder;
  bool ok = false;
};

// The history of `virtual_s` seconds of the workload, recorded once per size for the process.
const Recorded& recorded(int64_t virtual_s) {
  static std::map<int64_t, std::unique_ptr<Recorded>> cache;
  auto& slot = cache[virtual_s];
  if (slot) return *slot;
  slot = std::make_unique<Recorded>();
  KvRunOptions o;
  o.workload.clients = 28;
  o.workload.rate = 50;
  o.workload.watchers = 4;
  o.workload.compaction_every = sim::seconds(10);
  o.workload.kv_mix.lease_ttl_min = 2;
  o.workload.kv_mix.lease_ttl_max = 5;
  o.metrics_every = 0;
  // A partition, crash or lossy spell every 3 s on average: unknown outcomes and re-elections
  // without a cluster that spends the run stalled (the default mix every 700 ms, stalling disks
  // and pauses included, cuts throughput twentyfold; the history would take hours to grow).
  o.nemesis.mean_interval = sim::seconds(3);
  o.nemesis.slow_fsync = o.nemesis.pauses = o.nemesis.fault_points = false;
  o.duration = sim::seconds(virtual_s);
  sim::Simulator sim(1);
  KvRunResult r = run_kv_world(sim, o, slot->recorder);
  slot->ok = r.invariants_ok;
  return *slot;
}

int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

void BM_CheckLongHistory(benchmark::State& state, int64_t virtual_s) {
  const Recorded& rec = recorded(virtual_s);
  const history::History& h = rec.recorder.history();
  if (!rec.ok) {
    state.SkipWithError("the recording run broke an invariant");
    return;
  }
  double lin_s = 0, watch_s = 0;
  for (auto _ : state) {
    const int64_t t0 = sim::wall_clock_ns();
    auto lin = checker::etcd::check_etcd(h);
    const int64_t t1 = sim::wall_clock_ns();
    checker::watch::Report watch = checker::watch::check(h);
    const int64_t t2 = sim::wall_clock_ns();
    if (!lin.is_ok() || lin->verdict != checker::Verdict::kLinearizable || !watch.ok()) {
      // The reason in full: a long history that fails is a finding, not a benchmark glitch.
      const std::string why = !lin.is_ok() ? lin.status().to_string()
                              : lin->verdict != checker::Verdict::kLinearizable ? lin->summary()
                                                                                : watch.to_string();
      // A give-up (Unknown: the step budget ran out) is named as such, not as a failed check.
      const bool gave_up = lin.is_ok() && lin->verdict == checker::Verdict::kUnknown && watch.ok();
      state.SkipWithError(((gave_up ? "the checker gave up on the recorded history: "
                                    : "the recorded history did not pass its checks: ") + why).c_str());
      return;
    }
    lin_s += static_cast<double>(t1 - t0) / 1e9;
    watch_s += static_cast<double>(t2 - t1) / 1e9;
  }
  double events = 0;
  for (const auto& w : h.watches)
    for (const auto& seg : w.segments)
      for (const auto& resp : seg.responses) events += resp.response.events_size();
  const double n = static_cast<double>(state.iterations());
  const double operations = static_cast<double>(h.operations.size());
  state.counters["ops"] = operations;
  state.counters["watch_events"] = events;
  state.counters["lin_check_s"] = lin_s / n;
  state.counters["watch_check_s"] = watch_s / n;
  state.counters["us_per_op"] = (lin_s + watch_s) / n / operations * 1e6;
  state.counters["peak_rss_mb"] = static_cast<double>(peak_rss_bytes()) / (1 << 20);
}

// Sizes are approximate (the counters give the exact count): the virtual time that records about
// that many operations under these faults (measured: 17,613 in 35 s, 86,081 in 278 s, 594,137 in
// 3,226 s; throughput falls as the run grows longer).
void register_size(const char* name, int64_t virtual_s) {
  benchmark::RegisterBenchmark((std::string("checker/etcd_history/") + name).c_str(),
                               [virtual_s](benchmark::State& s) { BM_CheckLongHistory(s, virtual_s); })
      ->Unit(benchmark::kSecond)
      ->Iterations(1);
}

int register_all() {
  register_size("10k", 20);
  register_size("100k", 320);
  bench::add_large_benchmarks([] { register_size("1m", 5'400); });
  return 0;
}
const int kRegistered = register_all();

}  // namespace
}  // namespace dst::world
