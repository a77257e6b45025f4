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
#include <map>
#include <optional>
#include <string>
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
  // The run's virtual time at each probe's latest pass, when the world gave its clock: what the
  // nemesis asks to tell the cluster's state as a fault comes ("during a snapshot").
  std::array<int64_t, static_cast<size_t>(Probe::kCount)> last_hit_ns{};
  const int64_t* clock_ns = nullptr;
  // Counts by name outside the table: a fault kind in a cluster state ("fault.crash.leader").
  std::map<std::string, uint64_t> named;
  uint64_t operator[](Probe p) const { return hits[static_cast<size_t>(p)]; }
};

namespace probe_detail {
// The counts of the run in progress (ProbeScope), or null.
inline ProbeCounts* active = nullptr;
inline void hit(Probe p) {
  if (active == nullptr) return;
  ++active->hits[static_cast<size_t>(p)];
  if (active->clock_ns != nullptr) active->last_hit_ns[static_cast<size_t>(p)] = *active->clock_ns;
}
}  // namespace probe_detail

// Whether the probe passed within `window` before `now` in the run in progress (false when no run
// collects, or its world gave no clock).
inline bool probe_hit_within(Probe p, int64_t now, int64_t window) {
  const ProbeCounts* c = probe_detail::active;
  if (c == nullptr || c->clock_ns == nullptr || (*c)[p] == 0) return false;
  return now - c->last_hit_ns[static_cast<size_t>(p)] <= window;
}
// Counts a named state of the run in progress ("fault.crash.leader"); nothing when none collects.
inline void probe_named(const std::string& name) {
  if (probe_detail::active != nullptr) ++probe_detail::active->named[name];
}

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
