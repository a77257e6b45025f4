// The reductions `dst shrink` tries once delta debugging has found the fault steps a failure
// needs (issue 24): a smaller cluster, a shorter run, a lighter workload, then each step's time.
// Each function gives the alternatives of one dimension as whole schedules, ordered most reduced
// first; the caller runs them (shrink_search.h first_of) and keeps the first that still fails.
// Every alternative is an exact, deterministic run: a kept one is certain, never probable.
//
// Pure functions of the current schedule and of what its run was (the result file's shape), so
// they are tested without running anything.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "faults/schedule_text.h"

namespace dst::shrink {

// What a run was (tools/run_result_file.h RunResultFile::shape, read back).
struct RunShape {
  uint64_t nodes = 0, clients = 0, watchers = 0, keys = 0, operations = 0;
  double rate = 0;
  int64_t run_for_ns = 0, phase_start_ns = 0;
  std::string profile;
  std::vector<std::string> kinds;  // the etcd-kv request kinds sent (empty for other profiles)
};

// kInvalidArgument naming the missing or bad entry (a result file from an older dst has none).
Result<RunShape> parse_shape(const std::map<std::string, std::string>& shape);

// Values below `current` to try, most reduced first: `floor` and then current/8, /4, /2
// (distinct, each at least `floor`, each below current).
std::vector<uint64_t> smaller_counts(uint64_t current, uint64_t floor);

// A 1- or 3-member cluster instead of more (steps naming a member beyond it make the world
// refuse the replay: that alternative is simply not kept).
std::vector<faults::Schedule> fewer_nodes(const faults::Schedule& s, const RunShape& shape);
// Shorter run_for(), down to 100 ms past the last step that acts (at least run_for's 1 s).
std::vector<faults::Schedule> shorter_run(const faults::Schedule& s, const RunShape& shape);
std::vector<faults::Schedule> fewer_clients(const faults::Schedule& s, const RunShape& shape);
std::vector<faults::Schedule> fewer_watchers(const faults::Schedule& s, const RunShape& shape);
std::vector<faults::Schedule> fewer_keys(const faults::Schedule& s, const RunShape& shape);
std::vector<faults::Schedule> lower_rate(const faults::Schedule& s, const RunShape& shape);
// The schedule that sends only `kept` of `kinds` (indices into it); the others join `without`.
faults::Schedule only_kinds(const faults::Schedule& s, const std::vector<std::string>& kinds, const std::vector<size_t>& kept);

// The steps whose time a shrink may change: every step but configuration and the generator's
// last wake, by index into s.steps.
std::vector<size_t> movable_steps(const faults::Schedule& s);
// The script's call made a step of its own at the same time (origin "timed", no call): the
// script's call then does nothing, and the step's time can move. Empty for a step that is not a
// script's, or that the original run refused.
std::vector<faults::Schedule> detached(const faults::Schedule& s, size_t step);
// Every step earlier by the same amount, so that the run can end sooner: the first step moves to
// 100 ms into the fault phase, or 3/4, 1/2, 1/4 of the way there. Only when every step that acts
// is timed (a script's call happens where the script makes it).
std::vector<faults::Schedule> shifted_earlier(const faults::Schedule& s, const RunShape& shape);
// Whether a step ends a window another step opened (heal, resume, restart, normal fsync, links
// back to normal, the clock back, the disk no longer full, an apiserver back, a controller going).
bool ends_window(const faults::FaultStep& step);
// A timed step moved in time without passing its neighbours: a step that ends a window earlier
// (towards the step before it), any other later (towards the step after it, or the end of the
// fault phase). Windows get shorter and start later; the order of the steps never changes.
std::vector<faults::Schedule> moved_step(const faults::Schedule& s, size_t step, const RunShape& shape);

}  // namespace dst::shrink
