// Test support shared by the storage layers' tests (node/wal, node/backend, node/mvcc...): one host
// with a node process and its FileSystem, running test code in a fiber of that process, and the
// two ways the process can die (power loss, process crash). Header-only; for tests.
#pragma once

#include <utility>

#include "sim/file_system.h"
#include "sim/simulator.h"

namespace dst::sim::testing {

struct NodeWorld {
  explicit NodeWorld(uint64_t seed = 7) : sim(seed) {
    disk().set_fsync_latency(DurationDist::constant(milliseconds(2)));
  }

  // Runs `body` in a fiber of the node process until the world is idle; true if it finished.
  template <typename F>
  bool run(F body) {
    bool finished = false;
    sim.spawn(p, "test", [&finished, body = std::move(body)]() mutable {
      body();
      finished = true;
    });
    sim.run_until_idle();
    return finished;
  }

  // Power loss: only synced data survives (with `torn`, plus a torn prefix of the rest).
  void power_loss(bool torn = false) {
    sim.kill(p, KillOptions{.lose_unsynced = true, .torn = torn});
    p = sim.start_process(h, "node");
  }
  // Process crash: the page cache survives.
  void process_crash() {
    sim.kill(p);
    p = sim.start_process(h, "node");
  }

  // The node process's Env (what node code is handed); a new one after every crash.
  Env& env() { return sim.env(p); }
  // The host's disk, where the tests' faults act (node code sees files only).
  Disk& disk() { return sim.host(h).disk(); }

  Simulator sim;
  HostId h = sim.add_host("h1");
  ProcessId p = sim.start_process(h, "node");
  FileSystem fs{sim, h};
};

}  // namespace dst::sim::testing
