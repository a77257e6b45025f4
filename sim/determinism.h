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
#include <vector>

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
  TimeNs divergence_time = 0;  // of that record in the first run (or the second, if the first ended)
  std::string first_event;   // that record in the first run, described
  std::string second_event;  // and in the second
  // For a harness action (a kill, a network change, ...), the event that was running when it was
  // taken, in each run: what ran differently. Empty when the record is itself an event.
  std::string first_running;
  std::string second_running;
  std::vector<std::string> agreed_before;  // the last records both runs share, oldest first
  // Several lines a person can act on.
  std::string describe() const;
};

DeterminismReport check_determinism(uint64_t seed, const World& world, SimConfig config = {});

// "#1234 t=1.000250000s fiber.wake process=3 (n2) fiber 'raft-loop' digest=0x..." for reports
// (the label is the trace's, when the run recorded one for the digest).
std::string describe_record(uint64_t index, const TraceRecord& record, const Simulator& sim);

}  // namespace dst::sim
