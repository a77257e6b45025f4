// RunDbReader (history/run_db.h): reads a run database back into a History. Tolerant of a run
// that was killed (what was committed is read; operations that never returned are unknown), strict
// about anything else: a blob that does not parse or a row that contradicts itself is corruption,
// reported with the table and row id.
#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <limits>
#include <map>

#include "history/run_db_internal.h"

#include "base/parse_number.h"

namespace dst::history {

using run_db_internal::DbHandle;
using run_db_internal::Stmt;

namespace {

constexpr int64_t kUint32Max = std::numeric_limits<uint32_t>::max();

class RowError {
 public:
  RowError(const std::string& path, const char* table, int64_t row_id)
      : prefix_(path + ": " + table + " row id " + std::to_string(row_id) + ": ") {}
  Status operator()(const std::string& what) const {
    return Status(StatusCode::kCorruption, prefix_ + what);
  }

 private:
  std::string prefix_;
};

// Parses the blob in `column` into `out`; NULL is allowed only when `nullable` (giving an empty
// message).
Status parse_blob(const Stmt& st, int column, bool nullable, const char* column_name,
                  google::protobuf::Message& out, const RowError& error) {
  const int type = st.column_type(column);
  if (type == SQLITE_NULL) {
    if (nullable) return Status::ok();
    return error(std::string(column_name) + " is NULL");
  }
  if (type != SQLITE_BLOB) return error(std::string(column_name) + " is not a blob");
  std::string_view bytes = st.column_blob(column);
  if (bytes.size() > kRunDbBlobBytesMax) {
    return error(std::string(column_name) + " is " + std::to_string(bytes.size()) +
                 " bytes, above the limit of " + std::to_string(kRunDbBlobBytesMax));
  }
  if (!out.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return error(std::string(column_name) + " is not a valid " + out.GetTypeName() + " (" +
                 std::to_string(bytes.size()) + " bytes)");
  }
  return Status::ok();
}

Status check_uint32(int64_t value, const char* column_name, const RowError& error) {
  if (value >= 0 && value <= kUint32Max) return Status::ok();
  return error(std::string(column_name) + " " + std::to_string(value) + " is out of range");
}

Status too_many(const std::string& path, const char* table, size_t max) {
  return Status(StatusCode::kResourceExhausted, path + ": " + table + " has more than " +
                                                    std::to_string(max) +
                                                    " rows, more than dst reads into memory");
}

Result<Outcome> parse_outcome(const std::string& text) {
  if (text == "ok") return Outcome::kOk;
  if (text == "failed") return Outcome::kFailed;
  if (text == "unknown") return Outcome::kUnknown;
  return Status(StatusCode::kCorruption, "outcome '" + text + "' is not ok, failed or unknown");
}

// Steps a SELECT; SQLITE_ROW: true, SQLITE_DONE: false, anything else an error.
Result<bool> next_row(Stmt& st, sqlite3* db, const std::string& path, const char* table) {
  const int rc = st.step();
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return run_db_internal::sqlite_error(path, std::string("reading ") + table, db, rc);
}

// Reads within one read transaction, so a writer committing meanwhile cannot make the tables
// disagree (responses of a segment not yet seen, ...). Ends it however the read ends.
class ReadTransaction {
 public:
  ReadTransaction(sqlite3* db, const std::string& path) : db_(db) {
    status_ = run_db_internal::exec(db, path, "BEGIN;");
  }
  ~ReadTransaction() {
    if (status_.is_ok()) sqlite3_exec(db_, "COMMIT;", nullptr, nullptr, nullptr);
  }
  const Status& status() const { return status_; }

