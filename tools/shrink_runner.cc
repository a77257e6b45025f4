#include "tools/shrink_runner.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "base/assert.h"
#include "sim/wall_clock.h"
#include "tools/shrink_phases.h"
#include "tools/shrink_search.h"

namespace dst::shrink {
namespace {

using faults::FaultKind;
using faults::Schedule;

// Rounds of the reduction phases: each but the last changed something (bounded: every change
// makes the run smaller, but a bound is cheaper to trust).
constexpr size_t kRoundsMax = 3;
// A rule's name is short ("State Machine Safety", "stale-read"); a longer text before a ':' is not one.
constexpr size_t kRuleBytesMax = 64;

// Runs candidate schedules as child `dst run --schedule` and remembers what each showed, by the
// schedule's text (so the same schedule is never run twice and its result is found again).
class CandidateRunner {
 public:
  CandidateRunner(const RunnerConfig& c) : c_(c) {}

  std::vector<Outcome> run(const std::vector<Schedule>& candidates) {
    std::vector<ChildCommand> commands;
    std::vector<std::string> stems, keys;
    std::vector<bool> written;
    for (const Schedule& s : candidates) {
      const std::string stem = c_.out_dir + "/runs/c" + std::to_string(next_++);
      keys.push_back(key(s));
      stems.push_back(stem);
      written.push_back(write_file(stem + ".schedule.lua", faults::schedule_to_lua(s, c_.scenario)));
      // A file that could not be written whole is not run: its outcome is kOther, never kept.
      if (written.back()) commands.push_back(run_command(c_, {"--schedule", stem + ".schedule.lua"}, stem));
    }
    run_children(commands, c_.jobs, kChildTimeoutDefaultNs);
    std::vector<Outcome> out;
    for (size_t i = 0; i < candidates.size(); ++i) out.push_back(written[i] ? outcome(stems[i], keys[i]) : Outcome::kOther);
    made_ += candidates.size();
    return out;
  }

  // What the run of `s` showed, if it ran and left a result.
  const RunResultFile* result_of(const Schedule& s) const {
    auto it = results_.find(key(s));
    return it == results_.end() ? nullptr : &it->second;
  }
  size_t made() const { return made_; }

 private:
  Outcome outcome(const std::string& stem, const std::string& key) {
    Result<RunResultFile> r = read_result_file(stem + ".result");
    if (!r.is_ok()) return Outcome::kOther;  // crashed or refused the schedule: never kept
    const RunResultFile& kept = results_.insert_or_assign(key, *r).first->second;
    if (kept.verdict == "pass") return Outcome::kPasses;
    return same_failure(c_, kept) ? Outcome::kFails : Outcome::kOther;
  }

  // A candidate by its steps and reduction (every candidate embeds the same scenario text: left
  // out, so that remembering thousands of runs stays small).
  static std::string key(Schedule s) {
    s.source.clear();
    return faults::schedule_to_lua(s, "");
  }

  static bool write_file(const std::string& path, const std::string& text) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    return static_cast<bool>(out);
  }

