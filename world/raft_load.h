// Load below the client API, for Raft-level worlds and benchmarks: in every member's process, while
// that member leads, propose `propose_batch` entries of at least `propose_bytes` every
// `propose_every`; and on every member request a ReadIndex every `read_every`, so linearizable
// reads run under the same faults (raft::Invariants checks that no answer is stale).
//
// On a KV member the entries are a mixed workload over 64 keys (puts, lease puts, lease grants and
// revokes, deletes, compare-and-swap transactions, compactions), so every apply path runs under
// the faults; on a hash-chain member they are tags. The load lives in the member's process (it is
// started when the member tells the world it started: node::ServerObserver::started) and dies with
// it; a restart starts it afresh.
#pragma once

#include <cstddef>

#include "node/server/server.h"
#include "sim/simulator.h"
#include "sim/time.h"

namespace dst::world {

struct RaftLoadOptions {
  sim::DurationNs propose_every = 0;  // 0: no proposals
  size_t propose_batch = 1;
  size_t propose_bytes = 16;
  sim::DurationNs read_every = 0;  // 0: no reads
};

// Starts the load's fibers in the calling fiber's process (the member's). Call from
// node::ServerObserver::started.
void start_raft_load(sim::Simulator& sim, node::Server& server, const RaftLoadOptions& options);

}  // namespace dst::world
