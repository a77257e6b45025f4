// A fault schedule as text: each step as one line of Lua, `step{at=..., kind="kill", node=2,
// lose_unsynced=true}`, and a whole schedule as a Lua file that `dst run --schedule FILE` replays
// (scenarios/schedule_file.h reads it back). Only the fields a kind uses are written; numbers are
// written exactly (integers as integers, reals with 17 significant digits), so a schedule read
// back is the schedule written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "faults/fault_step.h"

namespace dst::faults {

// What `dst shrink` cut from the scenario's own configuration, written `reduce{...}` after the
// replay{} line: each field given replaces the scenario's value when the schedule is replayed
// (scenarios/scenario.h, Scenario::set_reduction checks it against the scenario's bounds).
struct Reduction {
  std::optional<uint64_t> nodes;       // cluster{nodes=}
  std::optional<uint64_t> clients;     // workload{clients=}
  std::optional<uint64_t> watchers;    // workload{watchers=}
  std::optional<uint64_t> keys;        // workload{keys=}
  std::optional<double> rate;          // workload{rate=}
  std::optional<int64_t> run_for_ns;   // run_for()
  std::vector<std::string> without;    // etcd-kv request kinds that are never sent (client/mix_draw.h names)
  bool empty() const {
    return !nodes && !clients && !watchers && !keys && !rate && !run_for_ns && without.empty();
  }
};

// What a replay needs besides the steps: the scenario and seed it was recorded from.
struct Schedule {
  std::string scenario;  // the scenario's path as the run named it
  uint64_t seed = 0;
  std::string bugs;      // the --bug list of the run ("" for none)
  Reduction reduce;      // empty for a recorded schedule
  std::vector<FaultStep> steps;  // in the order they were applied
  // The scenario's text, embedded (`scenario_source [==[...]==]` at the end of the file): `dst run
  // --schedule FILE` then runs it instead of reading `scenario`, so the file stands alone. "": none.
  std::string source;
};

// The embedded scenario as a Lua long string, `scenario_source [=...=[` TEXT `]=...=]`, with a
// bracket level that does not occur in the text. The text has no carriage return (Lua reads one
// in a long string as a line feed; asserted): a caller checks before it embeds.
std::string source_to_lua(const std::string& text);

// `reduce{clients=1, run_for=3200000000, without={"txn"}}` (the fields given only), or "" when
// nothing was cut.
std::string reduction_to_lua(const Reduction& r);

// The Lua table constructor of one step's fields: {at=..., kind="...", origin="...", ...}.
std::string step_to_lua(const FaultStep& step);
// A Lua string literal for any bytes (quotes, backslashes and control characters escaped).
std::string lua_quote(const std::string& s);
// The whole file: a comment saying what it is and how to replay it, replay{...}, then one
// step{...} line per step with its time and a description as a comment.
std::string schedule_to_lua(const Schedule& schedule, const std::string& source);
// Its parts: the comment, the replay{} line and a reduce{} line (schedule.steps is not read), and one step's line from
// its Lua table, its time and a note for the comment.
std::string schedule_header(const Schedule& schedule, const std::string& source, size_t steps);
std::string schedule_line(const std::string& step_lua, int64_t at, const std::string& note);

}  // namespace dst::faults
