// See sweep_results.h.
#include "tools/sweep_results.h"
#include "base/parse_number.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <map>

#include "tools/exit_codes.h"

namespace dst::sweep {
namespace {

constexpr std::string_view kMagic = "# dst sweep results v1";
constexpr std::string_view kColumns = "seed\texit\tverdict\ttrace_hash\twall_ms\tfirst_violation";
// The summary lists this many failing seeds; the results file has all of them.
constexpr size_t kMaxFailingListed = 50;

Status invalid(const std::string& message) { return Status(StatusCode::kInvalidArgument, message); }

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines = split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();  // the final newline
  for (std::string_view& l : lines)
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  return lines;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }


}  // namespace

// One table-friendly line: tabs and runs of blanks become one space, trimmed, cut at a UTF-8
// character boundary.
std::string one_line(std::string_view s) {
  std::string out;
  for (char c : s) {
    const bool blank = c == ' ' || c == '\t' || c == '\r' || c == '\n';
    if (blank) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > kMaxViolationLineChars) {
    size_t cut = kMaxViolationLineChars;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
    out += "...";
  }
  return out;
}

std::string SeedRange::to_string() const {
  return first == last ? std::to_string(first) : std::to_string(first) + ".." + std::to_string(last);
}

Result<SeedRange> parse_seed_range(std::string_view text) {
  const size_t dots = text.find("..");
  const std::string_view a = dots == std::string_view::npos ? text : text.substr(0, dots);
  const std::string_view b = dots == std::string_view::npos ? text : text.substr(dots + 2);
  const std::optional<uint64_t> first = parse_u64(a), last = parse_u64(b);
  if (!first || !last) {
    return invalid("seeds: expected A..B (inclusive, unsigned integers) or a single seed, got '" +
                   std::string(text) + "'");
  }
  if (*first > *last) {
    return invalid("seeds: empty range '" + std::string(text) + "' (the first seed is above the last)");
  }
  // count() must not wrap around: all 2^64 seeds is not a sweep.
  if (*first == 0 && *last == std::numeric_limits<uint64_t>::max()) return invalid("seeds: range too large");
  return SeedRange{*first, *last};
}

std::string format_seed_ranges(const std::vector<SeedRange>& ranges) {
  std::string out;
  for (const SeedRange& r : ranges) out += (out.empty() ? "" : ",") + r.to_string();
  return out;
}

Result<std::vector<SeedRange>> parse_seed_ranges(std::string_view text) {
  std::vector<SeedRange> out;
  if (text.empty()) return out;
  for (std::string_view part : split(text, ',')) {
    Result<SeedRange> r = parse_seed_range(part);
    if (!r.is_ok()) return r.status();
    out.push_back(*r);
  }
  return out;
}

