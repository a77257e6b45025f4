// See import_etcd_report.h.
#include "history/import_etcd_report.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "base/assert.h"
#include "base/json_value.h"
#include "base/limits.h"
#include "history/history_file.h"
#include "history/import_etcd_report_reader.h"

namespace dst::history {

namespace {

namespace fs = std::filesystem;
using report_import::Reader;

enum class FileKind : uint8_t { kOperations, kWatch };

// "client-<N>" -> N (decimal, no sign, at most 9 digits); nullopt for any other name.
std::optional<uint32_t> client_number(std::string_view name) {
  constexpr std::string_view kPrefix = "client-";
  if (name.substr(0, kPrefix.size()) != kPrefix || name.size() == kPrefix.size() || name.size() > kPrefix.size() + 9)
    return std::nullopt;
  uint64_t n = 0;
  for (char c : name.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return static_cast<uint32_t>(n);
}

// ".../client-<N>/operations.json" or ".../client-<N>/watch.json": the client and the kind.
std::optional<std::pair<uint32_t, FileKind>> parse_file_name(const std::string& name) {
  const size_t slash = name.rfind('/');
  if (slash == std::string::npos || slash == 0) return std::nullopt;
  const size_t dir_start = name.rfind('/', slash - 1);
  const size_t from = dir_start == std::string::npos ? 0 : dir_start + 1;
  std::optional<uint32_t> n = client_number(std::string_view(name).substr(from, slash - from));
  const std::string base = name.substr(slash + 1);
  if (!n || (base != "operations.json" && base != "watch.json")) return std::nullopt;
  return std::make_pair(*n, base == "watch.json" ? FileKind::kWatch : FileKind::kOperations);
}

struct Pending {
  Operation op;
  size_t order = 0;       // records read before it, for a stable sort at equal call times
  std::string member_id;  // as the report writes it: numbered n1, n2, ... in call order
};

Status read_file(const ReportFile& f, uint32_t client, FileKind kind, std::vector<Pending>* ops,
                 ImportedReport* out, size_t* records) {
  Result<std::vector<json::Value>> values = json::parse_stream(f.text, f.name);
  if (!values.is_ok()) return values.status();
  Reader r(f.name);
  for (const json::Value& v : *values) {
    if (++*records > kReportRecordsMax)
      return Status(StatusCode::kInvalidArgument, f.name + ": more than " + std::to_string(kReportRecordsMax) +
                                                      " records in the report; dst reads at most that many");
    if (kind == FileKind::kWatch) {
      Watch w;
      w.client = client;
      report_import::read_watch(r, v, &w);
      if (!r.ok()) return r.error();
      if (out->history.watches.size() >= limits::kHistoryWatchesMax)
        return Status(StatusCode::kInvalidArgument, f.name + ": more than " + std::to_string(limits::kHistoryWatchesMax) +
                                                        " watches in the report; dst reads at most that many");
      w.id = out->history.watches.size();
      out->history.watches.push_back(std::move(w));
      continue;
    }
    Pending p{Operation{}, *records, {}};
    const bool kept = report_import::read_operation(r, v, &p.op, &p.member_id);
    if (!r.ok()) return r.error();
    if (kept) ops->push_back(std::move(p));
    else ++out->left_out;
  }
  return Status::ok();
}

void add_notes(ImportedReport* out) {
  out->notes.push_back("the report is taken to start from an empty store at revision 1 (etcd's validation "
                       "assumes it too)");
  out->notes.push_back("a report records neither a key's lease nor (but at its creation) its create revision, "
                       "nor what a write replaced: those are not compared");
}

// The client-<N> directories of a report, by N.
Result<std::vector<std::pair<uint32_t, fs::path>>> client_dirs(const std::string& dir) {
  std::vector<std::pair<uint32_t, fs::path>> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  for (size_t seen = 0; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (++seen > 10 * kReportClientsMax || out.size() > kReportClientsMax)
      return Status(StatusCode::kInvalidArgument, dir + ": too many entries for an etcd robustness report");
    std::optional<uint32_t> n = client_number(it->path().filename().string());
    std::error_code dec;
    if (n && it->is_directory(dec)) out.emplace_back(*n, it->path());
  }
  if (ec) return Status(StatusCode::kIoError, dir + ": cannot list the directory: " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

bool is_etcd_report_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  Result<std::vector<std::pair<uint32_t, fs::path>>> dirs = client_dirs(dir);
  if (!dirs.is_ok()) return false;
  for (const auto& [n, path] : *dirs)
    if (fs::exists(path / "operations.json", ec) || fs::exists(path / "watch.json", ec)) return true;
  return false;
}

Result<ImportedReport> import_etcd_report(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return Status(StatusCode::kNotFound, dir + ": no such file or directory");
  if (!fs::is_directory(dir, ec))
    return Status(StatusCode::kInvalidArgument,
                  dir + ": not a directory; an etcd robustness report is a directory of client-<N>/operations.json "
                        "and client-<N>/watch.json");
  Result<std::vector<std::pair<uint32_t, fs::path>>> dirs = client_dirs(dir);
  if (!dirs.is_ok()) return dirs.status();
  std::vector<ReportFile> files;
  uint64_t bytes = 0;
  for (const auto& [n, path] : *dirs)
    for (const char* name : {"operations.json", "watch.json"}) {
      std::error_code ec;
      const fs::path file = path / name;
      if (!fs::exists(file, ec)) continue;
      Result<std::string> text = read_history_file(file.string(), limits::kImportFileBytesMax - bytes);
      if (!text.is_ok()) return text.status();
      bytes += text->size();
      files.push_back(ReportFile{file.string(), std::move(*text)});
    }
  if (files.empty())
    return Status(StatusCode::kInvalidArgument,
                  dir + ": no etcd robustness report here: expected client-<N>/operations.json or client-<N>/watch.json");
  return import_etcd_report_files(files);
}

Result<ImportedReport> import_etcd_report_files(const std::vector<ReportFile>& files) {
  ImportedReport out;
  std::vector<Pending> ops;
  std::vector<std::pair<std::pair<uint32_t, FileKind>, const ReportFile*>> ordered;
  if (files.size() > 2 * kReportClientsMax)
    return Status(StatusCode::kInvalidArgument, "more than " + std::to_string(kReportClientsMax) +
                                                    " clients in the report; dst reads at most that many");
  for (const ReportFile& f : files) {
    auto parsed = parse_file_name(f.name);
    if (!parsed)
      return Status(StatusCode::kInvalidArgument,
                    f.name + ": not a report file: expected client-<N>/operations.json or client-<N>/watch.json");
    ordered.emplace_back(*parsed, &f);
  }
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t records = 0;
  std::optional<uint32_t> last_client;
  for (const auto& [what, f] : ordered) {
    if (!last_client || *last_client != what.first) ++out.clients;
    last_client = what.first;
    if (Status st = read_file(*f, what.first, what.second, &ops, &out, &records); !st.is_ok()) return st;
  }
  std::stable_sort(ops.begin(), ops.end(), [](const Pending& a, const Pending& b) {
    return a.op.invoke_ns != b.op.invoke_ns ? a.op.invoke_ns < b.op.invoke_ns : a.order < b.order;
  });
  std::map<std::string, uint32_t> members;  // member-id -> 1, 2, ... by first answer
  for (Pending& p : ops) {
    if (!p.member_id.empty()) p.op.member = members.emplace(p.member_id, members.size() + 1).first->second;
    p.op.id = out.history.operations.size();
    out.history.operations.push_back(std::move(p.op));
  }
  add_notes(&out);
  return out;
}

}  // namespace dst::history
