// The built-in demo world: what `dst run` runs until Lua scenarios exist.
//
// Five peer processes exchange datagrams (gossip) and request/acknowledge over streams, and each
// keeps a checksummed append-only log on its disk that it fsyncs before acknowledging a record. A
// nemesis partitions the network (symmetric and one-way), heals it, kills peers (process crash or
// power loss with torn writes), restarts them, pauses and resumes them, skews their clocks and makes
// fsyncs fail. One property is checked: every record a peer acknowledged as durable is in its log
// after any crash the fault model allows (the same promise etcd's WAL makes). It exercises every
// part of sim/ and is the world the determinism tests run over many seeds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/bugs.h"
#include "sim/simulator.h"

namespace dst::demo {

struct DemoOptions {
  int peers = 5;
  sim::DurationNs duration = sim::seconds(10);
  bool faults = true;
  // The run's bugs (base/bugs.h). The demo has one: kAckBeforePersist acknowledges records
  // before they are fsynced, for showing that the durability check catches it.
  Bugs bugs;
};

struct DemoStats {
  uint64_t datagrams_sent = 0;
  uint64_t datagrams_received = 0;
  uint64_t requests_sent = 0;
  uint64_t acks_received = 0;
  uint64_t stream_errors = 0;
  uint64_t connects = 0;
  uint64_t records_acknowledged = 0;
  uint64_t records_recovered = 0;  // summed over restarts
  uint64_t fsync_errors = 0;
  uint64_t faults_injected = 0;
  uint64_t crashes = 0;
  uint64_t restarts = 0;
  std::vector<std::string> fault_log;   // "t=1.234s partition {n1,n2} | {n3,n4,n5}"
  std::vector<std::string> violations;  // empty when the durability property held
};

// Builds the world on `sim`, runs it for options.duration of virtual time, and reports.
DemoStats run_demo_world(sim::Simulator& sim, const DemoOptions& options);

// A few lines a person reads: traffic, faults, and the verdict.
std::string format_demo_summary(const DemoStats& stats, const sim::Simulator& sim);

}  // namespace dst::demo
