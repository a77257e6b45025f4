// Delta debugging (Zeller and Hildebrandt's ddmin) for `dst shrink` (issue 24): from a list of n
// elements (a run's fault steps) whose failure is known, a 1-minimal sublist that still fails:
// removing any single element of it makes the failure go away (or the budget ran out first).
//
// The caller decides what "still fails" means (the same check fails when the run is replayed
// with only those elements) and runs the candidates, several at once if it likes: the search
// hands it batches of candidates in a fixed order and always continues from the first candidate
// of a batch that failed, exactly as a one-at-a-time search would. So the result depends only on
// the input, the oracle and the budget, never on how many candidates ran in parallel or which
// finished first; the budget counts the runs a one-at-a-time search would have made.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace dst::shrink {

// What a candidate run showed.
enum class Outcome {
  kFails,    // the same failure: the candidate may be kept
  kPasses,   // no failure
  kOther,    // another check failed, or the run broke: not kept (unless the caller maps it to kFails)
};

// Runs each candidate (a sorted list of element indices) and says what it showed, in the same
// order. It may run them in parallel; it must be deterministic (a candidate's outcome is the same
// whenever it is asked).
using BatchOracle = std::function<std::vector<Outcome>(const std::vector<std::vector<size_t>>& candidates)>;

struct SearchOptions {
  // Candidates handed to the oracle at once (its parallelism); never changes the result.
  size_t batch = 1;
  // Runs a one-at-a-time search may make; the search stops with what it has when they are spent.
  size_t max_runs = 1000;
  // Asked before and after each batch: true ends the search with the smallest failing list so
  // far, and the batch it interrupted is forgotten (an interrupt, a wall-time budget: the only
  // ways timing may change the result).
  std::function<bool()> stop;
};

struct SearchResult {
  std::vector<size_t> kept;  // sorted indices; still fails (or is all n when nothing smaller did)
  size_t runs = 0;           // counted as a one-at-a-time search counts them
  size_t runs_made = 0;      // what the oracle actually ran (more when batches ran past a failure)
  bool budget_spent = false; // stopped by max_runs: `kept` fails but may not be 1-minimal
  bool stopped = false;      // stopped by options.stop: `kept` fails but may not be 1-minimal
};

// The 1-minimal failing sublist of [0, n). The whole list is taken to fail (the caller's original
// run); the empty list is tried first (a failure that needs none of the elements).
SearchResult ddmin(size_t n, const BatchOracle& oracle, const SearchOptions& options = {});

// The first of n alternatives, ordered most reduced first, that fails: each is the candidate {i}
// to the oracle, asked in order as a one-at-a-time scan would (batches never change the answer).
// kept is {i}, or empty when none failed or the budget ended first.
SearchResult first_of(size_t n, const BatchOracle& oracle, const SearchOptions& options = {});

}  // namespace dst::shrink
