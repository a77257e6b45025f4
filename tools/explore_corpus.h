// The search state of `dst explore` (docs/explore.md): which runs to try next, from what earlier
// runs reached. Pure data and the explorer's own seeded stream: given the same explorer seed and
// the same outcomes, it proposes the same candidates, so an exploration is reproducible from its
// seed and its budget in runs, whatever the wall clock or the number of jobs.
//
// A run's features are what it reached (history/coverage.h names) with how often, bucketed by
// powers of two the way AFL buckets edge hits: "watch.compaction-cancel" once and eight times are
// two features. A run that reaches a feature no earlier run did joins the corpus. A candidate is a
// fresh seed, or a corpus run mutated: forked (faults/nemesis_fork.h: the same seed, so the same
// run up to a time, then other random faults), or, in a swarm scenario, with one part of its swarm
// draw redrawn (scenarios/swarm_salts.h: the same faults and workload on another timing...). Parents are picked in proportion to their energy: the sum over
// their features of 1 / (runs that reached it), divided by 1 + the children it had, so rare states
// get more of the budget without one run taking all of it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "faults/nemesis_fork.h"
#include "history/coverage.h"
#include "scenarios/swarm_salts.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace dst::explore {

// Candidates per batch: fixed, so the search does not depend on --jobs.
inline constexpr size_t kBatchSize = 8;
// Bounds on the state: the corpus keeps its most energetic runs; a run has this many forks at most.
inline constexpr size_t kCorpusMax = 512;
inline constexpr size_t kForksPerCandidateMax = 6;
inline constexpr uint64_t kRunsMax = 100'000;

struct Candidate {
  uint64_t seed = 0;
  std::vector<faults::NemesisFork> forks;
  scenarios::SwarmSalts salts;  // parts of swarm{}'s draw redrawn
  int64_t parent = -1;   // the run it was forked from (index in run order), -1 for a fresh seed
};

struct Outcome {
  int exit_code = 0;            // dst run's: 0 pass, 1 violation, 2 error, 3 gave up, else crashed
  history::Coverage coverage;   // empty when the run left no result file
};

// The features of a coverage: "name#B" with B the bucket of its hits (0: 1, 1: 2-3, 2: 4-7, ...).
std::vector<std::string> features_of(const history::Coverage& coverage);

class Corpus {
 public:
  // `phase`: the fault phase's length (forks fall inside it); `seed`: the explorer's own;
  // `fresh_only`: every candidate a fresh seed (swarm alone: the baseline exploration beats or not);
  // `swarm_parts`: the parts of the scenario's swarm{} draw a mutation may redraw (kSwarmParts
  // indexes; empty without swarm{}).
  Corpus(uint64_t seed, sim::DurationNs phase, bool fresh_only = false, std::vector<size_t> swarm_parts = {});

  // The next batch of kBatchSize candidates.
  std::vector<Candidate> next_batch();
  // The outcome of the next run in the order candidates were proposed; returns how many features
  // it reached first.
  size_t record(const Candidate& candidate, const Outcome& outcome);

  size_t runs() const { return runs_; }
  size_t features() const { return feature_runs_.size(); }
  size_t names() const;  // distinct coverage names reached
  size_t corpus_size() const { return corpus_.size(); }

 private:
  struct Entry {
    size_t run = 0;
    Candidate candidate;
    std::vector<std::string> features;
    uint64_t picks = 0;  // children proposed so far
  };
  Candidate fresh();
  Candidate mutate(const Entry& parent);
  const Entry& pick_parent();
  uint64_t energy(const Entry& e) const;

  sim::Rng rng_;
  sim::DurationNs phase_;
  bool fresh_only_;
  std::vector<size_t> swarm_parts_;
  size_t runs_ = 0;
  std::map<std::string, uint64_t> feature_runs_;  // feature -> runs that reached it
  std::vector<Entry> corpus_;
};

}  // namespace dst::explore
