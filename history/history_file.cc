// See history_file.h.
#include "history/history_file.h"

#include <sys/stat.h>

#include <cstring>
#include <fstream>

namespace dst::history {

namespace {

// Refuses what is not a regular file or a pipe, with the reason; the stat result otherwise.
Result<struct stat> stat_history_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Status(StatusCode::kNotFound, path + ": cannot open the file: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return Status(StatusCode::kInvalidArgument, path + ": is a directory, not a history file");
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    return Status(StatusCode::kInvalidArgument, path + ": not a regular file or a pipe (a device?); expected a history file");
  return st;
}

}  // namespace

Result<std::string> read_history_file(const std::string& path, uint64_t max_bytes) {
  Result<struct stat> st = stat_history_file(path);
  if (!st.is_ok()) return st.status();
  if (S_ISREG(st->st_mode) && static_cast<uint64_t>(st->st_size) > max_bytes)
    return Status(StatusCode::kInvalidArgument, path + ": larger than " + std::to_string(max_bytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kNotFound, path + ": cannot open the file");
  std::string text;
  std::string chunk(1 << 16, '\0');
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    text.append(chunk.data(), static_cast<size_t>(in.gcount()));  // a pipe has no size: read to its end
    if (text.size() > max_bytes)
      return Status(StatusCode::kInvalidArgument, path + ": larger than " + std::to_string(max_bytes) + " bytes");
  }
  if (in.bad()) return Status(StatusCode::kIoError, path + ": cannot read the file");
  return text;
}

Result<std::string> read_file_head(const std::string& path, size_t n) {
  Result<struct stat> st = stat_history_file(path);
  if (!st.is_ok()) return st.status();
  if (!S_ISREG(st->st_mode)) return Status(StatusCode::kInvalidArgument, path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kNotFound, path + ": cannot open the file");
  std::string head(n, '\0');
  in.read(head.data(), static_cast<std::streamsize>(n));
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

const char* history_format_name(HistoryFormat f) {
  switch (f) {
    case HistoryFormat::kRunDb: return "run-db";
    case HistoryFormat::kJepsen: return "jepsen";
    case HistoryFormat::kPorcupineKv: return "porcupine-kv";
  }
  return "?";
}

namespace {

// Jepsen's log (its loggers are jepsen.core, jepsen.util, ...: "INFO  jepsen.util - ...", or
// "...{GMT}<tab>INFO<tab>[jepsen worker 0] jepsen.util: ..."), or bare op lines as Jepsen prints
// them ("0<tab>:invoke<tab>:read<tab>nil", ":nemesis<tab>:info<tab>:start<tab>nil").
bool looks_like_jepsen_log(std::string_view head) {
  for (std::string_view level : {"INFO", "WARN", "DEBUG", "ERROR"}) {
    const size_t at = head.find(level);
    if (at != std::string_view::npos && head.find("jepsen.", at) != std::string_view::npos) return true;
  }
  const size_t start = head.find_first_not_of(" \t\r\n");
  const std::string_view line = head.substr(start, head.find('\n', start) - start);
  const size_t gap = line.find_first_of(" \t");
  if (gap == std::string_view::npos || gap == 0) return false;
  const std::string_view process = line.substr(0, gap);
  const bool number = process.find_first_not_of("0123456789") == std::string_view::npos;
  if (!number && process[0] != ':') return false;
  const size_t type_at = line.find_first_not_of(" \t", gap);
  if (type_at == std::string_view::npos) return false;
  const std::string_view rest = line.substr(type_at);
  for (std::string_view type : {":invoke", ":ok", ":fail", ":info"})
    if (rest.substr(0, type.size()) == type && rest.size() > type.size() && (rest[type.size()] == '\t' || rest[type.size()] == ' '))
      return true;
  return false;
}

// A JSON object or an array of them: '{' (or '[' then '{') then, past whitespace, '"'.
bool looks_like_json(std::string_view head) {
  auto next = [head](size_t from) { return head.find_first_not_of(" \t\r\n", from); };
  size_t at = next(0);
  if (at == std::string_view::npos) return false;
  if (head[at] == '[') at = next(at + 1);
  if (at == std::string_view::npos || head[at] != '{') return false;
  at = next(at + 1);
  return at != std::string_view::npos && head[at] == '"';
}

// A record of an etcd robustness report's operations.json or watch.json, by its field names.
bool looks_like_report_record(std::string_view head) {
  const std::string_view first = head.substr(0, 4096);
  return (first.find("\"Input\"") != std::string_view::npos && first.find("\"ClientId\"") != std::string_view::npos) ||
         (first.find("\"Request\"") != std::string_view::npos && first.find("\"Responses\"") != std::string_view::npos);
}

// What a file that is no known history starts with, for the error: the reader sees at once whether
// it was handed the wrong file (binary, JSON, an HTML report) or a history in a format we lack.
std::string what_it_starts_with(std::string_view head) {
  const std::string_view first = head.substr(0, 512);
  if (first.find('\0') != std::string_view::npos) return "binary data (NUL bytes in its first bytes)";
  const size_t start = head.find_first_not_of(" \t\r\n");
  const std::string_view rest = head.substr(start);
  std::string kind = "text";
  if (rest[0] == '<') kind = "markup (HTML or XML?)";
  std::string line(rest.substr(0, std::min(rest.find('\n'), size_t{60})));
  for (char& c : line)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return kind + " starting '" + line + (rest.size() > line.size() && rest[line.size()] != '\n' ? "...'" : "'");
}

}  // namespace

Result<HistoryFormat> sniff_history_format(std::string_view head, const std::string& path) {
  static const char kSqlite[] = "SQLite format 3";  // with its NUL: the first 16 bytes of every SQLite file
  if (head.size() >= sizeof kSqlite && std::memcmp(head.data(), kSqlite, sizeof kSqlite) == 0) return HistoryFormat::kRunDb;
  const std::string expected =
      "; expected a Jepsen or Porcupine history (one event map per line, such as {:process 0, :type :invoke, :f "
      ":read, :value nil}), Jepsen's log lines (INFO  jepsen.util - 0<tab>:invoke<tab>:read<tab>nil) or a dst run "
      "database";
  if (head.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return Status(StatusCode::kInvalidArgument, path + ": the file is empty" + expected);
  if (looks_like_jepsen_log(head)) return HistoryFormat::kJepsen;
  if (looks_like_json(head) && looks_like_report_record(head))
    return Status(StatusCode::kInvalidArgument,
                  path + ": it looks like one file of an etcd robustness report (a record with \"Input\" and "
                         "\"Output\", or \"Request\" and \"Responses\"); dst checks a report as a whole: a "
                         "directory of client-<N>/operations.json and client-<N>/watch.json (dst check DIR)");
  if (looks_like_json(head))  // EDN maps start {:key, JSON objects {"key"
    return Status(StatusCode::kInvalidArgument,
                  path + ": it is JSON (" + what_it_starts_with(head) + "), which is no history format dst reads" + expected);
  const size_t open = head.find('{');
  if (open == std::string_view::npos || head.substr(0, open).find('\0') != std::string_view::npos)
    return Status(StatusCode::kInvalidArgument,
                  path + ": no event map in its first bytes (it is " + what_it_starts_with(head) + ")" + expected);
  const size_t close = head.find('}', open);
  const std::string_view first = head.substr(open, close == std::string_view::npos ? std::string_view::npos : close - open);
  if (first.find(":type") == std::string_view::npos)  // {:results {:valid? true}}: Jepsen's results.edn, say
    return Status(StatusCode::kInvalidArgument,
                  path + ": its first map has no :type, so it is no event map (it is " + what_it_starts_with(head) + ")" +
                      expected);
  if (first.find(":key") != std::string_view::npos) return HistoryFormat::kPorcupineKv;
  return HistoryFormat::kJepsen;
}

}  // namespace dst::history
