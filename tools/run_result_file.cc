#include "tools/run_result_file.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/trace.h"
#include "base/parse_number.h"
#include "tools/text_file.h"

namespace dst {

namespace {

std::string field(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

bool parse_u64(const std::string& s, uint64_t& out) {
  const std::optional<uint64_t> v = dst::parse_u64(s);
  if (v) out = *v;
  return v.has_value();
}

// One `check` line: name, status, required, checked, violations, first rule, first message.
Status parse_check(const std::vector<std::string>& f, history::CheckRow& c, const std::string& where) {
  if (f.size() != 8) return Status(StatusCode::kInvalidArgument, where + ": a check line has 8 tab-separated fields");
  c.name = f[1];
  const std::optional<history::CheckStatus> status = history::parse_check_status(f[2]);
  if (c.name.empty() || !status)
    return Status(StatusCode::kInvalidArgument, where + ": a check needs a name and a status pass, fail, gave-up or skipped");
  c.status = *status;
  if (f[3] != "0" && f[3] != "1") return Status(StatusCode::kInvalidArgument, where + ": required is 0 or 1");
  c.required = f[3] == "1";
  if (!parse_u64(f[4], c.checked) || !parse_u64(f[5], c.violations))
    return Status(StatusCode::kInvalidArgument, where + ": checked and violations are counts");
  c.first_rule = f[6];
  c.first_message = f[7];
  return Status::ok();
}

// One `coverage` line (name, hits) or `must_reach` line (name).
Status parse_coverage(const std::vector<std::string>& f, RunResultFile& r, const std::string& where) {
  const bool must = f[0] == "must_reach";
  if (f.size() != (must ? 2u : 3u))
    return Status(StatusCode::kInvalidArgument, where + ": a " + f[0] + " line has " + (must ? "2" : "3") + " tab-separated fields");
  const std::string& name = f[1];
  if (name.empty() || name.size() > history::kCoverageNameBytesMax || name.find(' ') != std::string::npos)
    return Status(StatusCode::kInvalidArgument, where + ": a coverage name is 1 to " +
                                                    std::to_string(history::kCoverageNameBytesMax) + " bytes without blanks");
  if (r.coverage.size() + r.must_reach.size() >= history::kCoverageNamesMax)
    return Status(StatusCode::kInvalidArgument, where + ": more than " + std::to_string(history::kCoverageNamesMax) + " coverage names");
  if (must) {
    r.must_reach.push_back(name);
    return Status::ok();
  }
  uint64_t hits = 0;
  if (!parse_u64(f[2], hits) || hits == 0) return Status(StatusCode::kInvalidArgument, where + ": hits is a count above 0");
  if (!r.coverage.emplace(name, hits).second) return Status(StatusCode::kInvalidArgument, where + ": " + name + " twice");
  return Status::ok();
}

Status parse_line(const std::vector<std::string>& f, RunResultFile& r, const std::string& where) {
  const std::string& key = f[0];
  if (key == "check") {
    if (r.checks.size() >= 1000) return Status(StatusCode::kInvalidArgument, where + ": more than 1000 checks");
    r.checks.emplace_back();
    return parse_check(f, r.checks.back(), where);
  }
  if (key == "coverage" || key == "must_reach") return parse_coverage(f, r, where);
  if (key == "shape") {
    if (f.size() != 3 || f[1].empty() || f[1].size() > 64 || f[1].find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos)
      return Status(StatusCode::kInvalidArgument, where + ": a shape line is shape<tab>NAME<tab>VALUE, NAME in a-z and _");
    if (r.shape.size() >= kShapeEntriesMax || !r.shape.emplace(f[1], f[2]).second)
      return Status(StatusCode::kInvalidArgument, where + ": shape " + f[1] + " twice, or more than " +
                                                      std::to_string(kShapeEntriesMax) + " shape lines");
    return Status::ok();
  }
  if (f.size() != 2) return Status(StatusCode::kInvalidArgument, where + ": expected KEY<tab>VALUE");
  uint64_t n = 0;
  if (key == "seed" && parse_u64(f[1], n)) r.seed = n;
  else if (key == "trace_hash" && f[1].size() == 18 && f[1].rfind("0x", 0) == 0 &&
           f[1].find_first_not_of("0123456789abcdef", 2) == std::string::npos)
    r.trace_hash = f[1];
  else if (key == "verdict" && (f[1] == "pass" || f[1] == "violation" || f[1] == "unknown" || f[1] == "error")) r.verdict = f[1];
  else if (key == "exit_code" && parse_u64(f[1], n) && n <= 255) r.exit_code = static_cast<int>(n);
  else if (key == "first_failure") r.first_failure = f[1];
  else if (key == "deciding") r.deciding = f[1];
  else return Status(StatusCode::kInvalidArgument, where + ": unknown key or bad value for '" + key + "'");
  return Status::ok();
}

}  // namespace

std::string format_result_file(const RunResultFile& r) {
  std::string out = "dst-run-result\t1\n";
  out += "seed\t" + std::to_string(r.seed) + "\n";
  out += "trace_hash\t" + r.trace_hash + "\n";
  out += "verdict\t" + r.verdict + "\n";
  out += "exit_code\t" + std::to_string(r.exit_code) + "\n";
  out += "first_failure\t" + field(r.first_failure) + "\n";
  if (!r.deciding.empty()) out += "deciding\t" + field(r.deciding) + "\n";
  for (const auto& [name, value] : r.shape) out += "shape\t" + field(name) + "\t" + field(value) + "\n";
  for (const history::CheckRow& c : r.checks)
    out += "check\t" + field(c.name) + "\t" + history::check_status_name(c.status) + "\t" + (c.required ? "1" : "0") + "\t" +
           std::to_string(c.checked) + "\t" + std::to_string(c.violations) + "\t" + field(c.first_rule) + "\t" +
           field(c.first_message) + "\n";
  for (const auto& [name, hits] : r.coverage) out += "coverage\t" + field(name) + "\t" + std::to_string(hits) + "\n";
  for (const std::string& name : r.must_reach) out += "must_reach\t" + field(name) + "\n";
  return out;
}

Result<RunResultFile> parse_result_file(const std::string& text, const std::string& path) {
  if (text.size() > kRunResultFileBytesMax)
    return Status(StatusCode::kInvalidArgument, path + ": larger than a result file can be");
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != "dst-run-result\t1")
    return Status(StatusCode::kInvalidArgument, path + ":1: not a dst run result file (expected 'dst-run-result<tab>1')");
  RunResultFile r;
  std::set<std::string> keys;
  for (size_t n = 2; std::getline(in, line); ++n) {
    const std::vector<std::string> f = split_tabs(line);
    if (Status st = parse_line(f, r, path + ":" + std::to_string(n)); !st.is_ok()) return st;
    keys.insert(f[0]);
  }
  for (const char* key : {"seed", "trace_hash", "verdict", "exit_code", "first_failure"})
    if (!keys.count(key)) return Status(StatusCode::kInvalidArgument, path + ": no " + key + " line (a cut-off file?)");
  return r;
}

Result<RunResultFile> read_result_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kNotFound, path + ": no result file");
  std::string text(kRunResultFileBytesMax + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return parse_result_file(text, path);
}