std::vector<SeedRange> coalesce(std::vector<SeedRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const SeedRange& x, const SeedRange& y) { return x.first != y.first ? x.first < y.first : x.last < y.last; });
  std::vector<SeedRange> out;
  for (const SeedRange& r : ranges) {
    // Adjacent (last + 1 == first) joins too; written so that last == max cannot overflow.
    if (!out.empty() && (out.back().last == std::numeric_limits<uint64_t>::max() || r.first <= out.back().last + 1)) {
      out.back().last = std::max(out.back().last, r.last);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

Result<Shard> parse_shard(std::string_view text) {
  const size_t slash = text.find('/');
  std::optional<uint64_t> index, count;
  if (slash != std::string_view::npos) {
    index = parse_u64(text.substr(0, slash));
    count = parse_u64(text.substr(slash + 1));
  }
  if (!index || !count) return invalid("--shard: expected I/N (shard I of N, 0 <= I < N), got '" + std::string(text) + "'");
  if (*count == 0 || *count > kMaxShards) {
    return invalid("--shard " + std::string(text) + ": the shard count must be 1.." + std::to_string(kMaxShards));
  }
  if (*index >= *count) {
    return invalid("--shard " + std::string(text) + ": the index must be below the count (shards are numbered 0.." +
                   std::to_string(*count - 1) + ")");
  }
  return Shard{*index, *count};
}

namespace {
// The lowest seed >= range.first that the shard owns, if it is within the range.
std::optional<uint64_t> first_shard_seed(const SeedRange& range, const Shard& shard) {
  const uint64_t offset = (shard.index + shard.count - range.first % shard.count) % shard.count;
  if (offset > range.last - range.first) return std::nullopt;
  return range.first + offset;
}
}  // namespace

uint64_t shard_seed_count(const SeedRange& range, const Shard& shard) {
  DST_ASSERT(shard.count > 0 && shard.index < shard.count);
  const std::optional<uint64_t> first = first_shard_seed(range, shard);
  return first ? (range.last - *first) / shard.count + 1 : 0;
}

std::vector<uint64_t> shard_seeds(const SeedRange& range, const Shard& shard) {
  const uint64_t n = shard_seed_count(range, shard);
  DST_ASSERT_LE(n, kMaxSweepSeeds);
  std::vector<uint64_t> out;
  out.reserve(n);
  if (n > 0) {
    const uint64_t first = *first_shard_seed(range, shard);
    for (uint64_t i = 0; i < n; ++i) out.push_back(first + i * shard.count);
  }
  DST_ASSERT(out.empty() || out.back() <= range.last);
  return out;
}

Result<Shard> resolve_shard(const ShardSources& s) {
  auto set = [](const std::optional<std::string>& v) { return v.has_value() && !v->empty(); };
  if (s.shard_flag) {
    if (s.shards_flag) return invalid("give either --shard I/N or --shards N (with the index from the environment), not both");
    return parse_shard(*s.shard_flag);
  }
  std::string index_name, index_value;
  if (set(s.job_completion_index)) {
    index_name = "JOB_COMPLETION_INDEX";
    index_value = *s.job_completion_index;
  } else if (set(s.slurm_array_task_id)) {
    index_name = "SLURM_ARRAY_TASK_ID";
    index_value = *s.slurm_array_task_id;
  }
  std::string count_name, count_value;
  if (s.shards_flag) {
    count_name = "--shards";
    count_value = *s.shards_flag;
  } else if (set(s.dst_shards)) {
    count_name = "DST_SHARDS";
    count_value = *s.dst_shards;
  }
  if (index_name.empty() && count_name.empty()) return Shard{0, 1};
  if (count_name.empty()) {
    return invalid(index_name + "=" + index_value +
                   " is set but the shard count is not: pass --shards N or set DST_SHARDS (or --shard I/N)");
  }
  if (index_name.empty()) {
    return invalid(count_name + " " + count_value +
                   " needs a shard index: --shard I/N, or JOB_COMPLETION_INDEX / SLURM_ARRAY_TASK_ID in the environment");
  }
  const std::optional<uint64_t> index = parse_u64(index_value), count = parse_u64(count_value);
  if (!index) return invalid(index_name + ": expected an unsigned integer, got '" + index_value + "'");
  if (!count || *count == 0 || *count > kMaxShards) {
    return invalid(count_name + ": expected a shard count 1.." + std::to_string(kMaxShards) + ", got '" + count_value + "'");
  }
  if (*index >= *count) {
    return invalid(index_name + "=" + index_value + " is not below the shard count " + count_value + " (from " +
                   count_name + "); shards are numbered 0.." + std::to_string(*count - 1));
  }
  return Shard{*index, *count};
}

ShardSources shard_sources_from_environment(std::optional<std::string> shard_flag,
                                            std::optional<std::string> shards_flag) {
  auto env = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v != nullptr ? std::optional<std::string>(v) : std::nullopt;
  };
  return ShardSources{std::move(shard_flag), std::move(shards_flag), env("JOB_COMPLETION_INDEX"),
                      env("SLURM_ARRAY_TASK_ID"), env("DST_SHARDS")};
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kViolation: return "violation";
    case Verdict::kError: return "error";
    case Verdict::kUnknown: return "unknown";
    case Verdict::kCrash: return "crash";
    case Verdict::kTimeout: return "timeout";
  }
  DST_UNREACHABLE("bad Verdict");
}

std::optional<Verdict> verdict_from_name(std::string_view name) {
  for (Verdict v : kAllVerdicts)
    if (name == verdict_name(v)) return v;
  return std::nullopt;
}

Verdict verdict_from_exit_code(int exit_code) {
  switch (exit_code) {
    case kExitPass: return Verdict::kPass;
    case kExitViolation: return Verdict::kViolation;
    case kExitUsage: return Verdict::kError;
    case kExitGaveUp: return Verdict::kUnknown;
    default: return Verdict::kCrash;
  }
}

Status check_extra_args(const std::vector<std::string>& extra) {
  for (const std::string& a : extra) {
    if (a.find_first_of("\t\n\r") != std::string::npos) {
      return invalid("run argument '" + one_line(a) + "' contains a tab or newline, which the results file cannot hold");
    }
  }
  return Status::ok();
}

