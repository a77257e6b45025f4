// See export_command.h.
#include "tools/export_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "history/export_etcd_report.h"
#include "history/export_jepsen.h"
#include "history/history_file.h"
#include "history/run_db.h"
#include "tools/cli_args.h"
#include "tools/exit_codes.h"

namespace dst {

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "dst export: %s\n", message.c_str());
  return kExitUsage;
}

// A key as a file name: letters, digits, '-' and '.' as they are (not a leading '.'), the rest _XX.
std::string file_name_of(const std::string& key) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < key.size() && out.size() < 200; ++i) {
    const unsigned char c = static_cast<unsigned char>(key[i]);
    if (std::isalnum(c) || c == '-' || (c == '.' && i > 0)) {
      out += static_cast<char>(c);
    } else {
      out += '_';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return (out.empty() ? "_" : out) + ".log";
}

Status write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status(StatusCode::kIoError, path + ": cannot write the file");
  return Status::ok();
}

int write_logs(const std::vector<history::JepsenKeyLog>& logs, const std::string& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool one_file = logs.size() == 1 && !fs::is_directory(out, ec);
  if (one_file) {
    if (Status st = write_file(out, logs.front().text); !st.is_ok()) return fail(st.message());
    std::printf("%s   key %s, %zu operations\n", out.c_str(), logs.front().key.c_str(), logs.front().operations);
    return kExitPass;
  }
  fs::create_directories(out, ec);
  if (ec) return fail(out + ": cannot create the directory: " + ec.message());
  std::set<std::string> used;  // long keys cut to one name get a number, never overwrite each other
  for (const history::JepsenKeyLog& log : logs) {
    const std::string base = file_name_of(log.key);  // "KEY.log"
    std::string name = base;
    for (size_t n = 2; !used.insert(name).second; ++n) name = base.substr(0, base.size() - 4) + "-" + std::to_string(n) + ".log";
    const std::string path = (fs::path(out) / name).string();
    if (Status st = write_file(path, log.text); !st.is_ok()) return fail(st.message());
    std::printf("%s   key %s, %zu operations\n", path.c_str(), log.key.c_str(), log.operations);
  }
  return kExitPass;
}

// --format etcd-report: DIR/client-<N>/operations.json and watch.json. DIR must be new or empty:
// a report is read as every client-<N> directory in it, and an older report's clients would mix in.
int write_report(const std::string& db, const history::EtcdReport& report, const std::string& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(out, ec) && (!fs::is_directory(out, ec) || !fs::is_empty(out, ec)))
    return fail(out + ": exists and is not an empty directory; a report needs a directory of its own");
  size_t ops = 0, watches = 0;
  for (const history::EtcdReportClient& c : report.clients) {
    const fs::path dir = fs::path(out) / ("client-" + std::to_string(c.id));
    fs::create_directories(dir, ec);
    if (ec) return fail(dir.string() + ": cannot create the directory: " + ec.message());
    if (!c.operations.empty())
      if (Status st = write_file((dir / "operations.json").string(), c.operations); !st.is_ok()) return fail(st.message());
    if (!c.watch.empty())
      if (Status st = write_file((dir / "watch.json").string(), c.watch); !st.is_ok()) return fail(st.message());
    ops += c.operations_written;
    watches += c.watches_written;
  }
  std::printf("%s   etcd robustness report of %s: %zu client(s), %zu operations, %zu watches\n", out.c_str(),
              db.c_str(), report.clients.size(), ops, watches);
  std::printf("left out         %zu reads etcd's requests cannot express, %zu operations with no effect or no "
              "report type, %zu watches\n",
              report.reads_left_out, report.ops_left_out, report.watches_left_out);
  std::printf("not in the format  lease TTLs and keep-alives (no lease-expired-early check on the report), a key's "
              "lease and create revision, what a write replaced (prev_kv), members\n");
  return kExitPass;
}

int export_etcd_report(const std::string& db, const history::History& h, const std::string& out) {
  if (out.empty()) return fail("--format etcd-report writes a directory: give --out DIR");
  Result<history::EtcdReport> report = history::export_etcd_report(h);
  if (!report.is_ok()) return fail(db + ": " + report.status().message());
  if (report->clients.empty()) return fail(db + ": no operation or watch etcd's report can hold: nothing to export");
  return write_report(db, *report, out);
}

}  // namespace

int export_command(const std::vector<std::string>& argv) {
  cli::Args args("dst export", argv);
  args.positional("RUN.db", "a run database (dst run ... --out DIR writes DIR/run.db)", false);
  args.option("format", "F", "jepsen-log: Jepsen's log lines, each key a register (the register workload); "
                             "etcd-report: etcd's robustness test report (client-N/operations.json, watch.json)");
  args.option("out", "PATH", "jepsen-log: the log file (one key), or a directory for one KEY.log per key; default: "
                             "stdout, for a run with one key. etcd-report: a new directory");
  if (std::optional<int> done = args.parse_or_exit()) return *done;
  const std::string db = *args.positional_value("RUN.db");
  const std::string format = args.value("format").value_or("");
  if (format != "jepsen-log" && format != "etcd-report")
    return fail("--format must be jepsen-log or etcd-report, got '" + format + "'");
  if (!history::is_regular_file(db)) return fail(db + ": not a regular file; expected a run database");
  Result<history::History> h = history::read_history(db);
  if (!h.is_ok()) return fail(h.status().message());
  const std::string out = args.value("out").value_or("");
  if (args.has("out") && out.empty()) return fail("--out expects a file or directory name, got ''");
  if (format == "etcd-report") return export_etcd_report(db, *h, out);
  Result<std::vector<history::JepsenKeyLog>> logs = history::export_jepsen_log(*h);
  if (!logs.is_ok()) return fail(db + ": " + logs.status().message());
  if (logs->empty()) return fail(db + ": no key was read or written: nothing to export");
  if (!out.empty()) return write_logs(*logs, out);
  if (logs->size() > 1)
    return fail(db + ": " + std::to_string(logs->size()) + " keys, one log each: give --out DIR");
  std::fwrite(logs->front().text.data(), 1, logs->front().text.size(), stdout);
  return kExitPass;
}

}  // namespace dst
