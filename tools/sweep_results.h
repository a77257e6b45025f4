// The data of a seed sweep, without any process handling: seed ranges and shards, one row per seed,
// the results file (sweep.tsv) and its parser, merging shard files, the summary table and the sweep's
// exit code. `dst sweep` (tools/sweep_command.h) produces these; `dst merge` (tools/merge_command.h)
// reads them back. Everything here is a pure function so the round trip and the shard arithmetic are
// unit-tested (tools/sweep_results_test.cc); docs/sweep.md describes the formats for users.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dst::sweep {

// One sweep process running more seeds than this is almost certainly a typo (1..1000000000): at a
// second per seed it would take weeks, and the rows alone would take ~100 MB. Shard it instead.
inline constexpr uint64_t kMaxSweepSeeds = 1'000'000;
// Shard counts beyond this are not a real deployment (and would make the shard loop pointless).
inline constexpr uint64_t kMaxShards = 100'000;
// A first-violation line is for a table; the full text stays in the seed's log.
inline constexpr size_t kMaxViolationLineChars = 300;

// An inclusive range of seeds, "A..B" (or a single seed "N").
struct SeedRange {
  uint64_t first = 0;
  uint64_t last = 0;
  uint64_t count() const { return last - first + 1; }
  bool contains(uint64_t seed) const { return seed >= first && seed <= last; }
  std::string to_string() const;
  bool operator==(const SeedRange&) const = default;
};
Result<SeedRange> parse_seed_range(std::string_view text);
// "1..4,9..12": the coverage line of a results file; empty means no seeds.
std::string format_seed_ranges(const std::vector<SeedRange>& ranges);
Result<std::vector<SeedRange>> parse_seed_ranges(std::string_view text);
// Sorted, with overlapping and adjacent ranges joined: 1..4 + 5..8 = 1..8.
std::vector<SeedRange> coalesce(std::vector<SeedRange> ranges);

// Shard I of N owns the seeds with seed mod N == I. Round-robin rather than contiguous blocks: every
// shard gets an even share of each part of the range (so one slow region does not land on one
// machine), and a seed's shard does not depend on where the range starts.
struct Shard {
  uint64_t index = 0;
  uint64_t count = 1;
  bool contains(uint64_t seed) const { return seed % count == index; }
  std::string to_string() const { return std::to_string(index) + "/" + std::to_string(count); }
  bool operator==(const Shard&) const = default;
};
Result<Shard> parse_shard(std::string_view text);  // "I/N", 0 <= I < N
// How many seeds of `range` the shard owns, and which (ascending; the count must be at most
// kMaxSweepSeeds).
uint64_t shard_seed_count(const SeedRange& range, const Shard& shard);
std::vector<uint64_t> shard_seeds(const SeedRange& range, const Shard& shard);

// Where a sweep's shard comes from, in order: --shard I/N; else an index from the environment
// (JOB_COMPLETION_INDEX from a Kubernetes Indexed Job, else SLURM_ARRAY_TASK_ID from a Slurm array)
// with the count from --shards N, else DST_SHARDS; else unsharded (0/1). An index without a count, a
// count without an index, or I >= N is a usage error. Values are passed in so this stays testable.
struct ShardSources {
  std::optional<std::string> shard_flag = {};          // --shard
  std::optional<std::string> shards_flag = {};         // --shards
  std::optional<std::string> job_completion_index = {};  // env JOB_COMPLETION_INDEX
  std::optional<std::string> slurm_array_task_id = {};   // env SLURM_ARRAY_TASK_ID
  std::optional<std::string> dst_shards = {};            // env DST_SHARDS
};
Result<Shard> resolve_shard(const ShardSources& sources);
ShardSources shard_sources_from_environment(std::optional<std::string> shard_flag,
                                            std::optional<std::string> shards_flag);

// What one seed's `dst run` ended with. The exit codes are DESIGN.md's; a child killed by a signal
// (an assertion abort, a segfault) is a crash, and a child the sweep had to kill is a timeout.
enum class Verdict { kPass, kViolation, kError, kUnknown, kCrash, kTimeout };
inline constexpr Verdict kAllVerdicts[] = {Verdict::kPass,  Verdict::kViolation, Verdict::kUnknown,
                                           Verdict::kError, Verdict::kCrash,     Verdict::kTimeout};
