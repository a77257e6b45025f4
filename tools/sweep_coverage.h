// The coverage of a sweep: what its seeds reached (history/coverage.h: probes and the API surface),
// name by name, with how many seeds reached it, the first (lowest) seed that did and the hits over
// all seeds; the catalogue's names no seed reached; and the scenario's must_reach{} names, which
// fail the sweep when no seed reached them. Pure functions over result files' coverage, so that
// a sweep and `dst merge` of its shards give the same table (tools/sweep_coverage_test.cc).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "history/coverage.h"

namespace dst::sweep {

struct CoverageEntry {
  uint64_t seeds = 0;       // seeds that reached it
  uint64_t first_seed = 0;  // the lowest of them
  uint64_t hits = 0;        // over all seeds (saturating)
  bool operator==(const CoverageEntry&) const = default;
};

struct SweepCoverage {
  std::map<std::string, CoverageEntry> reached;
  std::set<std::string> must_reach;  // what the seeds' scenario declared (must_reach{})
  uint64_t seeds_reporting = 0;      // seeds whose result file said what they reached

  void add_seed(uint64_t seed, const history::Coverage& coverage, const std::vector<std::string>& must_reach);
  // Adds another shard's coverage (seeds are disjoint between shards).
  void merge(const SweepCoverage& other);
  // The must_reach names no seed reached, in order.
  std::vector<std::string> missed() const;
  bool operator==(const SweepCoverage&) const = default;
};

// coverage.tsv, beside sweep.tsv:
//   # dst sweep coverage v1
//   # seeds_reporting<TAB>20
//   # must_reach<TAB>watch.compaction-cancel      (one line per name)
//   name<TAB>seeds<TAB>first_seed<TAB>hits
//   raft.leader-elected<TAB>20<TAB>1<TAB>61
std::string format_coverage(const SweepCoverage& coverage);
// `name` (the file name) prefixes every error, with the line number.
Result<SweepCoverage> parse_coverage(std::string_view text, const std::string& name);

// The summary's coverage part: how much of the catalogue the seeds reached, the must_reach names
// missed, and the probes no seed reached, each with its meaning.
std::string format_coverage_summary(const SweepCoverage& coverage);

// The whole table as Markdown (docs/coverage.md): every catalogue name with its meaning, the seeds
// that reached it and where it was first reached (the first seed, or `first_where[name]` when
// given: a suite's sweeps share seed numbers), reached or not; then anything reached outside the
// catalogue.
std::string format_coverage_markdown(const SweepCoverage& coverage, const std::string& title,
                                     const std::map<std::string, std::string>& first_where = {});

}  // namespace dst::sweep
