// Small helpers over SQLite's C API: an owning prepared statement and result codes as Statuses.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"

namespace dst::backend {

// The StatusCode for a failed SQLite (extended) result code: SQLITE_FULL is kNoSpace, corruption
// (including a failed page checksum, SQLITE_IOERR_DATA) is kCorruption, other I/O errors kIoError.
StatusCode status_code_for_sqlite(int rc);

// "SQLITE_IOERR_FSYNC (1034)": the symbolic name of an extended result code, for messages.
std::string sqlite_code_name(int rc);

// An owning sqlite3_stmt with its SQL text (for error messages). Binds copy nothing: the bound
// bytes must stay alive until the statement is reset.
class Statement {
 public:
  Statement() = default;
  Statement(sqlite3_stmt* stmt, std::string sql) : stmt_(stmt), sql_(std::move(sql)) {}
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(Statement&& other) noexcept : stmt_(other.stmt_), sql_(std::move(other.sql_)) {
    other.stmt_ = nullptr;
  }
  Statement& operator=(Statement&& other) noexcept {
    std::swap(stmt_, other.stmt_);
    std::swap(sql_, other.sql_);
    return *this;
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Prepared once and kept (SQLITE_PREPARE_PERSISTENT). Returns the SQLite result code.
  int prepare(sqlite3* db, std::string sql);

  // An empty blob, not NULL (sqlite3_bind_blob binds NULL for a null pointer).
  void bind_blob(int index, std::string_view bytes);
  void bind_int64(int index, int64_t value);
  int step() { return sqlite3_step(stmt_); }
  // Clears bindings and ends the statement (frees its read cursor).
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string_view column_blob(int index) const;
  int64_t column_int64(int index) const { return sqlite3_column_int64(stmt_, index); }

  const std::string& sql() const { return sql_; }
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// Resets a statement when the scope ends, however it ends.
class StatementReset {
 public:
  explicit StatementReset(Statement& s) : s_(s) {}
  ~StatementReset() { s_.reset(); }
  StatementReset(const StatementReset&) = delete;
  StatementReset& operator=(const StatementReset&) = delete;

 private:
  Statement& s_;
};

}  // namespace dst::backend
