// See merge_command.h.
#include "tools/merge_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tools/exit_codes.h"
#include "tools/sweep_coverage.h"
#include "tools/sweep_results.h"
#include "tools/text_file.h"

namespace dst {
namespace {

const char* kUsage =
    "usage: dst merge RESULTS_FILE... [--out FILE] [--coverage-out FILE]\n"
    "  RESULTS_FILE\n"
    "      a sweep.tsv written by `dst sweep` (one per shard; a merged file may be merged again); the\n"
    "      coverage.tsv beside each is merged too when every one has it\n"
    "  --out FILE\n"
    "      write the merged results file to FILE\n"
    "  --coverage-out FILE\n"
    "      write the merged coverage file to FILE\n"
    "  --help\n"
    "      show this help\n"
    "Prints the same summary table as an unsharded `dst sweep`. Exit: 1 a seed violated, crashed or\n"
    "timed out, or a must_reach{} name was reached by no seed; else 3 a checker gave up; else 2 a\n"
    "scenario error, a bad or conflicting file, or a missing shard; else 0. See docs/sweep.md.\n";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "dst merge: %s\n\n%s", message.c_str(), kUsage);
  return kExitUsage;
}

std::string format_missing(const sweep::MergeOutcome& m) {
  std::string s = std::to_string(m.missing_count) + " seed(s) of " + sweep::format_seed_ranges(m.merged.header.seeds) +
                  " are in no file (a missing shard?), e.g.";
  for (uint64_t seed : m.missing_first) s += " " + std::to_string(seed);
  return s;
}

// The coverage.tsv beside each results file, merged; nullopt when any is missing (a sweep from
// before coverage was recorded), an error when one is unreadable.
Result<std::optional<sweep::SweepCoverage>> merge_coverage(const std::vector<std::string>& results_paths) {
  sweep::SweepCoverage merged;
  for (const std::string& path : results_paths) {
    const std::filesystem::path beside = std::filesystem::path(path).parent_path() / "coverage.tsv";
    if (!std::filesystem::exists(beside)) return std::optional<sweep::SweepCoverage>();
    Result<std::string> text = read_text_file(beside.string());
    if (!text.is_ok()) return text.status();
    Result<sweep::SweepCoverage> parsed = sweep::parse_coverage(*text, beside.string());
    if (!parsed.is_ok()) return parsed.status();
    merged.merge(*parsed);
  }
  return std::optional<sweep::SweepCoverage>(std::move(merged));
}

Status write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.flush();
  return f ? Status::ok() : Status(StatusCode::kIoError, "cannot write " + path);
}

}  // namespace

int merge_command(const std::string& self, const std::vector<std::string>& argv) {
  (void)self;
  std::vector<std::string> paths;
  std::optional<std::string> out, coverage_out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s", kUsage);
      return kExitPass;
    }
    bool matched = false;
    for (auto [flag, target] : {std::pair{std::string("--out"), &out}, std::pair{std::string("--coverage-out"), &coverage_out}}) {
      if (a != flag && a.rfind(flag + "=", 0) != 0) continue;
      matched = true;
      if (a != flag) *target = a.substr(flag.size() + 1);
      else if (i + 1 < argv.size()) *target = argv[++i];
      if (!*target || (*target)->empty()) return usage_error(flag + " expects a value (FILE)");
    }
    if (matched) continue;
    if (a.rfind("-", 0) == 0) return usage_error("unknown option '" + a + "'");
    paths.push_back(a);
  }
  if (paths.empty()) return usage_error("no results files given");

  std::vector<sweep::NamedResults> files;
  for (const std::string& path : paths) {
    Result<std::string> text = read_text_file(path);
    if (!text.is_ok()) return usage_error(text.status().message());
    Result<sweep::SweepResults> parsed = sweep::parse_results(*text, path);
    if (!parsed.is_ok()) return usage_error(parsed.status().message());
    files.push_back({path, std::move(*parsed)});
  }
  Result<sweep::MergeOutcome> merged = sweep::merge_results(files);
  if (!merged.is_ok()) return usage_error(merged.status().message());

  Result<std::optional<sweep::SweepCoverage>> coverage = merge_coverage(paths);
  if (!coverage.is_ok()) return usage_error(coverage.status().message());

  int64_t seed_ms = 0;
  for (const sweep::SeedResult& r : merged->merged.rows) seed_ms += r.wall_ms;
  std::printf("%s", sweep::format_summary(merged->merged).c_str());
  if (*coverage) std::printf("%s", sweep::format_coverage_summary(**coverage).c_str());
  std::printf("wall time         %.1fs in seeds, %zu files merged\n", static_cast<double>(seed_ms) / 1e3, files.size());
  if (merged->missing_count > 0) {
    std::printf("INCOMPLETE        %s\n", format_missing(*merged).c_str());
    std::fprintf(stderr, "dst merge: %s\n", format_missing(*merged).c_str());
    return kExitUsage;  // not written to --out: a partial file would claim to cover the whole range
  }
  if (coverage_out && !*coverage) return usage_error("--coverage-out: a results file has no coverage.tsv beside it");
  struct Output {
    const std::optional<std::string>& path;
    const char* label;
    std::string text;
  };
  for (const Output& o : {Output{out, "results ", out ? sweep::format_results(merged->merged) : ""},
                          Output{coverage_out, "coverage", coverage_out ? sweep::format_coverage(**coverage) : ""}}) {
    if (!o.path) continue;
    if (Status st = write_text(*o.path, o.text); !st.is_ok()) {
      std::fprintf(stderr, "dst merge: %s\n", st.message().c_str());
      return kExitUsage;
    }
    std::printf("%s          %s\n", o.label, o.path->c_str());
  }
  const int code = sweep::sweep_exit_code(merged->merged.rows);
  if (code == kExitPass && *coverage && !(*coverage)->missed().empty()) return kExitViolation;
  return code;
}

}  // namespace dst