RunResultFile make_result_file(uint64_t seed, uint64_t trace_hash, const history::RunVerdict& verdict, int exit_code,
                               const std::vector<history::CheckRow>& checks) {
  RunResultFile r;
  r.seed = seed;
  r.trace_hash = sim::format_trace_hash(trace_hash);
  r.verdict = verdict.name;
  r.exit_code = exit_code;
  if (verdict.deciding) {
    r.first_failure = history::describe_failure(checks[*verdict.deciding]);
    r.deciding = checks[*verdict.deciding].name;
  }
  r.checks = checks;
  return r;
}

void write_result_file_or_warn(const std::string& path, RunResultFile r) {
  const std::string tmp = path + ".tmp";
  for (history::CheckRow& c : r.checks)  // a result file stays small whatever a check said
    for (std::string* text : {&c.first_message, &c.first_rule})
      if (text->size() > kResultFieldBytesMax) text->resize(kResultFieldBytesMax);
  if (r.first_failure.size() > kResultFieldBytesMax) r.first_failure.resize(kResultFieldBytesMax);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    const std::string text = format_result_file(r);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::fprintf(stderr, "dst run: --result %s: cannot write the result file\n", path.c_str());
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::fprintf(stderr, "dst run: --result %s: %s\n", path.c_str(), ec.message().c_str());
}

}  // namespace dst
