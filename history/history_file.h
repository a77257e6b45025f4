// Reading a history file someone hands to `dst check`: bounded, and refusing what is not a file
// (a directory, a device such as /dev/urandom that never ends), and telling the formats apart by
// their first bytes, so that `dst check run.db` needs no --format.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dst::history {

// Reads a regular file or a pipe of at most max_bytes. Errors name the path: "x: is a directory",
// "x: not a regular file or a pipe (a device?)", "x: larger than N bytes", "x: cannot open ...".
Result<std::string> read_history_file(const std::string& path, uint64_t max_bytes);

enum class HistoryFormat : uint8_t {
  kRunDb,        // a SQLite file ("SQLite format 3\0"): a dst run database
  kJepsen,       // Clojure maps with :f :read/:write/:cas (a register)
  kPorcupineKv,  // Clojure maps with :key and :f :get/:put/:append
};
const char* history_format_name(HistoryFormat f);  // "run-db", "jepsen", "porcupine-kv"

// The first `n` bytes of a regular file (fewer if it is shorter); errors as read_history_file's.
Result<std::string> read_file_head(const std::string& path, size_t n);
// Whether `path` is a regular file (a run database must be one: SQLite opens it by name).
bool is_regular_file(const std::string& path);

// The format of a history from its first bytes (`head`, e.g. 64 KiB): the SQLite header, else the
// first event map's keys. kInvalidArgument naming `path` when it is none of them (empty, binary, one
// file of an etcd robustness report: a report is a directory, told by import_etcd_report.h).
Result<HistoryFormat> sniff_history_format(std::string_view head, const std::string& path);

}  // namespace dst::history
