// A run's coverage: which interesting states and which parts of the API it reached, by name, with
// how often. Three kinds of name, one namespace:
//   "watch.compaction-cancel"       a code probe (base/probes.h), counted as the run went;
//   "api.range.limit.ok"            a request type with one of its options and its outcome, from the
//                                   history's operations ("any" stands for every use of the type);
//   "api.watch.prev-kv"             a watch option or event, from the history's watch segments.
// The catalogue names everything a run could reach, with its meaning, so that a sweep lists what
// no seed reached (FoundationDB's CODE_PROBE report, Antithesis' "sometimes" properties).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/probes.h"
#include "history/history.h"

namespace dst::history {

// Name -> hits (> 0); ordered, so it is written and compared the same way every time.
using Coverage = std::map<std::string, uint64_t>;

// Every probe the run passed, by name.
void add_probe_coverage(const ProbeCounts& counts, Coverage& out);
// The API surface the run's clients used: operations by type, option and outcome; watches by
// option and what they received.
void add_api_coverage(const History& history, Coverage& out);

struct CoverageItem {
  std::string name;
  std::string meaning;
};
// Every name a run can reach (probes, then the API surface), in a fixed order.
const std::vector<CoverageItem>& coverage_catalogue();
// The catalogue's meaning of `name`, or "" for a name it does not know.
std::string coverage_meaning(const std::string& name);

// Names are short keys (they go into tables, files and TSV columns).
inline constexpr size_t kCoverageNameBytesMax = 128;
// A run reaches at most the catalogue plus unforeseen API combinations: far below this.
inline constexpr size_t kCoverageNamesMax = 10'000;

}  // namespace dst::history
