// Determinism is checked, not hoped for: run a world twice with the same seed and compare traces.
//
// Both runs record every trace event; the report names the first event at which they differ (or
// says the hashes agree). A world is a function that builds its hosts, processes and faults on the
// Simulator it is given and runs it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "sim/simulator.h"

namespace dst::sim {

using World = std::function<void(Simulator&)>;

struct DeterminismReport {
  bool deterministic = true;
  uint64_t hash_first = 0;
  uint64_t hash_second = 0;
  uint64_t events_first = 0;
  uint64_t events_second = 0;
  // Index of the first differing trace record, when the runs diverged within the kept records.
  std::optional<uint64_t> divergence_index;
  std::string first_event;   // that record in the first run, described
  std::string second_event;  // and in the second
  // Several lines a person can act on.
  std::string describe() const;
};

DeterminismReport check_determinism(uint64_t seed, const World& world, SimConfig config = {});

// "#1234 t=1.000250000s net.stream process=3 (node2) digest=0x..." for reports.
std::string describe_record(uint64_t index, const TraceRecord& record, const Simulator& sim);

}  // namespace dst::sim
