// Jepsen register histories for `dst bench checker`: what Jepsen's etcd test logs (5 values, reads,
// writes, compare-and-swaps, processes that time out and come back under a new number), of
// 60-200 operations and 5-15 processes, generated from a seed so that every run of the bench
// checks the same files.
//
// Each history is made from a true register: every operation takes effect at a point inside its
// interval, in that order, so a history without anomalies is linearizable by construction. Some
// histories get anomalies (a read returning an overwritten or unwritten value, a write that is
// acknowledged but lost): most of those are not linearizable, and the checkers decide which.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace dst::bench {

struct RegisterHistoryShape {
  size_t operations = 100;
  size_t processes = 10;
  double timeout_probability = 0.04;  // per operation: :info (write, cas) or :fail :timed-out (read)
  double anomaly_probability = 0.0;   // per read (a wrong value) and per write (lost)
};

// The history as Jepsen's log lines ("INFO  jepsen.util - 3<TAB>:invoke<TAB>:read<TAB>nil").
std::string make_register_history(const RegisterHistoryShape& shape, uint64_t seed);

// `count` histories in `dir` (created if missing), register-000.log, register-001.log, ...: sizes
// and process counts drawn from `seed`, every other one with anomalies. Returns their paths.
Result<std::vector<std::string>> write_register_set(const std::string& dir, uint64_t seed, size_t count);

}  // namespace dst::bench