std::string format_results(const SweepResults& results) {
  const SweepHeader& h = results.header;
  DST_ASSERT(check_extra_args(h.extra).is_ok());
  DST_ASSERT(h.scenario.find_first_of("\t\n\r") == std::string::npos);
  std::string out(kMagic);
  out += "\n# scenario\t" + h.scenario + "\n# extra";
  for (const std::string& a : h.extra) out += "\t" + a;
  out += "\n# seeds\t" + format_seed_ranges(h.seeds) + "\n# shard\t" + h.shard.to_string() + "\n";
  out += std::string(kColumns) + "\n";
  for (size_t i = 0; i < results.rows.size(); ++i) {
    const SeedResult& r = results.rows[i];
    DST_ASSERT_MSG(i == 0 || results.rows[i - 1].seed < r.seed, "rows must be sorted by seed and unique");
    DST_ASSERT(r.first_violation.find_first_of("\t\n\r") == std::string::npos);
    DST_ASSERT(r.trace_hash.find_first_of("\t\n\r") == std::string::npos);
    out += std::to_string(r.seed) + "\t" + std::to_string(r.exit_code) + "\t" + verdict_name(r.verdict) + "\t" +
           (r.trace_hash.empty() ? "-" : r.trace_hash) + "\t" + std::to_string(r.wall_ms) + "\t" +
           (r.first_violation.empty() ? "-" : r.first_violation) + "\n";
  }
  return out;
}

namespace {

Result<SeedResult> parse_row(std::string_view line, const std::string& where) {
  const std::vector<std::string_view> f = split(line, '\t');
  if (f.size() != 6) return invalid(where + ": expected 6 tab-separated fields, got " + std::to_string(f.size()));
  SeedResult r;
  const std::optional<uint64_t> seed = parse_u64(f[0]);
  const std::optional<int64_t> exit_code = parse_i64(f[1]), wall_ms = parse_i64(f[4]);
  const std::optional<Verdict> verdict = verdict_from_name(f[2]);
  if (!seed) return invalid(where + ": bad seed '" + std::string(f[0]) + "'");
  if (!exit_code || *exit_code < 0 || *exit_code > 255) return invalid(where + ": bad exit code '" + std::string(f[1]) + "'");
  if (!verdict) return invalid(where + ": unknown verdict '" + std::string(f[2]) + "'");
  if (!wall_ms || *wall_ms < 0) return invalid(where + ": bad wall_ms '" + std::string(f[4]) + "'");
  // A timeout is the sweep's own verdict (it killed the child); every other one follows the exit code.
  if (*verdict != Verdict::kTimeout && verdict_from_exit_code(static_cast<int>(*exit_code)) != *verdict) {
    return invalid(where + ": verdict '" + std::string(f[2]) + "' does not match exit code " + std::string(f[1]));
  }
  r.seed = *seed;
  r.exit_code = static_cast<int>(*exit_code);
  r.verdict = *verdict;
  r.trace_hash = f[3] == "-" ? "" : std::string(f[3]);
  r.wall_ms = *wall_ms;
  r.first_violation = f[5] == "-" ? "" : std::string(f[5]);
  return r;
}

// Fills the header from the '#' lines; returns the index of the column line.
Result<size_t> parse_header(const std::vector<std::string_view>& lines, const std::string& name, SweepHeader* h) {
  if (lines.empty() || lines[0] != kMagic) {
    return invalid(name + ":1: not a dst sweep results file (expected '" + std::string(kMagic) + "')");
  }
  std::map<std::string, bool> seen;
  size_t i = 1;
  for (; i < lines.size() && starts_with(lines[i], "# "); ++i) {
    const std::string where = name + ":" + std::to_string(i + 1);
    std::vector<std::string_view> f = split(lines[i].substr(2), '\t');
    const std::string key(f[0]);
    if (seen[key]) return invalid(where + ": '" + key + "' given twice");
    seen[key] = true;
    if (key == "scenario") {
      if (f.size() != 2 || f[1].empty()) return invalid(where + ": expected '# scenario<TAB>NAME'");
      h->scenario = std::string(f[1]);
    } else if (key == "extra") {
      h->extra.assign(f.begin() + 1, f.end());
    } else if (key == "seeds") {
      Result<std::vector<SeedRange>> r = parse_seed_ranges(f.size() == 2 ? f[1] : "");
      if (f.size() != 2 || !r.is_ok()) return invalid(where + ": expected '# seeds<TAB>A..B[,C..D]'");
      h->seeds = coalesce(*r);
    } else if (key == "shard") {
      Result<Shard> r = parse_shard(f.size() == 2 ? f[1] : "");
      if (f.size() != 2 || !r.is_ok()) return invalid(where + ": expected '# shard<TAB>I/N'");
      h->shard = *r;
    }
    // Other keys are ignored, so a newer writer can add some without breaking older readers.
  }
  for (const char* key : {"scenario", "extra", "seeds", "shard"}) {
    if (!seen[key]) return invalid(name + ": the header has no '# " + key + "' line");
  }
  if (i >= lines.size() || lines[i] != kColumns) {
    return invalid(name + ":" + std::to_string(i + 1) + ": expected the column line '" + std::string(kColumns) + "'");
  }
  return i;
}

bool in_ranges(const std::vector<SeedRange>& ranges, uint64_t seed) {
  for (const SeedRange& r : ranges)
    if (r.contains(seed)) return true;
  return false;
}

}  // namespace

