// The run database's schema (version kRunDbSchemaVersion) and the SQLite plumbing shared by its
// writer and reader: statements, errors as Statuses naming the file, opening, creating and
// checking the schema. docs/run-db.md documents every table and column; keep the two in step.
#include <cstdlib>

#include "history/run_db_internal.h"

#include "base/parse_number.h"

namespace dst::history {

namespace run_db_internal {

void DbCloser::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

StatusCode status_code_for_sqlite(int rc) {
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return StatusCode::kNoSpace;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return StatusCode::kCorruption;
    case SQLITE_NOMEM:
      return StatusCode::kResourceExhausted;
    case SQLITE_CANTOPEN:
      return StatusCode::kNotFound;
    case SQLITE_CONSTRAINT:
    case SQLITE_TOOBIG:
    case SQLITE_RANGE:
    case SQLITE_MISUSE:
      return StatusCode::kInvalidArgument;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return StatusCode::kUnavailable;
    default:
      return StatusCode::kIoError;
  }
}

Status sqlite_error(std::string_view path, std::string_view doing, sqlite3* db, int rc) {
  // The connection's message is more specific than sqlite3_errstr (it names the constraint).
  const char* detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  std::string message = std::string(path) + ": " + std::string(doing) + ": " + detail + " (" +
                        sqlite3_errstr(rc) + ", code " + std::to_string(rc) + ")";
  return Status(status_code_for_sqlite(rc), std::move(message));
}

Status exec(sqlite3* db, std::string_view path, const std::string& sql) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  if (rc == SQLITE_OK) return Status::ok();
  std::string detail = error != nullptr ? error : sqlite3_errstr(rc);
  sqlite3_free(error);
  std::string first_line = sql.substr(0, sql.find('\n'));
  return Status(status_code_for_sqlite(rc), std::string(path) + ": " + first_line + ": " + detail +
                                                " (" + sqlite3_errstr(rc) + ")");
}

Status Stmt::prepare(sqlite3* db, std::string_view path, std::string sql) {
  sqlite3_finalize(stmt_);
  stmt_ = nullptr;
  sql_ = std::move(sql);
  const int rc = sqlite3_prepare_v3(db, sql_.c_str(), static_cast<int>(sql_.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) return sqlite_error(path, "preparing `" + sql_ + "`", db, rc);
  return Status::ok();
}

void Stmt::bind_int64(int index, int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  DST_ASSERT_MSG(rc == SQLITE_OK, "bind " + std::to_string(index) + " in " + sql_);
}

void Stmt::bind_null(int index) {
  const int rc = sqlite3_bind_null(stmt_, index);
  DST_ASSERT_MSG(rc == SQLITE_OK, "bind " + std::to_string(index) + " in " + sql_);
}

void Stmt::bind_optional_int64(int index, std::optional<int64_t> value) {
  if (value) {
    bind_int64(index, *value);
  } else {
    bind_null(index);
  }
}

void Stmt::bind_text(int index, std::string_view text) {
  const int rc =
      sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  DST_ASSERT_MSG(rc == SQLITE_OK, "bind " + std::to_string(index) + " in " + sql_);
}

void Stmt::bind_optional_text(int index, const std::optional<std::string>& text) {
  if (text) {
    bind_text(index, *text);
  } else {
    bind_null(index);
  }
}

void Stmt::bind_blob(int index, std::string_view bytes) {
  static const char kEmpty = 0;
  const char* data = bytes.empty() ? &kEmpty : bytes.data();
  const int rc = sqlite3_bind_blob64(stmt_, index, data, bytes.size(), SQLITE_TRANSIENT);
  DST_ASSERT_MSG(rc == SQLITE_OK, "bind " + std::to_string(index) + " in " + sql_);
}

std::optional<int64_t> Stmt::column_optional_int64(int index) const {
  if (column_is_null(index)) return std::nullopt;
  return column_int64(index);
}

std::string Stmt::column_text(int index) const {
  const unsigned char* text = sqlite3_column_text(stmt_, index);
  const int size = sqlite3_column_bytes(stmt_, index);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(size));
}

std::string_view Stmt::column_blob(int index) const {
  const void* data = sqlite3_column_blob(stmt_, index);
  const int size = sqlite3_column_bytes(stmt_, index);
  if (data == nullptr) return {};
  return std::string_view(static_cast<const char*>(data), static_cast<size_t>(size));
}

