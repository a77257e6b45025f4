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

#include "history/run_db_internal.h"

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
  char* end = nullptr;
  errno = 0;
  record.info.seed = std::strtoull(seed.c_str(), &end, 10);
  if (seed.empty() || seed[0] == '-' || errno != 0 || end != seed.c_str() + seed.size()) {
    return error("seed '" + seed + "' is not an unsigned 64-bit number");
  }
  record.info.scenario = st.column_text(2);
  record.info.options = st.column_text(3);
  record.info.dst_version = st.column_text(4);
  record.info.started_unix_ms = st.column_int64(5);
  if (!st.column_is_null(6)) {
    RunResult result;
    result.finished_unix_ms = st.column_int64(6);
    const std::string hash = st.column_text(7);
    errno = 0;
    result.trace_hash = std::strtoull(hash.c_str(), &end, 16);
    if (hash.size() != 18 || hash.compare(0, 2, "0x") != 0 || errno != 0 ||
        end != hash.c_str() + hash.size()) {
      return error("trace_hash '" + hash + "' is not 0x and 16 hex digits");
    }
    result.verdict = st.column_text(8);
    const int64_t exit_code = st.column_int64(9);
    if (exit_code < std::numeric_limits<int>::min() || exit_code > std::numeric_limits<int>::max())
      return error("exit_code " + std::to_string(exit_code) + " is out of range");
    result.exit_code = static_cast<int>(exit_code);
    result.checker_summary = st.column_text(10);
    record.result = std::move(result);
  }
  return record;
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
  Stmt watches;
  if (Status s = watches.prepare(db_.get(), path_, "SELECT id, client FROM watches ORDER BY id");
      !s.is_ok()) {
    return s;
  }
  for (;;) {
    Result<bool> row = next_row(watches, db_.get(), path_, "watches");
    if (!row.is_ok()) return row.status();
    if (!*row) break;
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
    if (!*row) break;
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

Result<History> RunDbReader::read_history() const {
  ReadTransaction txn(db_.get(), path_);
  if (!txn.status().is_ok()) return txn.status();
  History history;
  if (Status s = read_operations(history); !s.is_ok()) return s;
  if (Status s = read_watches(history); !s.is_ok()) return s;
  if (Status s = read_faults(history); !s.is_ok()) return s;
  return history;
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
