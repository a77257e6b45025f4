#include "tools/sweep_coverage.h"

#include "faults/fault_state.h"
#include "base/parse_number.h"

#include "tools/text_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace dst::sweep {

namespace {

constexpr std::string_view kHeader = "# dst sweep coverage v1";
// The summary lists at most this many unreached probes (the table has them all).
constexpr size_t kUnreachedListed = 40;

uint64_t saturating_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

bool is_api(const std::string& name) { return name.rfind("api.", 0) == 0; }

void add_entry(CoverageEntry& into, const CoverageEntry& e) {
  into.first_seed = into.seeds == 0 ? e.first_seed : std::min(into.first_seed, e.first_seed);
  into.seeds = saturating_add(into.seeds, e.seeds);
  into.hits = saturating_add(into.hits, e.hits);
}

bool parse_u64(const std::string& s, uint64_t& out) {
  const std::optional<uint64_t> v = dst::parse_u64(s);
  if (v) out = *v;
  return v.has_value();
}

bool valid_name(const std::string& name) {
  return !name.empty() && name.size() <= history::kCoverageNameBytesMax && name.find_first_of(" \t") == std::string::npos;
}

// One '#' line after the header: seeds_reporting or must_reach.
Status parse_meta(const std::vector<std::string>& f, SweepCoverage& c, const std::string& where) {
  if (f.size() == 2 && f[0] == "# seeds_reporting" && parse_u64(f[1], c.seeds_reporting)) return Status::ok();
  if (f.size() == 2 && f[0] == "# must_reach" && valid_name(f[1])) {
    c.must_reach.insert(f[1]);
    return Status::ok();
  }
  return Status(StatusCode::kInvalidArgument, where + ": expected '# seeds_reporting<TAB>N' or '# must_reach<TAB>NAME'");
}

Status parse_row(const std::vector<std::string>& f, SweepCoverage& c, const std::string& where) {
  CoverageEntry e;
  if (f.size() != 4 || !valid_name(f[0]) || !parse_u64(f[1], e.seeds) || !parse_u64(f[2], e.first_seed) ||
      !parse_u64(f[3], e.hits) || e.seeds == 0 || e.hits == 0) {
    return Status(StatusCode::kInvalidArgument, where + ": expected name<TAB>seeds<TAB>first_seed<TAB>hits (counts above 0)");
  }
  if (c.reached.size() >= history::kCoverageNamesMax)
    return Status(StatusCode::kInvalidArgument, where + ": more than " + std::to_string(history::kCoverageNamesMax) + " names");
  if (!c.reached.emplace(f[0], e).second) return Status(StatusCode::kInvalidArgument, where + ": " + f[0] + " twice");
  return Status::ok();
}

// Catalogue names of one kind (probes, or API uses) and how many of them the seeds reached.
std::pair<size_t, size_t> reached_of(const SweepCoverage& c, bool api) {
  size_t total = 0, reached = 0;
  for (const history::CoverageItem& item : history::coverage_catalogue()) {
    if (is_api(item.name) != api) continue;
    ++total;
    reached += c.reached.count(item.name);
  }
  return {reached, total};
}

bool is_fault_state(const std::string& name) { return name.rfind("fault.", 0) == 0; }

// How many of the fault kind x cluster state names (faults/fault_state.h) the seeds reached.
std::pair<size_t, size_t> fault_states_reached(const SweepCoverage& c) {
  const std::vector<faults::FaultStateName> all = faults::fault_state_catalogue();
  size_t reached = 0;
  for (const faults::FaultStateName& n : all) reached += c.reached.count(n.name);
  return {reached, all.size()};
}

// The matrix of fault kinds (rows) by cluster state (columns): seeds that reached each, "**0**"
// for none, "" where the kind cannot be in that state; kinds no seed applied are left out.
std::string fault_state_matrix(const SweepCoverage& c) {
  const std::vector<faults::FaultStateName> all = faults::fault_state_catalogue();
  std::string out = "\n## Fault kinds by cluster state\n\nSeeds in which a fault of the kind came in the state "
                    "(faults/fault_state.h: leader or follower: the member it named; election: no live leader; snapshot, "
                    "compaction, defrag: within 200 ms after one).\n\n| kind |";
  for (std::string_view st : faults::kFaultStates) out += " " + std::string(st) + " |";
  out += "\n|---|";
  for (size_t i = 0; i < std::size(faults::kFaultStates); ++i) out += "---|";
  out += "\n";
  for (size_t k = 0; k < static_cast<size_t>(faults::FaultKind::kStop); ++k) {
    const std::string kind(faults::fault_kind_name(static_cast<faults::FaultKind>(k)));
    std::string row = "| `" + kind + "` |";
    bool any = false;
    for (std::string_view st : faults::kFaultStates) {
      const std::string name = "fault." + kind + "." + std::string(st);
      const bool possible = std::any_of(all.begin(), all.end(), [&](const faults::FaultStateName& n) { return n.name == name; });
      auto it = c.reached.find(name);
      any |= it != c.reached.end();
      row += !possible ? " |" : it == c.reached.end() ? " **0** |" : " " + std::to_string(it->second.seeds) + " |";
    }
    if (any) out += row + "\n";
  }
  return out;
}

}  // namespace

void SweepCoverage::add_seed(uint64_t seed, const history::Coverage& coverage, const std::vector<std::string>& names) {
  ++seeds_reporting;
  for (const auto& [name, hits] : coverage) add_entry(reached[name], CoverageEntry{1, seed, hits});
  must_reach.insert(names.begin(), names.end());
}

