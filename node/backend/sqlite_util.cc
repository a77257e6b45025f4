// See sqlite_util.h.
#include "node/backend/sqlite_util.h"

namespace dst::backend {

StatusCode status_code_for_sqlite(int rc) {
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return StatusCode::kNoSpace;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return StatusCode::kCorruption;
    case SQLITE_NOMEM:
      return StatusCode::kResourceExhausted;
    case SQLITE_TOOBIG:
    case SQLITE_RANGE:
    case SQLITE_MISUSE:
      return StatusCode::kInvalidArgument;
    case SQLITE_IOERR:
      return rc == SQLITE_IOERR_DATA ? StatusCode::kCorruption : StatusCode::kIoError;
    default:
      return StatusCode::kIoError;
  }
}

std::string sqlite_code_name(int rc) {
  struct Name {
    int code;
    const char* name;
  };
  static constexpr Name kNames[] = {
      {SQLITE_IOERR_READ, "SQLITE_IOERR_READ"},
      {SQLITE_IOERR_SHORT_READ, "SQLITE_IOERR_SHORT_READ"},
      {SQLITE_IOERR_WRITE, "SQLITE_IOERR_WRITE"},
      {SQLITE_IOERR_FSYNC, "SQLITE_IOERR_FSYNC"},
      {SQLITE_IOERR_DIR_FSYNC, "SQLITE_IOERR_DIR_FSYNC"},
      {SQLITE_IOERR_TRUNCATE, "SQLITE_IOERR_TRUNCATE"},
      {SQLITE_IOERR_FSTAT, "SQLITE_IOERR_FSTAT"},
      {SQLITE_IOERR_DELETE, "SQLITE_IOERR_DELETE"},
      {SQLITE_IOERR_DELETE_NOENT, "SQLITE_IOERR_DELETE_NOENT"},
      {SQLITE_IOERR_ACCESS, "SQLITE_IOERR_ACCESS"},
      {SQLITE_IOERR_DATA, "SQLITE_IOERR_DATA"},
      {SQLITE_IOERR, "SQLITE_IOERR"},
      {SQLITE_FULL, "SQLITE_FULL"},
      {SQLITE_CORRUPT, "SQLITE_CORRUPT"},
      {SQLITE_NOTADB, "SQLITE_NOTADB"},
      {SQLITE_CANTOPEN, "SQLITE_CANTOPEN"},
      {SQLITE_NOMEM, "SQLITE_NOMEM"},
      {SQLITE_TOOBIG, "SQLITE_TOOBIG"},
  };
  for (const Name& n : kNames) {
    if (n.code == rc) return std::string(n.name) + " (" + std::to_string(rc) + ")";
  }
  return "SQLite code " + std::to_string(rc);
}

int Statement::prepare(sqlite3* db, std::string sql) {
  sqlite3_finalize(stmt_);
  stmt_ = nullptr;
  sql_ = std::move(sql);
  return sqlite3_prepare_v3(db, sql_.c_str(), static_cast<int>(sql_.size()),
                            SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
}

void Statement::bind_blob(int index, std::string_view bytes) {
  static const char kEmpty = 0;
  const char* data = bytes.empty() ? &kEmpty : bytes.data();
  const int rc =
      sqlite3_bind_blob64(stmt_, index, data, bytes.size(), SQLITE_STATIC);
  DST_ASSERT_MSG(rc == SQLITE_OK, "bind_blob " + std::to_string(index) + " in " + sql_);
}

void Statement::bind_int64(int index, int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  DST_ASSERT_MSG(rc == SQLITE_OK, "bind_int64 " + std::to_string(index) + " in " + sql_);
}

std::string_view Statement::column_blob(int index) const {
  const void* data = sqlite3_column_blob(stmt_, index);
  const int size = sqlite3_column_bytes(stmt_, index);
  if (data == nullptr || size <= 0) return {};
  return std::string_view(static_cast<const char*>(data), static_cast<size_t>(size));
}

}  // namespace dst::backend