Result<SweepResults> parse_results(std::string_view text, const std::string& name) {
  const std::vector<std::string_view> lines = lines_of(text);
  SweepResults out;
  Result<size_t> columns = parse_header(lines, name, &out.header);
  if (!columns.is_ok()) return columns.status();
  for (size_t i = *columns + 1; i < lines.size(); ++i) {
    const std::string where = name + ":" + std::to_string(i + 1);
    if (lines[i].empty()) continue;
    Result<SeedResult> row = parse_row(lines[i], where);
    if (!row.is_ok()) return row.status();
    if (!out.rows.empty() && out.rows.back().seed >= row->seed) {
      return invalid(where + ": seed " + std::to_string(row->seed) + " is not above the previous row's (rows are sorted and unique)");
    }
    if (!in_ranges(out.header.seeds, row->seed) || !out.header.shard.contains(row->seed)) {
      return invalid(where + ": seed " + std::to_string(row->seed) + " is outside the header's seeds " +
                     format_seed_ranges(out.header.seeds) + " shard " + out.header.shard.to_string());
    }
    out.rows.push_back(std::move(*row));
  }
  return out;
}

namespace {

std::string describe_extra(const std::vector<std::string>& extra) {
  if (extra.empty()) return "(none)";
  std::string s;
  for (const std::string& a : extra) s += (s.empty() ? "" : " ") + shell_quote(a);
  return s;
}

// Seeds of `ranges` that no row has; rows are sorted and inside the ranges.
void find_missing(const std::vector<SeedRange>& ranges, const std::vector<SeedResult>& rows, MergeOutcome* out) {
  auto note = [&](uint64_t from, uint64_t to) {  // [from, to] missing
    out->missing_count += to - from + 1;
    for (uint64_t s = from; s <= to && out->missing_first.size() < kMissingListed; ++s) out->missing_first.push_back(s);
  };
  size_t row = 0;
  for (const SeedRange& r : ranges) {
    uint64_t next = r.first;  // the lowest seed of r not yet accounted for
    bool done = false;        // set when r.last was accounted for (next would overflow)
    for (; row < rows.size() && rows[row].seed <= r.last; ++row) {
      DST_ASSERT(rows[row].seed >= next);
      if (rows[row].seed > next) note(next, rows[row].seed - 1);
      if (rows[row].seed == r.last) done = true; else next = rows[row].seed + 1;
    }
    if (!done) note(next, r.last);
  }
  DST_ASSERT_EQ(row, rows.size());
}

}  // namespace

Result<MergeOutcome> merge_results(const std::vector<NamedResults>& files) {
  if (files.empty()) return invalid("merge: no results files");
  const NamedResults& ref = files.front();
  MergeOutcome out;
  out.merged.header.scenario = ref.results.header.scenario;
  out.merged.header.extra = ref.results.header.extra;
  std::vector<SeedRange> ranges;
  std::vector<std::pair<uint64_t, size_t>> seed_file;  // (seed, index of the file that has it)
  for (size_t i = 0; i < files.size(); ++i) {
    const SweepHeader& h = files[i].results.header;
    if (h.scenario != ref.results.header.scenario) {
      return invalid(files[i].name + ": scenario '" + h.scenario + "' differs from '" + ref.results.header.scenario +
                     "' in " + ref.name + "; only shards of the same sweep can be merged");
    }
    if (h.extra != ref.results.header.extra) {
      return invalid(files[i].name + ": run arguments " + describe_extra(h.extra) + " differ from " +
                     describe_extra(ref.results.header.extra) + " in " + ref.name +
                     "; only shards of the same sweep can be merged");
    }
    ranges.insert(ranges.end(), h.seeds.begin(), h.seeds.end());
    for (const SeedResult& r : files[i].results.rows) seed_file.emplace_back(r.seed, i);
  }
  std::sort(seed_file.begin(), seed_file.end());
  for (size_t k = 1; k < seed_file.size(); ++k) {
    if (seed_file[k].first == seed_file[k - 1].first) {
      return invalid(files[seed_file[k].second].name + ": seed " + std::to_string(seed_file[k].first) +
                     " is also in " + files[seed_file[k - 1].second].name +
                     " (overlapping shards, or the same file given twice)");
    }
  }
  out.merged.header.seeds = coalesce(std::move(ranges));
  out.merged.header.shard = Shard{0, 1};
  for (const NamedResults& f : files) out.merged.rows.insert(out.merged.rows.end(), f.results.rows.begin(), f.results.rows.end());
  std::sort(out.merged.rows.begin(), out.merged.rows.end(),
            [](const SeedResult& a, const SeedResult& b) { return a.seed < b.seed; });
  find_missing(out.merged.header.seeds, out.merged.rows, &out);
  return out;
}

