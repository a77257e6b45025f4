#include "faults/fault_state.h"

#include "base/probes.h"

namespace dst::faults {
namespace {

bool recent(std::initializer_list<Probe> probes, sim::TimeNs now) {
  for (Probe p : probes)
    if (probe_hit_within(p, now, kFaultStateWindow)) return true;
  return false;
}

std::string_view state_meaning(std::string_view state) {
  if (state == "leader") return "on the leader";
  if (state == "follower") return "on a member that was not the leader";
  if (state == "election") return "while no live member led";
  if (state == "snapshot") return "within 200 ms after a snapshot was taken, sent, restored or installed";
  if (state == "compaction") return "within 200 ms after a compaction removed history";
  return "within 200 ms after a backend was defragmented";
}

}  // namespace

std::vector<std::string_view> fault_states(FaultKind kind, size_t node, size_t leader, sim::TimeNs now) {
  std::vector<std::string_view> out;
  if (acts_on_member(kind) && node > 0) out.push_back(node == leader ? "leader" : "follower");
  if (leader == 0) out.push_back("election");
  if (recent({Probe::kServerSnapshotTaken, Probe::kRaftSnapshotSent, Probe::kRaftSnapshotRestored, Probe::kServerSnapshotInstalled}, now))
    out.push_back("snapshot");
  if (recent({Probe::kMvccCompacted}, now)) out.push_back("compaction");
  if (recent({Probe::kBackendDefragmented}, now)) out.push_back("defrag");
  return out;
}

void count_fault_states(FaultKind kind, const std::vector<std::string_view>& states) {
  for (std::string_view s : states) probe_named("fault." + std::string(fault_kind_name(kind)) + "." + std::string(s));
}

std::vector<FaultStateName> fault_state_catalogue() {
  std::vector<FaultStateName> out;
  for (size_t k = 0; k < static_cast<size_t>(FaultKind::kStop); ++k) {
    const auto kind = static_cast<FaultKind>(k);
    for (std::string_view state : kFaultStates) {
      if ((state == "leader" || state == "follower") && !acts_on_member(kind)) continue;
      const std::string kname(fault_kind_name(kind));
      out.push_back({"fault." + kname + "." + std::string(state), kname + " " + std::string(state_meaning(state))});
    }
  }
  return out;
}

}  // namespace dst::faults
