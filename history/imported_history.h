// Histories recorded by other tools (Jepsen, Porcupine), as a neutral list of operations.
//
// history::Operation is etcd-specific (protobuf requests); imported histories are about a register
// or a string key-value map, so they get their own small struct. The importers
// (history/import_jepsen.h, history/import_porcupine.h) pair each process's :invoke with its
// completion and keep the line numbers, so a checker's report can point back into the file.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dst::history {

// Return position of an operation whose outcome is unknown (:info, or never completed): it may
// take effect at any time after its invocation, or never.
inline constexpr int64_t kImportedNeverReturned = std::numeric_limits<int64_t>::max();

// Jepsen's register (read, write, cas) and mutex (acquire, release); Porcupine's kv (get, put, append).
enum class ImportedFn : uint8_t { kRead, kWrite, kCas, kGet, kPut, kAppend, kAcquire, kRelease };
const char* imported_fn_name(ImportedFn fn);

struct ImportedValue {
  enum class Kind : uint8_t { kNil, kInt, kString, kIntPair };
  Kind kind = Kind::kNil;
  int64_t a = 0;     // kInt: the value; kIntPair: the first element
  int64_t b = 0;     // kIntPair: the second element
  std::string text;  // kString

  static ImportedValue nil() { return {}; }
  static ImportedValue integer(int64_t v) { return {Kind::kInt, v, 0, {}}; }
  static ImportedValue pair(int64_t x, int64_t y) { return {Kind::kIntPair, x, y, {}}; }
  static ImportedValue string(std::string s) { return {Kind::kString, 0, 0, std::move(s)}; }
  // Clojure syntax: nil, 3, [1 2], "x 0 0 y".
  std::string to_string() const;
  bool operator==(const ImportedValue&) const = default;
};

// Versioned registers: no version named (a nil version).
inline constexpr int64_t kImportedNoVersion = -1;

// How a Jepsen register history's values are laid out: one register's (nil, 3, [1 2]), keyed
// [k v] (jepsen.independent: one register per key), or keyed and versioned [k [version value]]
// (jepsen-io/etcd's register workload; checker/linearizability/register_model.h).
enum class RegisterForm : uint8_t { kSingle, kKeyed, kVersioned };

enum class ImportedOutcome : uint8_t {
  kOk,       // completed with :ok: it took effect (writes) / its result is what was seen (reads)
  kFailed,   // completed with :fail: it certainly did not take effect
  kUnknown,  // :info, or no completion before the history ended: it may or may not have happened
};
const char* imported_outcome_name(ImportedOutcome o);

struct ImportedOp {
  uint64_t id = 0;       // index in ImportedHistory::ops (invocation order)
  uint32_t process = 0;  // Jepsen/Porcupine :process
  ImportedFn fn = ImportedFn::kRead;
  std::string key;           // kv: the key; a keyed register: its key as Jepsen prints it; else empty
  ImportedValue argument;    // write/put/append: the value written; cas: [old new]; reads: nil
  ImportedValue result;      // an :ok read/get: the value seen; otherwise nil
  // A versioned register's :ok operation: the version read, or made by a write or cas.
  int64_t version = kImportedNoVersion;
  ImportedOutcome outcome = ImportedOutcome::kUnknown;
  // Real-time order: positions of the invoke and completion events among all events of the file
  // (the files are in real-time order). Unknown outcomes return at kImportedNeverReturned.
  int64_t invoke_at = 0;
  int64_t return_at = kImportedNeverReturned;
  // :time of the events when the file has it (Jepsen: ns since the test started); -1 if absent.
  int64_t invoke_time_ns = -1;
  int64_t return_time_ns = -1;
  uint32_t invoke_line = 0;  // 1-based line numbers in the source file; 0: none
  uint32_t return_line = 0;
};

struct ImportedHistory {
  std::string source;  // the file name, for messages
  RegisterForm form = RegisterForm::kSingle;  // Jepsen registers: the values' layout
  uint64_t nemesis_events = 0;  // Jepsen events of :nemesis (or another named process), left out
  std::vector<ImportedOp> ops;
};

// "get("9") -> "x 5 0 y"  [line 4..9]"
std::string describe_imported_op(const ImportedOp& op);
// The op's key as reports show it: a Porcupine key quoted ("9"), a Jepsen key as Jepsen printed it.
std::string display_key(const ImportedOp& op);

// --- shared by the importers -----------------------------------------------------------------

enum class ImportFormat : uint8_t { kJepsen, kPorcupineKv };

// Parses the events (EDN maps, one per line or over several, bare or in one vector or list, with
// ';' comments; or Jepsen's log lines, or bare op lines) and pairs every process's :invoke with
// its next completion. Errors name the source, the line and what was expected.
Result<ImportedHistory> import_event_lines(std::string_view text, const std::string& source,
                                           ImportFormat format);
// Reads a file (bounded by limits::kImportFileBytesMax) and imports it.
Result<ImportedHistory> import_event_file(const std::string& path, ImportFormat format);

}  // namespace dst::history