// Column meanings: docs/run-db.md. Times are virtual nanoseconds unless named *_unix_ms. Keys are
// stored as TEXT holding the key's bytes, so `key = '/registry/pods/a'` works in sqlite3; the
// request blob stays the authoritative copy. The informer tables hold kube_history.h field by
// field (no blobs): an informer object's value is a BLOB of its bytes, exactly as sent. Child
// rows carry their position (list, watch, seq: 0, 1, ... without gaps) so that they read back
// in the order they were recorded.
namespace schema {

// The run's metadata.
constexpr char kRun[] = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE run (
  id               INTEGER PRIMARY KEY CHECK (id = 1),
  seed             TEXT NOT NULL,
  scenario         TEXT NOT NULL,
  options          TEXT NOT NULL,
  dst_version      TEXT NOT NULL,
  started_unix_ms  INTEGER NOT NULL,
  finished_unix_ms INTEGER,
  trace_hash       TEXT,
  verdict          TEXT,
  exit_code        INTEGER,
  checker_summary  TEXT
);

)sql";

// What the clients did: operations and watches.
constexpr char kClients[] = R"sql(
CREATE TABLE operations (
  id                INTEGER PRIMARY KEY,
  client            INTEGER NOT NULL,
  member            INTEGER NOT NULL,
  kind              TEXT NOT NULL,
  key               TEXT,
  range_end         TEXT,
  request           BLOB NOT NULL,
  invoke_ns         INTEGER NOT NULL,
  return_ns         INTEGER,
  outcome           TEXT NOT NULL CHECK (outcome IN ('ok', 'failed', 'unknown')),
  response          BLOB,
  response_revision INTEGER,
  error_code        INTEGER,
  error             TEXT,
  CHECK (return_ns IS NOT NULL OR outcome = 'unknown'),
  CHECK (return_ns IS NULL OR return_ns >= invoke_ns)
);
CREATE INDEX operations_by_key ON operations (key, invoke_ns);
CREATE INDEX operations_by_invoke ON operations (invoke_ns);
CREATE INDEX operations_by_client ON operations (client, invoke_ns);

CREATE TABLE watches (
  id     INTEGER PRIMARY KEY,
  client INTEGER NOT NULL
);

CREATE TABLE watch_segments (
  id             INTEGER PRIMARY KEY,
  watch_id       INTEGER NOT NULL REFERENCES watches (id),
  segment        INTEGER NOT NULL CHECK (segment >= 0),
  member         INTEGER NOT NULL,
  created_ns     INTEGER NOT NULL,
  key            TEXT,
  range_end      TEXT,
  start_revision INTEGER NOT NULL,
  request        BLOB NOT NULL,
  broken         INTEGER NOT NULL DEFAULT 0 CHECK (broken IN (0, 1)),
  UNIQUE (watch_id, segment)
);

CREATE TABLE watch_responses (
  id                    INTEGER PRIMARY KEY,
  watch_id              INTEGER NOT NULL,
  segment               INTEGER NOT NULL,
  seq                   INTEGER NOT NULL CHECK (seq >= 0),
  at_ns                 INTEGER NOT NULL,
  response              BLOB NOT NULL,
  revision              INTEGER NOT NULL,
  events                INTEGER NOT NULL,
  first_event_revision  INTEGER,
  last_event_revision   INTEGER,
  created               INTEGER NOT NULL CHECK (created IN (0, 1)),
  canceled              INTEGER NOT NULL CHECK (canceled IN (0, 1)),
  compact_revision      INTEGER NOT NULL,
  is_progress           INTEGER NOT NULL CHECK (is_progress IN (0, 1)),
  UNIQUE (watch_id, segment, seq),
  FOREIGN KEY (watch_id, segment) REFERENCES watch_segments (watch_id, segment)
);
CREATE INDEX watch_responses_by_at ON watch_responses (at_ns);

)sql";

// Faults, checks, the schedule and metrics.
constexpr char kHarness[] = R"sql(
CREATE TABLE faults (
  id       INTEGER PRIMARY KEY,
  kind     TEXT NOT NULL,
  target   TEXT NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns   INTEGER,
  CHECK (end_ns IS NULL OR end_ns >= start_ns)
);
CREATE INDEX faults_by_start ON faults (start_ns);

CREATE TABLE checks (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  status        TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'gave-up', 'skipped')),
  required      INTEGER NOT NULL CHECK (required IN (0, 1)),
  checked       INTEGER NOT NULL CHECK (checked >= 0),
  violations    INTEGER NOT NULL CHECK (violations >= 0),
  first_rule    TEXT NOT NULL,
  first_message TEXT NOT NULL,
  first_at_ns   INTEGER,
  summary       TEXT NOT NULL,
  wall_us       INTEGER NOT NULL
);

CREATE TABLE restores (
  id          INTEGER PRIMARY KEY,
  disaster_ns INTEGER NOT NULL,
  restore_ns  INTEGER NOT NULL,
  revision    INTEGER NOT NULL CHECK (revision >= 1),
  bump        INTEGER NOT NULL CHECK (bump >= 0),
  snapshot    TEXT NOT NULL,
  CHECK (restore_ns >= disaster_ns)
);

