#include "tools/coverage_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "tools/exit_codes.h"
#include "tools/sweep_coverage.h"
#include "tools/text_file.h"

namespace dst {
namespace {

const char* kCoverageUsage =
    "usage: dst coverage COVERAGE_FILE... [--markdown TITLE] [--must-reach FILE]\n"
    "  COVERAGE_FILE   a coverage.tsv written by `dst sweep` (or `dst merge --coverage-out`)\n"
    "  --markdown TITLE  print the whole table as Markdown under the heading TITLE\n"
    "  --must-reach FILE coverage names, one per line ('#' comments), that some sweep must reach\n"
    "Exit: 0; 1 a --must-reach name was reached by no sweep; 2 usage or a bad file.\n";

constexpr size_t kFilesMax = 10'000;

int coverage_usage_error(const std::string& message) {
  std::fprintf(stderr, "dst coverage: %s\n\n%s", message.c_str(), kCoverageUsage);
  return kExitUsage;
}

// The names of a --must-reach file; each must be a catalogue name.
Result<std::vector<std::string>> read_must_reach(const std::string& path) {
  Result<std::string> text = read_text_file(path);
  if (!text.is_ok()) return text.status();
  std::vector<std::string> names;
  std::istringstream in(*text);
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
    if (line.empty()) continue;
    if (history::coverage_meaning(line).empty())
      return Status(StatusCode::kInvalidArgument, path + ":" + std::to_string(n) + ": '" + line + "' is no coverage name dst knows");
    if (names.size() >= history::kCoverageNamesMax) return Status(StatusCode::kInvalidArgument, path + ": too many names");
    names.push_back(line);
  }
  return names;
}

struct Options {
  std::vector<std::string> files;
  std::optional<std::string> markdown, must_reach;
};

std::optional<int> parse(const std::vector<std::string>& argv, Options& o) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s", kCoverageUsage);
      return kExitPass;
    }
    if (a == "--markdown" || a == "--must-reach") {
      if (i + 1 >= argv.size() || argv[i + 1].empty()) return coverage_usage_error(a + " expects a value");
      (a == "--markdown" ? o.markdown : o.must_reach) = argv[++i];
      continue;
    }
    if (a.rfind("-", 0) == 0) return coverage_usage_error("unknown option '" + a + "'");
    if (o.files.size() >= kFilesMax) return coverage_usage_error("more than " + std::to_string(kFilesMax) + " files");
    o.files.push_back(a);
  }
  if (o.files.empty()) return coverage_usage_error("no coverage files given");
  return std::nullopt;
}

// "<dir>:<seed>": where each name was first reached, the first file (in argument order) that did.
std::map<std::string, std::string> first_reached(const std::vector<std::pair<std::string, sweep::SweepCoverage>>& each) {
  std::map<std::string, std::string> first;
  for (const auto& [label, c] : each)
    for (const auto& [name, e] : c.reached) first.emplace(name, label + ":" + std::to_string(e.first_seed));
  return first;
}

}  // namespace

int coverage_command(const std::vector<std::string>& argv) {
  Options o;
  if (std::optional<int> done = parse(argv, o)) return *done;
  std::vector<std::pair<std::string, sweep::SweepCoverage>> each;
  sweep::SweepCoverage total;
  for (const std::string& path : o.files) {
    Result<std::string> text = read_text_file(path);
    if (!text.is_ok()) return coverage_usage_error(text.status().message());
    Result<sweep::SweepCoverage> c = sweep::parse_coverage(*text, path);
    if (!c.is_ok()) return coverage_usage_error(c.status().message());
    total.merge(*c);
    each.emplace_back(std::filesystem::path(path).parent_path().filename().string(), std::move(*c));
  }
  if (o.must_reach) {
    Result<std::vector<std::string>> names = read_must_reach(*o.must_reach);
    if (!names.is_ok()) return coverage_usage_error(names.status().message());
    total.must_reach.insert(names->begin(), names->end());
  }
  if (o.markdown) {
    // Where each name was first reached names the sweep too: a suite's scenarios share seed numbers.
    std::printf("%s", sweep::format_coverage_markdown(total, *o.markdown, first_reached(each)).c_str());
  } else {
    std::printf("%s", sweep::format_coverage_summary(total).c_str());
  }
  return total.missed().empty() ? kExitPass : kExitViolation;
}

}  // namespace dst