int sweep_exit_code(const std::vector<SeedResult>& rows) {
  bool violation = false, unknown = false, error = false;
  for (const SeedResult& r : rows) {
    violation |= r.verdict == Verdict::kViolation || r.verdict == Verdict::kCrash || r.verdict == Verdict::kTimeout;
    unknown |= r.verdict == Verdict::kUnknown;
    error |= r.verdict == Verdict::kError;
  }
  if (violation) return kExitViolation;
  if (unknown) return kExitGaveUp;
  if (error) return kExitUsage;
  return kExitPass;
}

std::string shell_quote(const std::string& arg) {
  const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_-+./:=,@%").find(c) != std::string_view::npos;
  });
  if (plain) return arg;
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string reproduce_command(const SweepHeader& header, uint64_t seed) {
  std::string cmd = "dst run " + shell_quote(header.scenario) + " --seed " + std::to_string(seed);
  for (const std::string& a : header.extra) cmd += " " + shell_quote(a);
  return cmd;
}

std::string format_summary(const SweepResults& results) {
  const SweepHeader& h = results.header;
  std::map<Verdict, uint64_t> per_verdict;
  std::vector<const SeedResult*> failing;
  for (const SeedResult& r : results.rows) {
    ++per_verdict[r.verdict];
    if (r.verdict != Verdict::kPass) failing.push_back(&r);
  }
  std::string out = "sweep             " + shell_quote(h.scenario) + (h.extra.empty() ? "" : " -- " + describe_extra(h.extra)) + "\n";
  out += "seeds             " + format_seed_ranges(h.seeds) +
         (h.shard.count > 1 ? " shard " + h.shard.to_string() : "") + ": " + std::to_string(results.rows.size()) + " run\n";
  for (Verdict v : kAllVerdicts) {
    std::string name = verdict_name(v);
    name.resize(18, ' ');
    out += "  " + name + std::to_string(per_verdict[v]) + "\n";
  }
  if (failing.empty()) return out + "failing seeds     none\n";
  out += "failing seeds     " + std::to_string(failing.size()) + "\n";
  for (size_t i = 0; i < failing.size() && i < kMaxFailingListed; ++i) {
    const SeedResult& r = *failing[i];
    out += "  seed " + std::to_string(r.seed) + "  " + verdict_name(r.verdict) + " (exit " + std::to_string(r.exit_code) +
           ")  " + (r.first_violation.empty() ? "-" : r.first_violation) + "\n";
    out += "    reproduce: " + reproduce_command(h, r.seed) + "\n";
  }
  if (failing.size() > kMaxFailingListed) {
    out += "  ... and " + std::to_string(failing.size() - kMaxFailingListed) + " more in the results file\n";
  }
  return out;
}

namespace {

// Lines that restate the outcome rather than say what went wrong.
bool is_boilerplate(std::string_view line) {
  return line.empty() || starts_with(line, "seed ") || starts_with(line, "verdict") || starts_with(line, "usage:");
}

}  // namespace

std::string stop_reason_from_log(std::string_view log) {
  // What the child said last about why it stopped: an error message or a failed assertion
  // (DST_ASSERT prints "file:line: assertion failed: ..."), else its first line of its own.
  const std::vector<std::string_view> lines = lines_of(log);
  for (std::string_view l : lines) {
    const std::string low = lower(l);
    if (!is_boilerplate(l) && (low.find("error") != std::string::npos || low.find("assertion") != std::string::npos))
      return one_line(l);
  }
  for (std::string_view l : lines)
    if (!is_boilerplate(l)) return one_line(l);
  return "";
}

}  // namespace dst::sweep