CREATE TABLE schedule (
  id     INTEGER PRIMARY KEY,
  at_ns  INTEGER NOT NULL,
  origin TEXT NOT NULL CHECK (origin IN ('random', 'script', 'config', 'timed')),
  call   INTEGER NOT NULL CHECK (call >= 0),
  kind   TEXT NOT NULL,
  step   TEXT NOT NULL
);

CREATE TABLE metrics (
  id     INTEGER PRIMARY KEY,
  at_ns  INTEGER NOT NULL,
  member INTEGER NOT NULL,
  name   TEXT NOT NULL,
  value  INTEGER NOT NULL
);
CREATE INDEX metrics_by_name ON metrics (name, member, at_ns);

CREATE TABLE coverage (
  name TEXT PRIMARY KEY,
  hits INTEGER NOT NULL CHECK (hits > 0)
);

)sql";

// The informers of the Kubernetes layer.
constexpr char kInformers[] = R"sql(
CREATE TABLE informers (
  id       INTEGER PRIMARY KEY,
  client   INTEGER NOT NULL,
  prefix   TEXT NOT NULL,
  finished INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)),
  final_ns INTEGER,
  final_rv INTEGER,
  CHECK (finished = (final_ns IS NOT NULL) AND finished = (final_rv IS NOT NULL))
);

CREATE TABLE informer_lists (
  id               INTEGER PRIMARY KEY,
  informer_id      INTEGER NOT NULL REFERENCES informers (id),
  list             INTEGER NOT NULL CHECK (list >= 0),
  step             INTEGER NOT NULL CHECK (step >= 0),
  apiserver        INTEGER NOT NULL,
  invoke_ns        INTEGER NOT NULL,
  return_ns        INTEGER NOT NULL,
  requested_rv     INTEGER NOT NULL,
  ok               INTEGER NOT NULL CHECK (ok IN (0, 1)),
  error            TEXT,
  resource_version INTEGER NOT NULL,
  CHECK (return_ns >= invoke_ns),
  UNIQUE (informer_id, list)
);

CREATE TABLE informer_list_objects (
  id               INTEGER PRIMARY KEY,
  informer_id      INTEGER NOT NULL,
  list             INTEGER NOT NULL,
  seq              INTEGER NOT NULL CHECK (seq >= 0),
  key              TEXT NOT NULL,
  value            BLOB NOT NULL,
  resource_version INTEGER NOT NULL,
  UNIQUE (informer_id, list, seq),
  FOREIGN KEY (informer_id, list) REFERENCES informer_lists (informer_id, list)
);

CREATE TABLE informer_watches (
  id          INTEGER PRIMARY KEY,
  informer_id INTEGER NOT NULL REFERENCES informers (id),
  watch       INTEGER NOT NULL CHECK (watch >= 0),
  step        INTEGER NOT NULL CHECK (step >= 0),
  apiserver   INTEGER NOT NULL,
  created_ns  INTEGER NOT NULL,
  from_rv     INTEGER NOT NULL,
  end_reason  TEXT,
  ended_ns    INTEGER,
  CHECK ((end_reason IS NULL) = (ended_ns IS NULL)),
  UNIQUE (informer_id, watch)
);

CREATE TABLE informer_watch_events (
  id               INTEGER PRIMARY KEY,
  informer_id      INTEGER NOT NULL,
  watch            INTEGER NOT NULL,
  seq              INTEGER NOT NULL CHECK (seq >= 0),
  type             TEXT NOT NULL CHECK (type IN ('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK')),
  at_ns            INTEGER NOT NULL,
  cached_ns        INTEGER NOT NULL,
  key              TEXT NOT NULL,
  value            BLOB NOT NULL,
  resource_version INTEGER NOT NULL,
  UNIQUE (informer_id, watch, seq),
  FOREIGN KEY (informer_id, watch) REFERENCES informer_watches (informer_id, watch)
);
CREATE INDEX informer_watch_events_by_key ON informer_watch_events (key, resource_version);

CREATE TABLE informer_processed (
  id          INTEGER PRIMARY KEY,
  informer_id INTEGER NOT NULL REFERENCES informers (id),
  seq         INTEGER NOT NULL CHECK (seq >= 0),
  at_ns       INTEGER NOT NULL,
  key         TEXT NOT NULL,
  informer_rv INTEGER NOT NULL,
  present     INTEGER NOT NULL CHECK (present IN (0, 1)),
  object_rv   INTEGER NOT NULL,
  UNIQUE (informer_id, seq)
);

CREATE TABLE informer_final_objects (
  id               INTEGER PRIMARY KEY,
  informer_id      INTEGER NOT NULL REFERENCES informers (id),
  seq              INTEGER NOT NULL CHECK (seq >= 0),
  key              TEXT NOT NULL,
  value            BLOB NOT NULL,
  resource_version INTEGER NOT NULL,
  UNIQUE (informer_id, seq)
);
)sql";

}  // namespace schema

