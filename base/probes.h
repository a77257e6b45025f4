// Coverage probes, in the way of FoundationDB's CODE_PROBE and Antithesis' "sometimes" assertions:
// named places in node, client, kube and sim code that the runs should reach now and then (a
// compaction cancel delivered, a watcher moved to unsynced, a snapshot installed, a vote for a
// second candidate refused...). Each probe has one row in one table with a one-line meaning;
// `DST_PROBE(kWatchCompactionCancel)` counts a pass.
//
// A probe never changes behaviour: the counts are only written out (the run database's coverage
// table, a run's --result file) and read by coverage reports (`dst sweep`, docs/coverage.md). It
// costs a load and a branch when no run collects them and an add when one does. One run collects
// at a time, into the ProbeCounts its world installs with a ProbeScope; a process runs its
// simulations one after another on one thread, so the counts of one run are that run's alone.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace dst {

enum class Probe : uint16_t {
#define DST_PROBE_ENUM(id, name, meaning) id,
#include "base/probe_list.h"
#undef DST_PROBE_ENUM
  kCount,
};

struct ProbeInfo {
  Probe probe;
  std::string_view name;     // "watch.compaction-cancel": area, then what happened
  std::string_view meaning;  // one line
};

const ProbeInfo& probe_info(Probe probe);
std::string_view probe_name(Probe probe);
std::optional<Probe> find_probe(std::string_view name);
// Every probe, in table order.
std::vector<Probe> all_probes();

struct ProbeCounts {
  std::array<uint64_t, static_cast<size_t>(Probe::kCount)> hits{};
  uint64_t operator[](Probe p) const { return hits[static_cast<size_t>(p)]; }
};

namespace probe_detail {
// The counts of the run in progress (ProbeScope), or null.
inline ProbeCounts* active = nullptr;
inline void hit(Probe p) {
  if (active != nullptr) ++active->hits[static_cast<size_t>(p)];
}
}  // namespace probe_detail

// Makes `counts` the running world's for its lifetime (restoring the one before, so a run nested
// in a test's own scope counts into its own).
class ProbeScope {
 public:
  explicit ProbeScope(ProbeCounts& counts) : previous_(probe_detail::active) { probe_detail::active = &counts; }
  ~ProbeScope() { probe_detail::active = previous_; }
  ProbeScope(const ProbeScope&) = delete;
  ProbeScope& operator=(const ProbeScope&) = delete;

 private:
  ProbeCounts* previous_;
};

}  // namespace dst

// Counts a pass of the named probe (a name of base/probe_list.h without "Probe::").
#define DST_PROBE(id) ::dst::probe_detail::hit(::dst::Probe::id)
