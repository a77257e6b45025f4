// Redraws of parts of swarm{}'s draw (`dst run --swarm-salt PART=N,...`): each part (the fault
// kinds and interval, the cluster size, the Raft timing, the workload, the kube layer) draws from
// a random stream of its own, "swarm/<part>" of the seed; a salted part draws from
// "swarm/<part>/<N>" instead and the other parts stay what the seed gives. What `dst explore`
// mutates besides the faults after a time: the neighbourhood of a run in configuration space.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dst::scenarios {

inline constexpr std::array<std::string_view, 5> kSwarmParts = {"faults", "nodes", "timing", "workload", "kube"};

struct SwarmSalts {
  std::array<uint64_t, kSwarmParts.size()> salt{};  // 0: the seed's own draw
  bool empty() const;
  bool operator==(const SwarmSalts&) const = default;
};

// The stream a part draws from ("swarm/timing" or "swarm/timing/7").
std::string swarm_stream(const SwarmSalts& salts, size_t part);
// "timing=7,workload=3" (parts in kSwarmParts order, each at most once, salts 1..2^63).
Result<SwarmSalts> parse_swarm_salts(std::string_view spec);
std::string format_swarm_salts(const SwarmSalts& salts);

}  // namespace dst::scenarios