const std::string& schema_sql() {
  static const std::string kSql = std::string(schema::kRun) + schema::kClients + schema::kHarness + schema::kInformers;
  return kSql;
}

Status create_schema(sqlite3* db, std::string_view path) {
  const std::string sql =
      "BEGIN;\n" + schema_sql() + "INSERT INTO meta (key, value) VALUES ('format', '" +
      std::string(kRunDbFormat) + "'), ('schema_version', '" + std::to_string(kRunDbSchemaVersion) +
      "');\n" + "PRAGMA application_id = " + std::to_string(kRunDbApplicationId) + ";\nCOMMIT;\n";
  Status status = exec(db, path, sql);
  if (!status.is_ok()) {
    (void)exec(db, path, "ROLLBACK;");
    return Status(status.code(), "creating the run database schema: " + status.message());
  }
  return Status::ok();
}

namespace {

// The meta value under `key`, nullopt when the row is missing. Errors when the file is not
// SQLite or has no meta table say so in words.
Result<std::optional<std::string>> meta_value(sqlite3* db, std::string_view path,
                                              std::string_view key) {
  Stmt has_meta;
  if (Status s = has_meta.prepare(
          db, path, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'meta'");
      !s.is_ok()) {
    if (sqlite3_errcode(db) == SQLITE_NOTADB) {
      return Status(StatusCode::kCorruption,
                    std::string(path) + ": not a dst run database: not an SQLite database file");
    }
    return s;
  }
  int rc = has_meta.step();
  if (rc == SQLITE_NOTADB) {
    return Status(StatusCode::kCorruption,
                  std::string(path) + ": not a dst run database: not an SQLite database file");
  }
  if (rc == SQLITE_DONE) return std::optional<std::string>();  // no meta table: the caller decides
  if (rc != SQLITE_ROW) return sqlite_error(path, "reading the schema", db, rc);

  Stmt select;
  if (Status s = select.prepare(db, path, "SELECT value FROM meta WHERE key = ?1"); !s.is_ok()) {
    return s;
  }
  select.bind_text(1, key);
  rc = select.step();
  if (rc == SQLITE_DONE) return std::optional<std::string>();
  if (rc != SQLITE_ROW) return sqlite_error(path, "reading the meta table", db, rc);
  return std::optional<std::string>(select.column_text(0));
}

}  // namespace

Result<bool> is_run_db(sqlite3* db, std::string_view path) {
  Result<std::optional<std::string>> format = meta_value(db, path, "format");
  if (!format.is_ok()) return format.status();
  return format->has_value() && **format == kRunDbFormat;
}

Status check_schema(sqlite3* db, std::string_view path) {
  Result<bool> is_ours = is_run_db(db, path);
  if (!is_ours.is_ok()) return is_ours.status();
  if (!*is_ours) {
    return Status(StatusCode::kInvalidArgument,
                  std::string(path) +
                      ": not a dst run database: an SQLite file without a meta "
                      "row format = '" +
                      std::string(kRunDbFormat) + "'");
  }
  Result<std::optional<std::string>> version_text = meta_value(db, path, "schema_version");
  if (!version_text.is_ok()) return version_text.status();
  if (!version_text->has_value()) {
    return Status(StatusCode::kCorruption,
                  std::string(path) + ": run database without a meta schema_version row");
  }
  const std::string& text = **version_text;
  const std::optional<int64_t> parsed = parse_i64(text);
  const long long version = parsed.value_or(0);
  if (!parsed) {
    return Status(StatusCode::kCorruption, std::string(path) + ": run database schema_version '" +
                                               text + "' is not a number");
  }
  if (version > kRunDbSchemaVersion) {
    return Status(StatusCode::kInvalidArgument,
                  std::string(path) + ": run database schema version " + text +
                      " is newer than this dst reads (" + std::to_string(kRunDbSchemaVersion) +
                      "): read it with the dst that wrote it or a newer one");
  }
  if (version != kRunDbSchemaVersion) {
    return Status(StatusCode::kInvalidArgument,
                  std::string(path) + ": run database schema version " + text +
                      " is older than this dst reads (" + std::to_string(kRunDbSchemaVersion) +
                      ") and no upgrade exists: read it with the dst that wrote it");
  }
  return Status::ok();
}

Result<DbHandle> open_db(const std::string& path, int flags) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  DbHandle db(raw);  // closed on every path, including a failed open
  if (rc != SQLITE_OK) return sqlite_error(path, "opening", db.get(), rc);
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), kRunDbBusyTimeoutMs);
  return Result<DbHandle>(std::move(db));
}

}  // namespace run_db_internal

}  // namespace dst::history