  const RunnerConfig& c_;
  size_t next_ = 0, made_ = 0;
  std::map<std::string, RunResultFile> results_;
};

// The schedule cut into what a candidate always keeps (configuration steps and the generator's
// last wake: they do not act; the reduction) and the steps delta debugging may drop.
struct Steps {
  Schedule fixed;
  std::vector<faults::FaultStep> droppable;
};

Steps split_steps(Schedule s) {
  Steps out;
  out.fixed = s;
  out.fixed.steps.clear();
  for (faults::FaultStep& step : s.steps) {
    const bool fixed = step.origin == faults::Origin::kConfig || step.kind == FaultKind::kStop;
    (fixed ? out.fixed.steps : out.droppable).push_back(std::move(step));
  }
  return out;
}

// The fixed steps and the kept ones, in time order.
Schedule with_steps(const Steps& steps, const std::vector<size_t>& kept) {
  Schedule s = steps.fixed;
  for (size_t i : kept) s.steps.push_back(steps.droppable[i]);
  std::stable_sort(s.steps.begin(), s.steps.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  return s;
}

// The phases, each keeping its first failing alternative as the new best; the runs of all of them
// share one budget.
class Driver {
 public:
  Driver(const RunnerConfig& c, Shrunk& best) : c_(c), best_(best), runner_(c) {}

  // Delta debugging over the best's droppable steps.
  void drop_steps(const char* phase) {
    const Steps steps = split_steps(best_.schedule);
    auto to_schedules = [&steps](const std::vector<std::vector<size_t>>& kept) {
      std::vector<Schedule> out;
      for (const auto& k : kept) out.push_back(with_steps(steps, k));
      return out;
    };
    const SearchResult r = ddmin(steps.droppable.size(), oracle(phase, to_schedules), options());
    take(r, r.kept.size() < steps.droppable.size() ? std::optional(with_steps(steps, r.kept)) : std::nullopt);
  }

  // The first of `alternatives` (most reduced first) that still fails becomes the best.
  void try_first(const char* phase, const std::vector<Schedule>& alternatives) {
    if (alternatives.empty() || done()) return;
    auto pick = [&alternatives](const std::vector<std::vector<size_t>>& which) {
      std::vector<Schedule> out;
      for (const auto& w : which) out.push_back(alternatives[w[0]]);
      return out;
    };
    const SearchResult r = first_of(alternatives.size(), oracle(phase, pick), options());
    take(r, r.kept.empty() ? std::nullopt : std::optional(alternatives[r.kept[0]]));
  }

  // Delta debugging over the etcd-kv request kinds the best's run sends.
  void drop_kinds(const std::vector<std::string>& kinds) {
    if (kinds.size() < 2 || done()) return;
    const Schedule base = best_.schedule;
    auto to_schedules = [&](const std::vector<std::vector<size_t>>& kept) {
      std::vector<Schedule> out;
      for (const auto& k : kept) out.push_back(only_kinds(base, kinds, k));
      return out;
    };
    const SearchResult r = ddmin(kinds.size(), oracle("request kinds", to_schedules), options());
    take(r, r.kept.size() < kinds.size() ? std::optional(only_kinds(base, kinds, r.kept)) : std::nullopt);
  }

  bool done() const { return best_.budget_spent || best_.stopped; }

 private:
  template <typename ToSchedules>
  BatchOracle oracle(const char* phase, ToSchedules to_schedules) {
    return [this, phase, to_schedules](const std::vector<std::vector<size_t>>& which) {
      const std::vector<Outcome> out = runner_.run(to_schedules(which));
      progress(phase);
      return out;
    };
  }

  SearchOptions options() const { return SearchOptions{c_.jobs, c_.max_runs - best_.runs, c_.stop}; }

  void take(const SearchResult& r, std::optional<Schedule> smaller) {
    best_.runs += r.runs;
    best_.runs_made = runner_.made();
    best_.budget_spent = best_.budget_spent || r.budget_spent;
    best_.stopped = best_.stopped || r.stopped;
    if (!smaller) return;
    const RunResultFile* result = runner_.result_of(*smaller);
    DST_ASSERT_MSG(result != nullptr, "a kept candidate was run");
    best_.schedule = std::move(*smaller);
    best_.result = *result;
  }

  void progress(const char* phase) const {
    std::string shape;
    for (const char* k : {"nodes", "clients", "watchers", "operations"}) {
      auto it = best_.result.shape.find(k);
      if (it != best_.result.shape.end()) shape += std::string(", ") + k + " " + it->second;
    }
    std::fprintf(stderr, "shrink: %s: %zu runs, best so far %zu steps%s, %.1fs elapsed\n", phase, runner_.made(),
                 movable_steps(best_.schedule).size(), shape.c_str(),
                 static_cast<double>(sim::wall_clock_ns() - c_.start_ns) / 1e9);
  }

  const RunnerConfig& c_;
  Shrunk& best_;
  CandidateRunner runner_;
};

// One round of phases 2 to 4 on what the best's run was; false (with a note) when its result
// has no shape.
bool reduce_round(Driver& d, Shrunk& best) {
  auto shape = [&best]() { return parse_shape(best.result.shape); };
  if (!shape().is_ok()) {
    best.notes.push_back("workload and time not reduced: " + shape().status().message());
    return false;
  }
  d.try_first("cluster size", fewer_nodes(best.schedule, *shape()));
  // Script calls become timed steps first: they can then move, earlier here and later below.
  for (size_t i : movable_steps(best.schedule)) d.try_first("script calls", detached(best.schedule, i));
  d.try_first("steps earlier", shifted_earlier(best.schedule, *shape()));
  d.try_first("run_for", shorter_run(best.schedule, *shape()));
  d.try_first("clients", fewer_clients(best.schedule, *shape()));
  d.try_first("watchers", fewer_watchers(best.schedule, *shape()));
  if (shape()->clients > 0) {  // without clients the rate, keys and kinds change nothing
    d.try_first("rate", lower_rate(best.schedule, *shape()));
    d.try_first("keys", fewer_keys(best.schedule, *shape()));
    if (shape()->profile == "etcd-kv") d.drop_kinds(shape()->kinds);
  }
  // Each step in turn; indices stay valid (a step only moves between its neighbours).
  for (size_t i : movable_steps(best.schedule)) d.try_first("step times", moved_step(best.schedule, i, *shape()));
  return true;
}

// Rounds until one changes nothing (a lighter workload may let the run end sooner, and so on).
void reduce_run(Driver& d, Shrunk& best) {
  for (size_t round = 0; round < kRoundsMax && !d.done(); ++round) {
    const std::string before = faults::schedule_to_lua(best.schedule, "");
    if (!reduce_round(d, best) || faults::schedule_to_lua(best.schedule, "") == before) return;
  }
}

}  // namespace

std::string deciding_check(const RunResultFile& r) {
  return r.deciding.empty() ? r.first_failure.substr(0, r.first_failure.find(':')) : r.deciding;
}

std::string deciding_rule(const RunResultFile& r) {
  const std::string check = deciding_check(r);
  for (const history::CheckRow& row : r.checks) {
    if (row.name != check) continue;
    if (!row.first_rule.empty()) return row.first_rule;
    // Checks that name no rule write it first in their message: "State Machine Safety: node 1 ...".
    const size_t colon = row.first_message.find(':');
    return colon == std::string::npos || colon > kRuleBytesMax ? "" : row.first_message.substr(0, colon);
  }
  return "";
}

bool same_failure(const RunnerConfig& c, const RunResultFile& r) {
  if (r.verdict != "violation") return false;
  if (c.any_violation) return true;
  return deciding_check(r) == c.check && (c.rule.empty() || deciding_rule(r) == c.rule);
}

ChildCommand run_command(const RunnerConfig& c, std::vector<std::string> args, const std::string& stem) {
  std::error_code ec;
  std::filesystem::remove(stem + ".result", ec);
  args.insert(args.begin(), {c.dst_path, "run"});
  args.insert(args.end(), {"--result", stem + ".result"});
  args.insert(args.end(), c.extra.begin(), c.extra.end());
  return ChildCommand{args, stem + ".log"};
}

Shrunk shrink_schedule(const RunnerConfig& config, const Schedule& original, const RunResultFile& original_result) {
  Shrunk best;
  best.schedule = original;
  best.result = original_result;
  best.steps_before = movable_steps(original).size();
  Driver d(config, best);
  d.drop_steps("fault steps");
  reduce_run(d, best);
  // Once more on the lighter run: it may need fewer steps; and the result is 1-minimal in its steps
  // as they finally are.
  if (!movable_steps(best.schedule).empty() && !d.done()) d.drop_steps("fault steps again");
  best.steps_after = movable_steps(best.schedule).size();
  return best;
}

}  // namespace dst::shrink