 private:
  sqlite3* db_;
  Status status_;
};

}  // namespace

Result<RunDbReader> RunDbReader::open(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return Status(errno == ENOENT ? StatusCode::kNotFound : StatusCode::kIoError,
                  path + ": cannot open the run database: " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return Status(StatusCode::kInvalidArgument, path + ": not a run database: not a regular file");
  }
  Result<DbHandle> db =
      run_db_internal::open_db(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_EXRESCODE);
  if (!db.is_ok()) return db.status();
  if (Status s = run_db_internal::check_schema(db->get(), path); !s.is_ok()) return s;
  return RunDbReader(path, std::move(*db));
}

Result<RunRecord> RunDbReader::read_run() const {
  Stmt st;
  if (Status s = st.prepare(db_.get(), path_,
                            "SELECT id, seed, scenario, options, dst_version, started_unix_ms, "
                            "finished_unix_ms, trace_hash, verdict, exit_code, checker_summary "
                            "FROM run WHERE id = 1");
      !s.is_ok()) {
    return s;
  }
  Result<bool> row = next_row(st, db_.get(), path_, "run");
  if (!row.is_ok()) return row.status();
  if (!*row) return Status(StatusCode::kNotFound, path_ + ": no run row: the run was never begun");
  const RowError error(path_, "run", 1);
  RunRecord record;
  const std::string seed = st.column_text(1);
  const std::optional<uint64_t> parsed_seed = parse_u64(seed);
  if (!parsed_seed) return error("seed '" + seed + "' is not an unsigned 64-bit number");
  record.info.seed = *parsed_seed;
  record.info.scenario = st.column_text(2);
  record.info.options = st.column_text(3);
  record.info.dst_version = st.column_text(4);
  record.info.started_unix_ms = st.column_int64(5);
  if (!st.column_is_null(6)) {
    RunResult result;
    result.finished_unix_ms = st.column_int64(6);
    const std::string hash = st.column_text(7);
    const std::optional<uint64_t> parsed_hash =
        hash.size() == 18 && hash.compare(0, 2, "0x") == 0 ? parse_u64(std::string_view(hash).substr(2), 16) : std::nullopt;
    if (!parsed_hash) return error("trace_hash '" + hash + "' is not 0x and 16 hex digits");
    result.trace_hash = *parsed_hash;
    result.verdict = st.column_text(8);
    const int64_t exit_code = st.column_int64(9);
    if (exit_code < std::numeric_limits<int>::min() || exit_code > std::numeric_limits<int>::max())
      return error("exit_code " + std::to_string(exit_code) + " is out of range");
    result.exit_code = static_cast<int>(exit_code);
    result.checker_summary = st.column_text(10);
    if (Status s = read_checks(result); !s.is_ok()) return s;
    if (Status s = read_coverage(result); !s.is_ok()) return s;
    record.result = std::move(result);
  }
  return record;
}

Status RunDbReader::read_checks(RunResult& out) const {
  Stmt st;
  if (Status s = st.prepare(db_.get(), path_,
                            "SELECT id, name, status, required, checked, violations, first_rule, first_message, "
                            "first_at_ns, summary, wall_us FROM checks ORDER BY id");
      !s.is_ok()) {
    return s;
  }
  for (;;) {
    Result<bool> row = next_row(st, db_.get(), path_, "checks");
    if (!row.is_ok()) return row.status();
    if (!*row) return Status::ok();
    if (out.checks.size() >= kRunDbChecksMax) return too_many(path_, "checks", kRunDbChecksMax);
    const RowError error(path_, "checks", st.column_int64(0));
    CheckRow c;
    c.name = st.column_text(1);
    const std::optional<CheckStatus> status = parse_check_status(st.column_text(2));
    if (!status) return error("status '" + st.column_text(2) + "' is not pass, fail, gave-up or skipped");
    c.status = *status;
    c.required = st.column_int64(3) != 0;
    if (st.column_int64(4) < 0 || st.column_int64(5) < 0) return error("a negative count");
    c.checked = static_cast<uint64_t>(st.column_int64(4));
    c.violations = static_cast<uint64_t>(st.column_int64(5));
    c.first_rule = st.column_text(6);
    c.first_message = st.column_text(7);
    c.first_at_ns = st.column_optional_int64(8).value_or(kNeverReturned);
    c.summary = st.column_text(9);
    c.wall_us = st.column_int64(10);
    out.checks.push_back(std::move(c));
  }
}

Status RunDbReader::read_coverage(RunResult& out) const {
  Stmt st;
  if (Status s = st.prepare(db_.get(), path_, "SELECT rowid, name, hits FROM coverage ORDER BY name"); !s.is_ok()) return s;
  for (;;) {
    Result<bool> row = next_row(st, db_.get(), path_, "coverage");
    if (!row.is_ok()) return row.status();
    if (!*row) return Status::ok();
    if (out.coverage.size() >= kRunDbCoverageMax) return too_many(path_, "coverage", kRunDbCoverageMax);
    const RowError error(path_, "coverage", st.column_int64(0));
    std::string name = st.column_text(1);
    if (name.empty() || name.size() > kCoverageNameBytesMax) return error("a name of " + std::to_string(name.size()) + " bytes");
    if (st.column_int64(2) <= 0) return error("hits " + std::to_string(st.column_int64(2)) + " (at least 1)");
    out.coverage[std::move(name)] = static_cast<uint64_t>(st.column_int64(2));
  }
}

Status RunDbReader::read_operations(History& out) const {
  Stmt st;
  if (Status s = st.prepare(db_.get(), path_,
                            "SELECT id, client, member, request, invoke_ns, return_ns, outcome, "
                            "response FROM operations ORDER BY id");
      !s.is_ok()) {
    return s;
  }
  for (;;) {
    Result<bool> row = next_row(st, db_.get(), path_, "operations");
    if (!row.is_ok()) return row.status();
    if (!*row) return Status::ok();
    if (out.operations.size() >= kRunDbOperationsMax)
      return too_many(path_, "operations", kRunDbOperationsMax);
    const int64_t id = st.column_int64(0);
    const RowError error(path_, "operations", id);
    if (id < 0) return error("negative id");
    Operation op;
    op.id = static_cast<uint64_t>(id);
    if (Status s = check_uint32(st.column_int64(1), "client", error); !s.is_ok()) return s;
    if (Status s = check_uint32(st.column_int64(2), "member", error); !s.is_ok()) return s;
    op.client = static_cast<uint32_t>(st.column_int64(1));
    op.member = static_cast<uint32_t>(st.column_int64(2));
    if (Status s = parse_blob(st, 3, false, "request", op.request, error); !s.is_ok()) return s;
    op.invoke_ns = st.column_int64(4);
    Result<Outcome> outcome = parse_outcome(st.column_text(6));
    if (!outcome.is_ok()) return error(outcome.status().message());
    op.outcome = *outcome;
    if (st.column_is_null(5)) {
      // Invoked, never answered (or the run was killed first): unknown, may take effect any time.
      if (op.outcome != Outcome::kUnknown) {
        return error(std::string("outcome ") + outcome_name(op.outcome) + " but return_ns is NULL");
      }
      op.return_ns = kNeverReturned;
    } else {
      op.return_ns = st.column_int64(5);
      if (op.return_ns < op.invoke_ns) return error("return_ns is before invoke_ns");
    }
    if (Status s = parse_blob(st, 7, true, "response", op.response, error); !s.is_ok()) return s;
    out.operations.push_back(std::move(op));
  }
}

Status RunDbReader::read_watches(History& out) const {
  std::map<int64_t, size_t> index_of;  // watch id -> position in out.watches
  if (Status s = read_watch_rows(out, index_of); !s.is_ok()) return s;
  if (Status s = read_watch_segments(out, index_of); !s.is_ok()) return s;
  return read_watch_responses(out, index_of);
}

Status RunDbReader::read_watch_rows(History& out, std::map<int64_t, size_t>& index_of) const {
  Stmt watches;
  if (Status s = watches.prepare(db_.get(), path_, "SELECT id, client FROM watches ORDER BY id");
      !s.is_ok()) {
    return s;
  }
  for (;;) {
    Result<bool> row = next_row(watches, db_.get(), path_, "watches");
    if (!row.is_ok()) return row.status();
    if (!*row) return Status::ok();
    if (out.watches.size() >= kRunDbWatchesMax) return too_many(path_, "watches", kRunDbWatchesMax);
    const int64_t id = watches.column_int64(0);
    const RowError error(path_, "watches", id);
    if (id < 0) return error("negative id");
    if (Status s = check_uint32(watches.column_int64(1), "client", error); !s.is_ok()) return s;
    Watch w;
    w.id = static_cast<uint64_t>(id);
    w.client = static_cast<uint32_t>(watches.column_int64(1));
    index_of[id] = out.watches.size();
    out.watches.push_back(std::move(w));
  }
}

Status RunDbReader::read_watch_segments(History& out, const std::map<int64_t, size_t>& index_of) const {
  Stmt segments;
  if (Status s =
          segments.prepare(db_.get(), path_,
                           "SELECT id, watch_id, segment, member, created_ns, request, broken "
                           "FROM watch_segments ORDER BY watch_id, segment");
      !s.is_ok()) {
    return s;
  }
  for (;;) {
    Result<bool> row = next_row(segments, db_.get(), path_, "watch_segments");
    if (!row.is_ok()) return row.status();
    if (!*row) return Status::ok();
    const RowError error(path_, "watch_segments", segments.column_int64(0));
    auto it = index_of.find(segments.column_int64(1));
    if (it == index_of.end())
      return error("watch_id " + std::to_string(segments.column_int64(1)) + " has no watches row");
    Watch& w = out.watches[it->second];
    if (segments.column_int64(2) != static_cast<int64_t>(w.segments.size())) {
      return error("segment " + std::to_string(segments.column_int64(2)) + " of watch " +
                   std::to_string(w.id) + " where segment " + std::to_string(w.segments.size()) +
                   " was expected (segments are numbered 0, 1, ... without gaps)");
    }
    if (w.segments.size() >= kRunDbWatchSegmentsPerWatchMax) {
      return too_many(path_, "watch_segments (of one watch)", kRunDbWatchSegmentsPerWatchMax);
    }
    WatchSegment seg;
    if (Status s = check_uint32(segments.column_int64(3), "member", error); !s.is_ok()) return s;
    seg.member = static_cast<uint32_t>(segments.column_int64(3));
    seg.created_ns = segments.column_int64(4);
    if (Status s = parse_blob(segments, 5, false, "request", seg.request, error); !s.is_ok())
      return s;
    seg.broken = segments.column_int64(6) != 0;
    w.segments.push_back(std::move(seg));
  }
}

Status RunDbReader::read_watch_responses(History& out, const std::map<int64_t, size_t>& index_of) const {
  Stmt responses;
  if (Status s = responses.prepare(db_.get(), path_,
                                   "SELECT id, watch_id, segment, seq, at_ns, response "
                                   "FROM watch_responses ORDER BY watch_id, segment, seq");
      !s.is_ok()) {
    return s;
  }
  size_t total = 0;
  for (;;) {
    Result<bool> row = next_row(responses, db_.get(), path_, "watch_responses");
    if (!row.is_ok()) return row.status();
    if (!*row) return Status::ok();
    if (++total > kRunDbWatchResponsesMax)
      return too_many(path_, "watch_responses", kRunDbWatchResponsesMax);
    const RowError error(path_, "watch_responses", responses.column_int64(0));
    auto it = index_of.find(responses.column_int64(1));
    if (it == index_of.end())
      return error("watch_id " + std::to_string(responses.column_int64(1)) + " has no watches row");
    Watch& w = out.watches[it->second];
    const int64_t segment = responses.column_int64(2);
    if (segment < 0 || segment >= static_cast<int64_t>(w.segments.size())) {
      return error("segment " + std::to_string(segment) + " of watch " + std::to_string(w.id) +
                   " has no watch_segments row");
    }
    WatchSegment& seg = w.segments[static_cast<size_t>(segment)];
    if (responses.column_int64(3) != static_cast<int64_t>(seg.responses.size())) {
      return error("seq " + std::to_string(responses.column_int64(3)) + " where " +
                   std::to_string(seg.responses.size()) + " was expected (0, 1, ... without gaps)");
    }
    WatchResponse r;
    r.at_ns = responses.column_int64(4);
    if (Status s = parse_blob(responses, 5, false, "response", r.response, error); !s.is_ok())
      return s;
    seg.responses.push_back(std::move(r));
  }
}

Status RunDbReader::read_faults(History& out) const {
  Stmt st;
  if (Status s = st.prepare(db_.get(), path_,
                            "SELECT id, kind, target, start_ns, end_ns FROM faults ORDER BY id");
      !s.is_ok()) {
    return s;
  }
  for (;;) {
    Result<bool> row = next_row(st, db_.get(), path_, "faults");
    if (!row.is_ok()) return row.status();
    if (!*row) return Status::ok();
    if (out.faults.size() >= kRunDbFaultsMax) return too_many(path_, "faults", kRunDbFaultsMax);
    const RowError error(path_, "faults", st.column_int64(0));
    Fault f;
    f.kind = st.column_text(1);
    f.target = st.column_text(2);
    f.start_ns = st.column_int64(3);
    f.end_ns = st.column_optional_int64(4).value_or(kNeverReturned);
    if (f.end_ns < f.start_ns) return error("end_ns is before start_ns");
    out.faults.push_back(std::move(f));
  }
}

Status RunDbReader::read_schedule(History& out) const {
  Stmt st;
  if (Status s = st.prepare(db_.get(), path_, "SELECT id, at_ns, origin, call, kind, step FROM schedule ORDER BY id");
      !s.is_ok()) {
    return s;
  }
  for (;;) {
    Result<bool> row = next_row(st, db_.get(), path_, "schedule");
    if (!row.is_ok()) return row.status();
    if (!*row) return Status::ok();
    if (out.schedule.size() >= kRunDbScheduleStepsMax) return too_many(path_, "schedule", kRunDbScheduleStepsMax);
    const RowError error(path_, "schedule", st.column_int64(0));
    ScheduleStep step;
    step.at_ns = st.column_int64(1);
    step.origin = st.column_text(2);
    if (st.column_int64(3) < 0) return error("call is negative");
    step.call = static_cast<uint64_t>(st.column_int64(3));
    step.kind = st.column_text(4);
    step.lua = st.column_text(5);
    if (step.lua.size() > kRunDbTextBytesMax) return error("step is longer than " + std::to_string(kRunDbTextBytesMax) + " bytes");
    out.schedule.push_back(std::move(step));
  }
}

Status RunDbReader::read_restores(History& out) const {
  Stmt st;
  if (Status s = st.prepare(db_.get(), path_,
                            "SELECT id, disaster_ns, restore_ns, revision, bump, snapshot FROM restores ORDER BY id");
      !s.is_ok()) {
    return s;
  }
  for (;;) {
    Result<bool> row = next_row(st, db_.get(), path_, "restores");
    if (!row.is_ok()) return row.status();
    if (!*row) return Status::ok();
    if (out.restores.size() >= kRestoresMax) return too_many(path_, "restores", kRestoresMax);
    const RowError error(path_, "restores", st.column_int64(0));
    Restore r;
    r.disaster_ns = st.column_int64(1);
    r.restore_ns = st.column_int64(2);
    r.revision = st.column_int64(3);
    r.bump = st.column_int64(4);
    r.snapshot = st.column_text(5);
    if (r.restore_ns < r.disaster_ns) return error("restore_ns is before disaster_ns");
    if (r.revision < 1 || r.bump < 0) return error("revision below 1 or a negative bump");
    if (r.revision > kRestoreRevisionMax || r.bump > kRestoreRevisionMax)
      return error("revision or bump above " + std::to_string(kRestoreRevisionMax));
    if (!out.restores.empty() && r.disaster_ns < out.restores.back().restore_ns)
      return error("disaster_ns is before the previous restore's restore_ns");
    out.restores.push_back(std::move(r));
  }
}

// --- informers ------------------------------------------------------------------------------

namespace {

Status check_bool(int64_t value, const char* column_name, const RowError& error) {
  if (value == 0 || value == 1) return Status::ok();
  return error(std::string(column_name) + " " + std::to_string(value) + " is not 0 or 1");
}

// Child rows carry their position (list, watch, seq): 0, 1, ... without gaps, so that a deleted
// or duplicated row is noticed instead of shifting everything after it.
Status check_position(int64_t position, size_t expected, const char* column_name,
                      const RowError& error) {
  if (position == static_cast<int64_t>(expected)) return Status::ok();
  return error(std::string(column_name) + " " + std::to_string(position) + " where " +
               std::to_string(expected) + " was expected (0, 1, ... without gaps)");
}

// A TEXT column of at most `max` bytes (keys, prefixes, error and end texts).
Result<std::string> read_text(const Stmt& st, int column, const char* column_name, size_t max,
                              const RowError& error) {
  if (st.column_type(column) != SQLITE_TEXT) {
    return error(std::string(column_name) + " is not text");
  }
  std::string text = st.column_text(column);
  if (text.size() > max) {
    return error(std::string(column_name) + " is " + std::to_string(text.size()) +
                 " bytes, above the limit of " + std::to_string(max));
  }
  return text;
}

// An object from its key, value and resource_version columns (first, first + 1, first + 2).
Result<KubeObject> read_object(const Stmt& st, int first, const RowError& error) {
  KubeObject object;
  Result<std::string> key = read_text(st, first, "key", kRunDbKeyBytesMax, error);
  if (!key.is_ok()) return key.status();
  object.key = std::move(*key);
  if (st.column_type(first + 1) != SQLITE_BLOB) return error("value is not a blob");
  const std::string_view value = st.column_blob(first + 1);
  if (value.size() > kRunDbBlobBytesMax) {
    return error("value is " + std::to_string(value.size()) + " bytes, above the limit of " +
                 std::to_string(kRunDbBlobBytesMax));
  }
  object.value = std::string(value);
  object.resource_version = st.column_int64(first + 2);
  return object;
}

Result<KubeWatchEvent::Type> parse_event_type(const std::string& text) {
  for (auto type : {KubeWatchEvent::Type::kAdded, KubeWatchEvent::Type::kModified,
                    KubeWatchEvent::Type::kDeleted, KubeWatchEvent::Type::kBookmark}) {
    if (text == kube_event_type_name(type)) return type;
  }
  return Status(StatusCode::kCorruption,
                "type '" + text + "' is not ADDED, MODIFIED, DELETED or BOOKMARK");
}

// Reads the informer tables into History::informers: the informers first, then each child table
// in (informer_id, position) order, every row checked against what was read before it.
class InformerReader {
 public:
  InformerReader(sqlite3* db, const std::string& path, History& out)
      : db_(db), path_(path), out_(out) {}
  Status read();