const char* verdict_name(Verdict v);
std::optional<Verdict> verdict_from_name(std::string_view name);
Verdict verdict_from_exit_code(int exit_code);  // 0 pass, 1 violation, 2 error, 3 unknown, else crash

struct SeedResult {
  uint64_t seed = 0;
  int exit_code = 0;  // the child's exit status; 128 + signal number when it was killed by one
  Verdict verdict = Verdict::kPass;
  std::string trace_hash;       // from the child's "trace hash 0x..." line; "" if it never printed one
  int64_t wall_ms = 0;          // wall time of the child process
  std::string first_violation;  // one line, no tabs; "" for a passing seed
  bool operator==(const SeedResult&) const = default;
};

// The header says what was swept, so shard files from different sweeps are never merged by mistake.
struct SweepHeader {
  std::string scenario;            // "etcd" or a scenario file, as given on the command line
  std::vector<std::string> extra;  // the run arguments after "--", verbatim
  std::vector<SeedRange> seeds;    // the seed range(s) swept, coalesced
  Shard shard;                     // which shard of `seeds` the rows cover (0/1: all of them)
  bool operator==(const SweepHeader&) const = default;
};

struct SweepResults {
  SweepHeader header;
  std::vector<SeedResult> rows;  // sorted by seed, unique
};

// The results file (sweep.tsv): '#' header lines, a column line, one tab-separated row per seed:
//   # dst sweep results v1
//   # scenario<TAB>etcd
//   # extra<TAB>--duration<TAB>2s
//   # seeds<TAB>1..4
//   # shard<TAB>0/1
//   seed<TAB>exit<TAB>verdict<TAB>trace_hash<TAB>wall_ms<TAB>first_violation
//   1<TAB>0<TAB>pass<TAB>0x1234...<TAB>812<TAB>-
// An empty trace hash or violation is written as "-".
std::string format_results(const SweepResults& results);
// `name` (the file name) prefixes every error, with the line number.
Result<SweepResults> parse_results(std::string_view text, const std::string& name);

// An argument can go into the header only without tabs and newlines (they are the separators).
Status check_extra_args(const std::vector<std::string>& extra);

// Combines shard result files. Refuses (naming the file) files of another scenario or other extra
// arguments, a seed present in two files, or a row outside its own file's seeds/shard. Seeds that
// the files' ranges cover but no file has are reported in `missing` (count and the first few); the
// merged header then still claims shard 0/1 of the union of ranges, so callers must check `missing`.
struct NamedResults {
  std::string name;
  SweepResults results;
};
struct MergeOutcome {
  SweepResults merged;
  uint64_t missing_count = 0;
  std::vector<uint64_t> missing_first;  // up to kMissingListed seeds, ascending
};
inline constexpr size_t kMissingListed = 10;
Result<MergeOutcome> merge_results(const std::vector<NamedResults>& files);

// 1 if any seed violated (or crashed or timed out: an abort or a hang in a deterministic simulation
// is a bug too), else 3 if any gave up, else 2 if any had a usage/scenario error, else 0.
int sweep_exit_code(const std::vector<SeedResult>& rows);

// `dst run SCENARIO --seed S EXTRA...`, shell-quoted so it can be pasted.
std::string reproduce_command(const SweepHeader& header, uint64_t seed);
std::string shell_quote(const std::string& arg);

// The summary table: what was swept, seeds per verdict, then each failing seed with its verdict,
// first violation line and reproduce command. Derived from the results alone (no wall time, no
// paths), so the merged summary of shards is byte-identical to the unsharded sweep's.
std::string format_summary(const SweepResults& results);

// For a child that stopped without a result file (a usage error, a crash): the line of its
// combined stdout+stderr that says why, quoted for the summary (one line, no tabs, at most
// kMaxViolationLineChars). Only shown, never used to decide a verdict: that is the exit status.
std::string stop_reason_from_log(std::string_view log);
// One table-friendly line: tabs and runs of blanks become one space, trimmed, cut to
// kMaxViolationLineChars at a UTF-8 character boundary.
std::string one_line(std::string_view s);

}  // namespace dst::sweep
