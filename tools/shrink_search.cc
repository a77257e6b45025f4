#include "tools/shrink_search.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "base/assert.h"

namespace dst::shrink {
namespace {

// A run's fault schedule is bounded far below this (history limits); the search's own loops are
// bounded by it.
constexpr size_t kElementsMax = 1'000'000;

// Runs candidates through the oracle in batches and answers as a one-at-a-time search would: the
// first candidate in order that fails, with the runs before it charged to the budget.
class Search {
 public:
  Search(const BatchOracle& oracle, const SearchOptions& options) : oracle_(oracle), options_(options) {
    DST_ASSERT_GT(options_.batch, 0u);
  }

  std::optional<size_t> first_failing(const std::vector<std::vector<size_t>>& candidates) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (!counted_.count(candidates[i])) {
        if (runs_ >= options_.max_runs) {
          spent_ = true;
          return std::nullopt;
        }
        if (!cache_.count(candidates[i]) && !run_batch_from(candidates, i)) return std::nullopt;
        ++runs_;
        counted_.insert(candidates[i]);
      }
      if (cache_.at(candidates[i]) == Outcome::kFails) return i;
    }
    return std::nullopt;
  }

  bool spent() const { return spent_ || stopped_; }
  SearchResult result(std::vector<size_t> kept) const {
    return SearchResult{std::move(kept), runs_, runs_made_, spent_, stopped_};
  }

 private:
  // Runs the next candidates from `from` on that are not known yet: at most a batch, and never
  // more than a one-at-a-time search could still run. False when options.stop ended the search
  // (before the batch, or after it: then its outcomes, perhaps of killed runs, are not kept).
  bool run_batch_from(const std::vector<std::vector<size_t>>& candidates, size_t from) {
    if (should_stop()) return false;
    DST_ASSERT_LT(runs_, options_.max_runs);
    const size_t limit = std::min(options_.batch, options_.max_runs - runs_);
    std::vector<std::vector<size_t>> batch;
    std::set<std::vector<size_t>> chosen;
    for (size_t j = from; j < candidates.size() && batch.size() < limit; ++j) {
      if (cache_.count(candidates[j]) || !chosen.insert(candidates[j]).second) continue;
      batch.push_back(candidates[j]);
    }
    const std::vector<Outcome> outcomes = oracle_(batch);
    DST_ASSERT_EQ(outcomes.size(), batch.size());
    runs_made_ += batch.size();
    if (should_stop()) return false;
    for (size_t j = 0; j < batch.size(); ++j) cache_.emplace(batch[j], outcomes[j]);
    return true;
  }

  bool should_stop() {
    if (!stopped_ && options_.stop && options_.stop()) stopped_ = true;
    return stopped_;
  }

  const BatchOracle& oracle_;
  SearchOptions options_;
  std::map<std::vector<size_t>, Outcome> cache_;  // every candidate run, with what it showed
  std::set<std::vector<size_t>> counted_;         // the ones a one-at-a-time search has run
  size_t runs_ = 0;
  size_t runs_made_ = 0;
  bool spent_ = false;
  bool stopped_ = false;
};

// `current` cut into `parts` contiguous pieces of nearly equal size (the first ones one longer).
std::vector<std::vector<size_t>> split(const std::vector<size_t>& current, size_t parts) {
  DST_ASSERT_LE(parts, current.size());
  std::vector<std::vector<size_t>> out;
  size_t start = 0;
  for (size_t k = 0; k < parts; ++k) {
    const size_t len = current.size() / parts + (k < current.size() % parts ? 1 : 0);
    out.emplace_back(current.begin() + static_cast<std::ptrdiff_t>(start),
                     current.begin() + static_cast<std::ptrdiff_t>(start + len));
    start += len;
  }
  return out;
}

std::vector<std::vector<size_t>> complements(const std::vector<size_t>& current,
                                             const std::vector<std::vector<size_t>>& parts) {
  std::vector<std::vector<size_t>> out;
  for (const auto& part : parts) {
    std::vector<size_t> rest;
    std::set_difference(current.begin(), current.end(), part.begin(), part.end(), std::back_inserter(rest));
    out.push_back(std::move(rest));
  }
  return out;
}

}  // namespace

SearchResult ddmin(size_t n, const BatchOracle& oracle, const SearchOptions& options) {
  DST_ASSERT_LE(n, kElementsMax);
  Search search(oracle, options);
  std::vector<size_t> current(n);
  std::iota(current.begin(), current.end(), size_t{0});
  if (n == 0) return search.result(current);
  if (search.first_failing({{}})) return search.result({});
  size_t granularity = 2;
  // Each pass either shrinks `current` or doubles the granularity up to its size: bounded.
  for (size_t pass = 0; current.size() >= 2 && !search.spent(); ++pass) {
    DST_ASSERT_LT(pass, 4 * kElementsMax);
    const auto parts = split(current, granularity);
    if (auto i = search.first_failing(parts)) {
      current = parts[*i];
      granularity = 2;
      continue;
    }
    if (granularity > 2 && !search.spent()) {  // with two parts the complements are the parts
      const auto rests = complements(current, parts);
      if (auto i = search.first_failing(rests)) {
        current = rests[*i];
        granularity = std::max<size_t>(granularity - 1, 2);
        continue;
      }
    }
    if (granularity >= current.size()) break;  // every single element is needed: 1-minimal
    granularity = std::min(granularity * 2, current.size());
  }
  return search.result(current);
}

SearchResult first_of(size_t n, const BatchOracle& oracle, const SearchOptions& options) {
  DST_ASSERT_LE(n, kElementsMax);
  Search search(oracle, options);
  std::vector<std::vector<size_t>> alternatives;
  for (size_t i = 0; i < n; ++i) alternatives.push_back({i});
  const std::optional<size_t> first = search.first_failing(alternatives);
  return search.result(first ? std::vector<size_t>{*first} : std::vector<size_t>{});
}

}  // namespace dst::shrink
