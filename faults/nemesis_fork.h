// A fork of the random nemesis: from a time into the fault phase on, the random faults come from
// another random stream (and optionally at another rate), while everything before that time is the
// run its seed gives. `dst explore` mutates a run this way: the same seed replays the same prefix
// (the simulation is deterministic), then the faults diverge, so the neighbourhood of an
// interesting run is searched without re-recording or replaying its schedule.
//
// On the command line (`dst run SCENARIO --fork SPEC`), SPEC is a comma-separated list of
// AT:SALT[:PERCENT]: AT a duration into the fault phase (e.g. 4250ms), SALT the new stream's
// number, PERCENT the mean interval between faults in percent of the scenario's (default 100).
// Times strictly increase; at most kNemesisForksMax forks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sim/time.h"

namespace dst::faults {

struct NemesisFork {
  sim::DurationNs after = 0;       // into the fault phase (from the clients' start)
  uint64_t salt = 0;               // the stream is "raft-nemesis/fork-<salt>"
  uint32_t interval_percent = 100; // mean interval between faults from here on, in % of the option's
  bool operator==(const NemesisFork&) const = default;
};

inline constexpr size_t kNemesisForksMax = 16;
inline constexpr uint32_t kForkIntervalPercentMin = 10;
inline constexpr uint32_t kForkIntervalPercentMax = 1000;

// The random stream a fork draws from.
std::string fork_stream_name(const NemesisFork& fork);
// Parses SPEC; `phase` is the fault phase's length (every fork must start inside it). Errors say
// which entry is wrong and what was expected.
Result<std::vector<NemesisFork>> parse_forks(std::string_view spec, sim::DurationNs phase);
// The inverse of parse_forks (times in whole milliseconds when they are, else nanoseconds).
std::string format_forks(const std::vector<NemesisFork>& forks);

}  // namespace dst::faults
