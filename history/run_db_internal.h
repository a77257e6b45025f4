// Internals shared by the run database's writer, reader and schema code (history/run_db.h):
// an owning prepared statement, SQLite failures as Statuses that name the file, and the schema
// checks. Not for use outside history/run_db*.cc.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "history/run_db.h"

namespace dst::history::run_db_internal {

// "runs/x.db: inserting into operations: UNIQUE constraint failed: operations.id
// (SQLITE_CONSTRAINT_PRIMARYKEY, 1555)"
Status sqlite_error(std::string_view path, std::string_view doing, sqlite3* db, int rc);
// The StatusCode for a failed SQLite result code (full disk, corruption, I/O, ...).
StatusCode status_code_for_sqlite(int rc);

// Runs SQL without results (schema, pragmas, BEGIN/COMMIT).
Status exec(sqlite3* db, std::string_view path, const std::string& sql);

// An owning prepared statement. Bound text and blobs are copied (SQLITE_TRANSIENT), so a caller's
// temporaries may die before step().
class Stmt {
 public:
  Stmt() = default;
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Status prepare(sqlite3* db, std::string_view path, std::string sql);

  void bind_int64(int index, int64_t value);
  void bind_null(int index);
  void bind_optional_int64(int index, std::optional<int64_t> value);
  void bind_text(int index, std::string_view text);  // stores the bytes as TEXT
  void bind_optional_text(int index, const std::optional<std::string>& text);
  void bind_blob(int index, std::string_view bytes);  // an empty blob, not NULL

  // Steps once; SQLITE_ROW / SQLITE_DONE, anything else is an error for the caller to report.
  int step() { return sqlite3_step(stmt_); }
  // Runs a statement that returns no rows and resets it; on failure the error names `doing()`
  // (a callable, so that the message costs nothing unless it is needed).
  template <typename Describe>
  Status run(sqlite3* db, std::string_view path, const Describe& doing) {
    const int rc = step();
    Status status = Status::ok();
    if (rc != SQLITE_DONE) status = sqlite_error(path, std::string(doing()), db, rc);
    reset();
    return status;
  }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  bool column_is_null(int index) const { return sqlite3_column_type(stmt_, index) == SQLITE_NULL; }
  int64_t column_int64(int index) const { return sqlite3_column_int64(stmt_, index); }
  std::optional<int64_t> column_optional_int64(int index) const;
  std::string column_text(int index) const;
  std::string_view column_blob(int index) const;
  int column_type(int index) const { return sqlite3_column_type(stmt_, index); }
  const std::string& sql() const { return sql_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// Every CREATE statement of schema version kRunDbSchemaVersion (docs/run-db.md documents them).
const std::string& schema_sql();
// Creates the schema and the meta rows in a fresh database, in one transaction.
Status create_schema(sqlite3* db, std::string_view path);
// Checks that `db` is a dst run database of kRunDbSchemaVersion: a clear error otherwise (not an
// SQLite file, an SQLite file that is not a run database, a newer or older schema version).
Status check_schema(sqlite3* db, std::string_view path);
// Only the format row: is this file a dst run database at all (any version)?
Result<bool> is_run_db(sqlite3* db, std::string_view path);

// Opens `path` with `flags`, sets the busy timeout; errors name the file.
Result<DbHandle> open_db(const std::string& path, int flags);

}  // namespace dst::history::run_db_internal
