// The etcd KV path in simulation: client requests committed through Raft and applied to the
// SQLite-backed MVCC store on every member, per wall-clock second, 3 nodes.
#include <benchmark/benchmark.h>

#include "node/server/kv_state_machine.h"
#include "world/sim_cluster.h"

namespace dst::world {
namespace {

// Each iteration: a fresh 3-node KV cluster, 2 s of virtual time for the first election, then 5 s
// of the mixed KV load at the leader (mostly puts; 20 requests every millisecond offered). Counts
// the requests the leader applied in those 5 s (every member applies the same ones).
void BM_KvApply(benchmark::State& state) {
  uint64_t applied = 0;
  sim::DurationNs virtual_ns = 0;
  uint64_t seed = 1;
  for (auto _ : state) {
    sim::Simulator sim(seed++);
    ClusterOptions o;
    o.nodes = static_cast<size_t>(state.range(0));
    o.server.state_machine = node::StateMachineKind::kKv;
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
    auto& kv = static_cast<node::KvStateMachine&>(c.server(*l)->state_machine());
    uint64_t before = kv.requests_applied();
    sim.run_until(sim::seconds(7));
    if (c.leader() != l) {
      state.SkipWithError("lost the leader under load");
      return;
    }
    applied += kv.requests_applied() - before;
    virtual_ns += sim::seconds(5);
  }
  state.SetItemsProcessed(static_cast<int64_t>(applied));
  state.counters["virtual_requests_per_s"] =
      benchmark::Counter(static_cast<double>(applied) / (static_cast<double>(virtual_ns) / 1e9));
}
BENCHMARK(BM_KvApply)->Name("kv/apply")->Arg(3)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dst::world