 private:
  using ReadRow = Status (InformerReader::*)(const Stmt& st, const RowError& error);
  struct Table {
    const char* name;
    size_t rows_max;
    const char* sql;  // column 0 is the row id
    ReadRow read_row;
  };
  Status read_table(const Table& table);
  Result<Informer*> owner(int64_t informer_id, const RowError& error);

  Status read_informer(const Stmt& st, const RowError& error);
  Status read_list(const Stmt& st, const RowError& error);
  Status read_list_object(const Stmt& st, const RowError& error);
  Status read_watch(const Stmt& st, const RowError& error);
  Status read_event(const Stmt& st, const RowError& error);
  Status read_processed(const Stmt& st, const RowError& error);
  Status read_final_object(const Stmt& st, const RowError& error);

  sqlite3* db_;
  const std::string& path_;
  History& out_;
  std::map<int64_t, size_t> index_of_;  // informer id -> position in out_.informers
};

Status InformerReader::read() {
  // In dependency order: a child row names a parent read before it.
  const Table tables[] = {
      {"informers", kRunDbInformersMax,
       "SELECT id, client, prefix, finished, final_ns, final_rv FROM informers ORDER BY id",
       &InformerReader::read_informer},
      {"informer_lists", kRunDbInformerRowsMax,
       "SELECT id, informer_id, list, step, apiserver, invoke_ns, return_ns, requested_rv, ok, "
       "error, resource_version FROM informer_lists ORDER BY informer_id, list",
       &InformerReader::read_list},
      {"informer_list_objects", kRunDbInformerRowsMax,
       "SELECT id, informer_id, list, seq, key, value, resource_version FROM informer_list_objects "
       "ORDER BY informer_id, list, seq",
       &InformerReader::read_list_object},
      {"informer_watches", kRunDbInformerRowsMax,
       "SELECT id, informer_id, watch, step, apiserver, created_ns, from_rv, end_reason, ended_ns "
       "FROM informer_watches ORDER BY informer_id, watch",
       &InformerReader::read_watch},
      {"informer_watch_events", kRunDbInformerRowsMax,
       "SELECT id, informer_id, watch, seq, type, at_ns, cached_ns, key, value, resource_version "
       "FROM informer_watch_events ORDER BY informer_id, watch, seq",
       &InformerReader::read_event},
      {"informer_processed", kRunDbInformerRowsMax,
       "SELECT id, informer_id, seq, at_ns, key, informer_rv, present, object_rv "
       "FROM informer_processed ORDER BY informer_id, seq",
       &InformerReader::read_processed},
      {"informer_final_objects", kRunDbInformerRowsMax,
       "SELECT id, informer_id, seq, key, value, resource_version FROM informer_final_objects "
       "ORDER BY informer_id, seq",
       &InformerReader::read_final_object},
  };
  for (const Table& table : tables) {
    if (Status s = read_table(table); !s.is_ok()) return s;
  }
  return Status::ok();
}

Status InformerReader::read_table(const Table& table) {
  Stmt st;
  if (Status s = st.prepare(db_, path_, table.sql); !s.is_ok()) return s;
  for (size_t rows = 0;; ++rows) {
    Result<bool> row = next_row(st, db_, path_, table.name);
    if (!row.is_ok()) return row.status();
    if (!*row) return Status::ok();
    if (rows >= table.rows_max) return too_many(path_, table.name, table.rows_max);
    const RowError error(path_, table.name, st.column_int64(0));
    if (Status s = (this->*table.read_row)(st, error); !s.is_ok()) return s;
  }
}

Result<Informer*> InformerReader::owner(int64_t informer_id, const RowError& error) {
  auto it = index_of_.find(informer_id);
  if (it == index_of_.end()) {
    return error("informer_id " + std::to_string(informer_id) + " has no informers row");
  }
  return &out_.informers[it->second];
}

Status InformerReader::read_informer(const Stmt& st, const RowError& error) {
  const int64_t id = st.column_int64(0);
  if (id < 0) return error("negative id");
  Informer informer;
  informer.id = static_cast<uint64_t>(id);
  if (Status s = check_uint32(st.column_int64(1), "client", error); !s.is_ok()) return s;
  informer.client = static_cast<uint32_t>(st.column_int64(1));
  Result<std::string> prefix = read_text(st, 2, "prefix", kRunDbKeyBytesMax, error);
  if (!prefix.is_ok()) return prefix.status();
  informer.prefix = std::move(*prefix);
  if (Status s = check_bool(st.column_int64(3), "finished", error); !s.is_ok()) return s;
  informer.finished = st.column_int64(3) == 1;
  // Unfinished informers have NULL final columns (and read back as 0, as the recorder has them).
  if (informer.finished != !st.column_is_null(4) || informer.finished != !st.column_is_null(5)) {
    return error(informer.finished ? "finished but final_ns or final_rv is NULL"
                                   : "not finished but final_ns or final_rv is set");
  }
  informer.final_ns = st.column_int64(4);
  informer.final_rv = st.column_int64(5);
  index_of_[id] = out_.informers.size();
  out_.informers.push_back(std::move(informer));
  return Status::ok();
}

Status InformerReader::read_list(const Stmt& st, const RowError& error) {
  Result<Informer*> informer = owner(st.column_int64(1), error);
  if (!informer.is_ok()) return informer.status();
  std::vector<KubeList>& lists = (*informer)->lists;
  if (Status s = check_position(st.column_int64(2), lists.size(), "list", error); !s.is_ok())
    return s;
  KubeList list;
  if (st.column_int64(3) < 0) return error("negative step");
  list.step = static_cast<uint64_t>(st.column_int64(3));
  if (Status s = check_uint32(st.column_int64(4), "apiserver", error); !s.is_ok()) return s;
  list.apiserver = static_cast<uint32_t>(st.column_int64(4));
  list.invoke_ns = st.column_int64(5);
  list.return_ns = st.column_int64(6);
  if (list.return_ns < list.invoke_ns) return error("return_ns is before invoke_ns");
  list.requested_rv = st.column_int64(7);
  if (Status s = check_bool(st.column_int64(8), "ok", error); !s.is_ok()) return s;
  list.ok = st.column_int64(8) == 1;
  if (!st.column_is_null(9)) {  // NULL: no error
    Result<std::string> text = read_text(st, 9, "error", kRunDbTextBytesMax, error);
    if (!text.is_ok()) return text.status();
    list.error = std::move(*text);
  }
  list.resource_version = st.column_int64(10);
  lists.push_back(std::move(list));
  return Status::ok();
}

Status InformerReader::read_list_object(const Stmt& st, const RowError& error) {
  Result<Informer*> informer = owner(st.column_int64(1), error);
  if (!informer.is_ok()) return informer.status();
  const int64_t list = st.column_int64(2);
  if (list < 0 || list >= static_cast<int64_t>((*informer)->lists.size())) {
    return error("list " + std::to_string(list) + " of informer " +
                 std::to_string((*informer)->id) + " has no informer_lists row");
  }
  std::vector<KubeObject>& objects = (*informer)->lists[static_cast<size_t>(list)].objects;
  if (Status s = check_position(st.column_int64(3), objects.size(), "seq", error); !s.is_ok())
    return s;
  Result<KubeObject> object = read_object(st, 4, error);
  if (!object.is_ok()) return object.status();
  objects.push_back(std::move(*object));
  return Status::ok();
}

Status InformerReader::read_watch(const Stmt& st, const RowError& error) {
  Result<Informer*> informer = owner(st.column_int64(1), error);
  if (!informer.is_ok()) return informer.status();
  std::vector<KubeWatch>& watches = (*informer)->watches;
  if (Status s = check_position(st.column_int64(2), watches.size(), "watch", error); !s.is_ok())
    return s;
  KubeWatch watch;
  if (st.column_int64(3) < 0) return error("negative step");
  watch.step = static_cast<uint64_t>(st.column_int64(3));
  if (Status s = check_uint32(st.column_int64(4), "apiserver", error); !s.is_ok()) return s;
  watch.apiserver = static_cast<uint32_t>(st.column_int64(4));
  watch.created_ns = st.column_int64(5);
  watch.from_rv = st.column_int64(6);
  // Both NULL while the watch runs; an end says how, so it is never empty.
  if (st.column_is_null(7) != st.column_is_null(8)) {
    return error("end_reason and ended_ns are not both NULL or both set");
  }
  if (!st.column_is_null(7)) {
    Result<std::string> end = read_text(st, 7, "end_reason", kRunDbTextBytesMax, error);
    if (!end.is_ok()) return end.status();
    if (end->empty()) return error("end_reason is empty (NULL is a watch that did not end)");
    watch.end = std::move(*end);
    watch.ended_ns = st.column_int64(8);
  }
  watches.push_back(std::move(watch));
  return Status::ok();
}

Status InformerReader::read_event(const Stmt& st, const RowError& error) {
  Result<Informer*> informer = owner(st.column_int64(1), error);
  if (!informer.is_ok()) return informer.status();
  const int64_t watch = st.column_int64(2);
  if (watch < 0 || watch >= static_cast<int64_t>((*informer)->watches.size())) {
    return error("watch " + std::to_string(watch) + " of informer " +
                 std::to_string((*informer)->id) + " has no informer_watches row");
  }
  std::vector<KubeWatchEvent>& events = (*informer)->watches[static_cast<size_t>(watch)].events;
  if (Status s = check_position(st.column_int64(3), events.size(), "seq", error); !s.is_ok())
    return s;
  KubeWatchEvent event;
  Result<KubeWatchEvent::Type> type = parse_event_type(st.column_text(4));
  if (!type.is_ok()) return error(type.status().message());
  event.type = *type;
  event.at_ns = st.column_int64(5);
  event.cached_ns = st.column_int64(6);
  Result<KubeObject> object = read_object(st, 7, error);
  if (!object.is_ok()) return object.status();
  event.object = std::move(*object);
  events.push_back(std::move(event));
  return Status::ok();
}

Status InformerReader::read_processed(const Stmt& st, const RowError& error) {
  Result<Informer*> informer = owner(st.column_int64(1), error);
  if (!informer.is_ok()) return informer.status();
  std::vector<KubeProcessed>& processed = (*informer)->processed;
  if (Status s = check_position(st.column_int64(2), processed.size(), "seq", error); !s.is_ok())
    return s;
  KubeProcessed p;
  p.at_ns = st.column_int64(3);
  Result<std::string> key = read_text(st, 4, "key", kRunDbKeyBytesMax, error);
  if (!key.is_ok()) return key.status();
  p.key = std::move(*key);
  p.informer_rv = st.column_int64(5);
  if (Status s = check_bool(st.column_int64(6), "present", error); !s.is_ok()) return s;
  p.present = st.column_int64(6) == 1;
  p.object_rv = st.column_int64(7);
  processed.push_back(std::move(p));
  return Status::ok();
}

Status InformerReader::read_final_object(const Stmt& st, const RowError& error) {
  Result<Informer*> informer = owner(st.column_int64(1), error);
  if (!informer.is_ok()) return informer.status();
  if (!(*informer)->finished) {
    return error("an object of informer " + std::to_string((*informer)->id) +
                 "'s final store, but the informer did not finish");
  }
  std::vector<KubeObject>& objects = (*informer)->final_objects;
  if (Status s = check_position(st.column_int64(2), objects.size(), "seq", error); !s.is_ok())
    return s;
  Result<KubeObject> object = read_object(st, 3, error);
  if (!object.is_ok()) return object.status();
  objects.push_back(std::move(*object));
  return Status::ok();
}

}  // namespace

Status RunDbReader::read_informers(History& out) const {
  return InformerReader(db_.get(), path_, out).read();
}

Result<History> RunDbReader::read_history() const {
  ReadTransaction txn(db_.get(), path_);
  if (!txn.status().is_ok()) return txn.status();
  History history;
  if (Status s = read_operations(history); !s.is_ok()) return s;
  if (Status s = read_watches(history); !s.is_ok()) return s;
  if (Status s = read_faults(history); !s.is_ok()) return s;
  if (Status s = read_schedule(history); !s.is_ok()) return s;
  if (Status s = read_informers(history); !s.is_ok()) return s;
  if (Status s = read_restores(history); !s.is_ok()) return s;
  return history;
}

Result<std::vector<ScheduleStep>> RunDbReader::read_schedule_steps() const {
  ReadTransaction txn(db_.get(), path_);
  if (!txn.status().is_ok()) return txn.status();
  History history;
  if (Status s = read_schedule(history); !s.is_ok()) return s;
  return std::move(history.schedule);
}

Result<std::vector<MetricSample>> RunDbReader::read_metrics() const {
  Stmt st;
  if (Status s = st.prepare(db_.get(), path_,
                            "SELECT id, at_ns, member, name, value FROM metrics "
                            "ORDER BY name, member, at_ns, id");
      !s.is_ok()) {
    return s;
  }
  std::vector<MetricSample> out;
  for (;;) {
    Result<bool> row = next_row(st, db_.get(), path_, "metrics");
    if (!row.is_ok()) return row.status();
    if (!*row) return out;
    if (out.size() >= kRunDbMetricsMax) return too_many(path_, "metrics", kRunDbMetricsMax);
    const RowError error(path_, "metrics", st.column_int64(0));
    if (Status s = check_uint32(st.column_int64(2), "member", error); !s.is_ok()) return s;
    out.push_back(MetricSample{st.column_int64(1), static_cast<uint32_t>(st.column_int64(2)),
                               st.column_text(3), st.column_int64(4)});
  }
}

Result<History> read_history(const std::string& path) {
  Result<RunDbReader> reader = RunDbReader::open(path);
  if (!reader.is_ok()) return reader.status();
  return reader->read_history();
}

Result<RunRecord> read_run(const std::string& path) {
  Result<RunDbReader> reader = RunDbReader::open(path);
  if (!reader.is_ok()) return reader.status();
  return reader->read_run();
}

}  // namespace dst::history