void SweepCoverage::merge(const SweepCoverage& other) {
  seeds_reporting = saturating_add(seeds_reporting, other.seeds_reporting);
  for (const auto& [name, e] : other.reached) add_entry(reached[name], e);
  must_reach.insert(other.must_reach.begin(), other.must_reach.end());
}

std::vector<std::string> SweepCoverage::missed() const {
  std::vector<std::string> out;
  for (const std::string& name : must_reach)
    if (!reached.count(name)) out.push_back(name);
  return out;
}

std::string format_coverage(const SweepCoverage& c) {
  std::string out = std::string(kHeader) + "\n# seeds_reporting\t" + std::to_string(c.seeds_reporting) + "\n";
  for (const std::string& name : c.must_reach) out += "# must_reach\t" + name + "\n";
  out += "name\tseeds\tfirst_seed\thits\n";
  for (const auto& [name, e] : c.reached)
    out += name + "\t" + std::to_string(e.seeds) + "\t" + std::to_string(e.first_seed) + "\t" + std::to_string(e.hits) + "\n";
  return out;
}

Result<SweepCoverage> parse_coverage(std::string_view text, const std::string& name) {
  SweepCoverage c;
  std::istringstream in{std::string(text)};
  std::string line;
  if (!std::getline(in, line) || line != kHeader)
    return Status(StatusCode::kInvalidArgument, name + ":1: not a sweep coverage file (expected '" + std::string(kHeader) + "')");
  bool columns_seen = false;
  for (size_t n = 2; std::getline(in, line); ++n) {
    const std::string where = name + ":" + std::to_string(n);
    const std::vector<std::string> f = split_tabs(line);
    Status st = Status::ok();
    if (!columns_seen && !line.empty() && line[0] == '#') st = parse_meta(f, c, where);
    else if (!columns_seen && line == "name\tseeds\tfirst_seed\thits") columns_seen = true;
    else if (columns_seen) st = parse_row(f, c, where);
    else st = Status(StatusCode::kInvalidArgument, where + ": expected the column line 'name<TAB>seeds<TAB>first_seed<TAB>hits'");
    if (!st.is_ok()) return st;
  }
  if (!columns_seen) return Status(StatusCode::kInvalidArgument, name + ": no column line (a cut-off file?)");
  return c;
}

std::string format_coverage_summary(const SweepCoverage& c) {
  const auto [probes, probes_total] = reached_of(c, false);
  const auto [api, api_total] = reached_of(c, true);
  std::string out = "coverage          " + std::to_string(c.seeds_reporting) + " seeds reached " + std::to_string(probes) +
                    " of " + std::to_string(probes_total) + " probes and " + std::to_string(api) + " of " +
                    std::to_string(api_total) + " API uses\n";
  const auto [states, states_total] = fault_states_reached(c);
  if (states > 0)
    out += "fault states      " + std::to_string(states) + " of " + std::to_string(states_total) + " fault kind x cluster state names\n";
  const std::vector<std::string> missed = c.missed();
  if (!c.must_reach.empty()) {
    out += "must_reach        ";
    out += missed.empty() ? "all " + std::to_string(c.must_reach.size()) + " reached\n"
                          : "MISSED " + std::to_string(missed.size()) + " of " + std::to_string(c.must_reach.size()) + "\n";
    for (const std::string& name : missed) out += "  not reached: " + name + " (" + history::coverage_meaning(name) + ")\n";
  }
  size_t listed = 0, unreached = probes_total - probes;
  if (unreached > 0) out += "probes never reached (" + std::to_string(unreached) + "):\n";
  for (const history::CoverageItem& item : history::coverage_catalogue()) {
    if (is_api(item.name) || c.reached.count(item.name) || listed == kUnreachedListed) continue;
    out += "  " + item.name + ": " + item.meaning + "\n";
    ++listed;
  }
  if (unreached > listed) out += "  ... and " + std::to_string(unreached - listed) + " more (coverage.tsv)\n";
  return out;
}

std::string format_coverage_markdown(const SweepCoverage& c, const std::string& title,
                                     const std::map<std::string, std::string>& first_where) {
  auto first = [&](const std::string& name, const CoverageEntry& e) {
    auto it = first_where.find(name);
    return it != first_where.end() ? it->second : std::to_string(e.first_seed);
  };
  const auto [probes, probes_total] = reached_of(c, false);
  const auto [api, api_total] = reached_of(c, true);
  std::string out = "# " + title + "\n\n" + std::to_string(c.seeds_reporting) + " seeds reached " + std::to_string(probes) +
                    " of " + std::to_string(probes_total) + " probes and " + std::to_string(api) + " of " +
                    std::to_string(api_total) + " API uses.\n\n| name | meaning | seeds | first reached | hits |\n|---|---|---|---|---|\n";
  for (const history::CoverageItem& item : history::coverage_catalogue()) {
    auto it = c.reached.find(item.name);
    if (it == c.reached.end()) {
      out += "| `" + item.name + "` | " + item.meaning + " | **0** | - | 0 |\n";
      continue;
    }
    out += "| `" + item.name + "` | " + item.meaning + " | " + std::to_string(it->second.seeds) + " | " +
           first(item.name, it->second) + " | " + std::to_string(it->second.hits) + " |\n";
  }
  for (const auto& [name, e] : c.reached)
    if (history::coverage_meaning(name).empty() && !is_fault_state(name))
      out += "| `" + name + "` | (outside the catalogue) | " + std::to_string(e.seeds) + " | " + first(name, e) +
             " | " + std::to_string(e.hits) + " |\n";
  const auto [states, states_total] = fault_states_reached(c);
  if (states > 0) out += fault_state_matrix(c) + "\n" + std::to_string(states) + " of " + std::to_string(states_total) + " reached.\n";
  return out;
}

}  // namespace dst::sweep
