// See merge_command.h.
#include "tools/merge_command.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "tools/exit_codes.h"
#include "tools/sweep_results.h"

namespace dst {
namespace {

const char* kUsage =
    "usage: dst merge RESULTS_FILE... [--out FILE]\n"
    "  RESULTS_FILE\n"
    "      a sweep.tsv written by `dst sweep` (one per shard; a merged file may be merged again)\n"
    "  --out FILE\n"
    "      write the merged results file to FILE\n"
    "  --help\n"
    "      show this help\n"
    "Prints the same summary table as an unsharded `dst sweep`. Exit: 1 a seed violated, crashed or\n"
    "timed out; else 3 a checker gave up; else 2 a scenario error, a bad or conflicting file, or a\n"
    "missing shard; else 0. See docs/sweep.md.\n";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "dst merge: %s\n\n%s", message.c_str(), kUsage);
  return kExitUsage;
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kNotFound, path + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status(StatusCode::kIoError, path + ": read error");
  return ss.str();
}

std::string format_missing(const sweep::MergeOutcome& m) {
  std::string s = std::to_string(m.missing_count) + " seed(s) of " + sweep::format_seed_ranges(m.merged.header.seeds) +
                  " are in no file (a missing shard?), e.g.";
  for (uint64_t seed : m.missing_first) s += " " + std::to_string(seed);
  return s;
}

}  // namespace

int merge_command(const std::string& self, const std::vector<std::string>& argv) {
  (void)self;
  std::vector<std::string> paths;
  std::optional<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s", kUsage);
      return kExitPass;
    }
    if (a == "--out" || a.rfind("--out=", 0) == 0) {
      if (a != "--out") {
        out = a.substr(6);
      } else if (i + 1 < argv.size()) {
        out = argv[++i];
      } else {
        return usage_error("--out expects a value (FILE)");
      }
      if (out->empty()) return usage_error("--out expects a value (FILE)");
      continue;
    }
    if (a.rfind("-", 0) == 0) return usage_error("unknown option '" + a + "'");
    paths.push_back(a);
  }
  if (paths.empty()) return usage_error("no results files given");

  std::vector<sweep::NamedResults> files;
  for (const std::string& path : paths) {
    Result<std::string> text = read_file(path);
    if (!text.is_ok()) return usage_error(text.status().message());
    Result<sweep::SweepResults> parsed = sweep::parse_results(*text, path);
    if (!parsed.is_ok()) return usage_error(parsed.status().message());
    files.push_back({path, std::move(*parsed)});
  }
  Result<sweep::MergeOutcome> merged = sweep::merge_results(files);
  if (!merged.is_ok()) return usage_error(merged.status().message());

  int64_t seed_ms = 0;
  for (const sweep::SeedResult& r : merged->merged.rows) seed_ms += r.wall_ms;
  std::printf("%s", sweep::format_summary(merged->merged).c_str());
  std::printf("wall time         %.1fs in seeds, %zu files merged\n", static_cast<double>(seed_ms) / 1e3, files.size());
  if (merged->missing_count > 0) {
    std::printf("INCOMPLETE        %s\n", format_missing(*merged).c_str());
    std::fprintf(stderr, "dst merge: %s\n", format_missing(*merged).c_str());
    return kExitUsage;  // not written to --out: a partial file would claim to cover the whole range
  }
  if (out) {
    std::ofstream f(*out, std::ios::binary | std::ios::trunc);
    f << sweep::format_results(merged->merged);
    f.flush();
    if (!f) {
      std::fprintf(stderr, "dst merge: cannot write %s\n", out->c_str());
      return kExitUsage;
    }
    std::printf("results           %s\n", out->c_str());
  }
  return sweep::sweep_exit_code(merged->merged.rows);
}

}  // namespace dst
