// `dst bench cluster` (issue 6): a 3-node cluster at about 1,000 operations per virtual second of
// the etcd-kv workload (28 closed-loop clients at 50/s: each waits for its answer, about 7 ms,
// before its next exponential gap), 4 watchers, every operation and watch response recorded,
// without faults so that the load is the one offered; then the etcd-model and watch checkers.
// Reports how much faster than real time the world runs (virtual seconds per wall second of
// simulation) and how many recorded operations are simulated and checked per wall second, with
// the wall time split into simulation, linearizability check and watch check (where the time
// goes). Variants record to memory and to a run database on disk (SQLite, written as it goes).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>

#include "checker/linearizability/etcd_checker.h"
#include "checker/watch/watch_checker.h"
#include "history/run_db_recorder.h"
#include "world/kv_run_world.h"
#include "sim/wall_clock.h"

namespace dst::world {
namespace {

constexpr sim::DurationNs kVirtual = sim::seconds(30);

void BM_Cluster(benchmark::State& state, bool to_disk) {
  uint64_t seed = 1;
  double sim_s = 0, lin_s = 0, watch_s = 0, virtual_s = 0, ops = 0, events = 0;
  for (auto _ : state) {
    KvRunOptions o;
    o.workload.clients = 28;
    o.workload.rate = 50;  // closed loop: about 36 per client per virtual second, 1,000 in all
    o.workload.watchers = 4;
    o.duration = kVirtual;
    o.faults = false;  // the offered load at steady state; dst run measures runs under faults
    history::MemoryRecorder memory;
    std::unique_ptr<history::RunDbWriter> writer;
    std::unique_ptr<history::RunDbRecorder> db;
    const std::string path = (std::filesystem::temp_directory_path() / "dst-bench-cluster.db").string();
    if (to_disk) {
      std::filesystem::remove(path);
      auto w = history::RunDbWriter::create(path);
      if (!w.is_ok()) {
        state.SkipWithError(w.status().to_string().c_str());
        return;
      }
      writer = std::move(w).value();
      history::RunInfo info;
      info.seed = seed;
      info.scenario = "bench cluster";
      if (!writer->begin_run(info).is_ok()) {
        state.SkipWithError("begin_run failed");
        return;
      }
      db = std::make_unique<history::RunDbRecorder>(*writer);
    }
    history::Recorder& recorder = db ? static_cast<history::Recorder&>(*db) : memory;
    const history::History& h = db ? db->history() : memory.history();
    sim::Simulator sim(seed++);
    const int64_t t0 = sim::wall_clock_ns();
    KvRunResult r = run_kv_world(sim, o, recorder);
    const int64_t t1 = sim::wall_clock_ns();
    auto lin = checker::etcd::check_etcd(h);
    const int64_t t2 = sim::wall_clock_ns();
    checker::watch::Report watch = checker::watch::check(h);
    const int64_t t3 = sim::wall_clock_ns();
    if (!lin.is_ok() || lin->verdict == checker::Verdict::kViolation || !watch.ok() || !r.invariants_ok) {
      state.SkipWithError("the run did not pass its checks");
      return;
    }
    if (writer) {
      (void)writer->close();
      std::filesystem::remove(path);
    }
    sim_s += static_cast<double>(t1 - t0) / 1e9;
    lin_s += static_cast<double>(t2 - t1) / 1e9;
    watch_s += static_cast<double>(t3 - t2) / 1e9;
    virtual_s += static_cast<double>(sim.now()) / 1e9;
    ops += static_cast<double>(h.operations.size());
    for (const auto& w : h.watches)
      for (const auto& seg : w.segments)
        for (const auto& resp : seg.responses) events += resp.response.events_size();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["virtual_s"] = virtual_s / n;
  state.counters["ops"] = ops / n;
  state.counters["watch_events"] = events / n;
  state.counters["x_realtime"] = virtual_s / sim_s;  // virtual seconds per wall second simulating
  state.counters["checked_ops_per_s"] = ops / (sim_s + lin_s + watch_s);
  state.counters["sim_wall_s"] = sim_s / n;
  state.counters["lin_check_wall_s"] = lin_s / n;
  state.counters["watch_check_wall_s"] = watch_s / n;
}

BENCHMARK_CAPTURE(BM_Cluster, memory, false)->Name("cluster/1000qps/memory")->Unit(benchmark::kSecond)->Iterations(2);
BENCHMARK_CAPTURE(BM_Cluster, run_db, true)->Name("cluster/1000qps/run_db")->Unit(benchmark::kSecond)->Iterations(2);

}  // namespace
}  // namespace dst::world
