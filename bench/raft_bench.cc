// Raft clusters in simulation: committed entries per wall-clock second (how fast the harness can
// push a real Raft + WAL + network stack through virtual time), for 3 and 5 nodes.
#include <benchmark/benchmark.h>

#include "world/sim_cluster.h"

namespace dst::world {
namespace {

// Each iteration: a fresh cluster, 2 s of virtual time for the first election, then 5 s of load
// at the leader (20 entries of 64 bytes every millisecond: 20k/s offered, which the simulated
// cluster keeps up with, as virtual_commits_per_s shows); counts the entries committed in those
// 5 s. items_per_second is then the harness's speed: committed entries per wall-clock second,
// each with its WAL write, fsync, messages to every follower and apply on every node.
void BM_RaftCommit(benchmark::State& state) {
  const size_t nodes = static_cast<size_t>(state.range(0));
  uint64_t committed = 0;
  uint64_t events = 0;
  sim::DurationNs virtual_ns = 0;
  uint64_t seed = 1;
  for (auto _ : state) {
    sim::Simulator sim(seed++);
    ClusterOptions o;
    o.nodes = nodes;
    o.load.propose_every = sim::milliseconds(1);
    o.load.propose_batch = 20;
    o.load.propose_bytes = 64;
    o.server.snapshot_every = 10'000;
    SimCluster c(sim, o);
    c.start_all();
    sim.run_until(sim::seconds(2));
    auto l = c.leader();
    if (!l) {
      state.SkipWithError("no leader after 2 s");
      return;
    }
    uint64_t before = c.server(*l)->raft().log().committed();
    uint64_t events_before = sim.events_executed();
    sim.run_until(sim::seconds(7));
    auto l2 = c.leader();
    if (!l2) {
      state.SkipWithError("lost the leader under load");
      return;
    }
    committed += c.server(*l2)->raft().log().committed() - before;
    events += sim.events_executed() - events_before;
    virtual_ns += sim::seconds(5);
  }
  state.SetItemsProcessed(static_cast<int64_t>(committed));
  state.counters["virtual_commits_per_s"] =
      benchmark::Counter(static_cast<double>(committed) / (static_cast<double>(virtual_ns) / 1e9));
  state.counters["events_per_commit"] = benchmark::Counter(static_cast<double>(events) / static_cast<double>(committed));
}
BENCHMARK(BM_RaftCommit)->Name("raft/commit")->Arg(3)->Arg(5)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dst::world
