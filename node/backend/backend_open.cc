// Backend::open: option checks, the SQLite connection on the sim VFS, its configuration, the
// bucket tables, the optional integrity check and the applied index.
#include <algorithm>

#include "base/probes.h"

#include "base/big_endian.h"
#include "node/backend/backend.h"
#include "node/backend/backend_guard.h"

namespace dst::backend {
namespace {

// Reserved bytes at the end of every page, where the VFS keeps the page checksum.
constexpr int kPageChecksumBytes = 8;

Status check_bucket_name(const std::string& name) {
  const bool valid =
      !name.empty() && name.size() <= limits::kBackendBucketNameBytesMax &&
      std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      });
  if (valid) return Status::ok();
  return Status(StatusCode::kInvalidArgument,
                "bucket name \"" + name + "\" is not 1.." +
                    std::to_string(limits::kBackendBucketNameBytesMax) + " of [a-z0-9_]");
}

// Checked, sorted, deduplicated bucket names, with "meta" added.
Result<std::vector<std::string>> bucket_names(std::vector<std::string> names) {
  names.emplace_back(kMetaBucket);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  if (names.size() > limits::kBackendBucketsMax) {
    return Status(StatusCode::kInvalidArgument, std::to_string(names.size()) + " buckets");
  }
  for (const std::string& name : names) {
    if (Status s = check_bucket_name(name); !s.is_ok()) return s;
  }
  return names;
}

std::string table(const std::string& bucket) { return "\"b_" + bucket + "\""; }

uint64_t decode_index(std::string_view bytes) { return read_be(bytes.substr(0, 8)); }

}  // namespace

Backend::Backend(sim::Env& env, std::string path, BackendOptions options)
    : env_(env),
      fs_(env.files()),
      path_(std::move(path)),
      options_(std::move(options)),
      rng_stream_("sqlite/" + env.host_name()),
      lock_waiters_(env) {}

Result<std::unique_ptr<Backend>> Backend::open(sim::Env& env, std::string path, BackendOptions options) {
  DST_ASSERT_MSG(env.in_own_fiber(), "Backend::open runs in a fiber of the process that will use it");
  DST_ASSERT(options.batch_limit_ops > 0 && options.batch_interval_ns > 0);
  Result<std::vector<std::string>> names = bucket_names(std::move(options.buckets));
  if (!names.is_ok()) return names.status();
  options.buckets = std::move(*names);
  std::unique_ptr<Backend> b(new Backend(env, std::move(path), std::move(options)));
  Guard guard(*b);
  if (Status s = guard.status(); !s.is_ok()) return s;
  for (Status (Backend::*step)() : {&Backend::make_files_durable, &Backend::open_connection, &Backend::configure,
                                    &Backend::create_buckets, &Backend::prepare_statements,
                                    &Backend::check_integrity, &Backend::load_applied_index}) {
    if (Status s = (b.get()->*step)(); !s.is_ok()) return s;
  }
  if (Status s = b->step_done(b->begin_); !s.is_ok()) return s;  // the first batch
  return b;
}

// What open() reads must survive a power loss right after it: the node acts on it (it skips the
// entries up to the applied index). After a process crash the page cache may hold SQLite writes
// that were never synced, or whose fsync failed and that the disk will therefore never persist
// ("fsyncgate", sim/disk.h). Writing every backend file back whole and syncing it, WAL first,
// makes the cache's view durable before SQLite reads it. A torn crash during this leaves a mix of
// old and new bytes only where SQLite's own recovery copes: a WAL tail, or database pages that a
// valid WAL frame still covers.
Status Backend::make_files_durable() {
  bool any = false;
  for (const std::string& name : {path_ + "-wal", path_, path_ + "-journal"}) {
    if (!fs_.exists(name)) continue;
    if (Status s = rewrite_and_sync(name); !s.is_ok()) return fail(s);
    any = true;
  }
  if (!any) return Status::ok();
  DST_PROBE(kBackendFilesMadeDurable);
  if (Status s = fs_.sync_dir(); !s.is_ok()) return fail(s);
  return Status::ok();
}

Status Backend::rewrite_and_sync(const std::string& name) {
  Result<sim::FileId> id = fs_.open(name, sim::OpenMode::kExisting);
  if (!id.is_ok()) return id.status();
  Result<uint64_t> size = fs_.size(*id);
  if (!size.is_ok()) return size.status();
  if (*size > limits::kBackendFileBytesMax) {
    return Status(StatusCode::kCorruption, "backend file \"" + name + "\" has " +
                                               std::to_string(*size) + " bytes, more than allowed");
  }
  Result<std::string> bytes = fs_.read(*id, 0, *size);
  if (!bytes.is_ok()) return bytes.status();
  if (Status s = fs_.write(*id, 0, *bytes); !s.is_ok()) return s;
  return fs_.fsync(*id);
}

Status Backend::open_connection() {
  vfs_ = std::make_unique<SimVfs>(env_, limits::kBackendPageBytes);
  // NOMUTEX: one OS thread, and the fiber lock (Guard) already serializes calls.
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX |
                    SQLITE_OPEN_EXRESCODE;
  const int rc = sqlite3_open_v2(path_.c_str(), &db_, flags, vfs_->name().c_str());
  vfs_->rethrow_pending_unwind();
  if (rc != SQLITE_OK) return fail(sqlite_error(rc, "open"));
  return Status::ok();
}

Status Backend::configure() {
  // Exclusive locking first: an existing WAL database can then be read without shared memory.
  if (Status s = exec("PRAGMA locking_mode=EXCLUSIVE"); !s.is_ok()) return s;
  Result<int64_t> pages = pragma_int("PRAGMA page_count");
  if (!pages.is_ok()) return pages.status();
  if (*pages == 0) {
    // A new file: page size, checksum space and auto_vacuum are fixed before its first page.
    // (The reserve after the page size: PRAGMA page_size resets the reserve SQLite asks for.)
    const std::string page_size =
        "PRAGMA page_size=" + std::to_string(limits::kBackendPageBytes);
    for (const std::string& sql : {page_size, std::string("PRAGMA auto_vacuum=NONE")}) {
      if (Status s = exec(sql); !s.is_ok()) return s;
    }
    int reserve = kPageChecksumBytes;
    sqlite3_file_control(db_, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve);
  } else if (Status s = check_file_format(); !s.is_ok()) {
    return s;
  }
  return configure_connection();
}

// An existing file must have the layout the VFS checksums assume.
Status Backend::check_file_format() {
  Result<int64_t> page_size = pragma_int("PRAGMA page_size");
  if (!page_size.is_ok()) return page_size.status();
  int reserve = -1;  // query only
  sqlite3_file_control(db_, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve);
  if (*page_size == limits::kBackendPageBytes && reserve == kPageChecksumBytes) {
    return Status::ok();
  }
  return fail(Status(StatusCode::kCorruption,
                     "backend \"" + path_ + "\": page size " + std::to_string(*page_size) +
                         " with " + std::to_string(reserve) + " reserved bytes is not a backend file"));
}

Status Backend::configure_connection() {
  const std::string cache = "PRAGMA cache_size=-" + std::to_string(limits::kBackendCacheKib);
  const std::string checkpoint =
      "PRAGMA wal_autocheckpoint=" + std::to_string(limits::kBackendWalAutocheckpointPages);
  // temp_store=MEMORY: VACUUM's copy and statement journals never become files. threads=0: no
  // sorter threads. mmap_size=0: every page is read through the VFS and its checksum.
  // cell_size_check: extra b-tree checks, so damaged pages fail as SQLITE_CORRUPT early.
  const std::string settings[] = {
      cache, checkpoint, "PRAGMA synchronous=FULL", "PRAGMA temp_store=MEMORY",
      "PRAGMA threads=0", "PRAGMA mmap_size=0", "PRAGMA cell_size_check=ON",
      "PRAGMA secure_delete=OFF", "PRAGMA trusted_schema=OFF"};
  for (const std::string& sql : settings) {
    if (Status s = exec(sql); !s.is_ok()) return s;
  }
  return set_wal_mode();
}

Status Backend::set_wal_mode() {
  Statement stmt;
  int rc = stmt.prepare(db_, "PRAGMA journal_mode=WAL");
  if (rc == SQLITE_OK) rc = stmt.step();
  vfs_->rethrow_pending_unwind();
  if (rc != SQLITE_ROW) return fail(sqlite_error(rc, stmt.sql()));
  const std::string_view mode = stmt.column_blob(0);
  if (mode == "wal") return Status::ok();
  return fail(Status(StatusCode::kIoError,
                     "backend \"" + path_ + "\": journal_mode is \"" + std::string(mode) +
                         "\", not wal"));
}

Status Backend::create_buckets() {
  std::string sql = "BEGIN;";
  for (const std::string& name : options_.buckets) {
    // BLOB columns compare with memcmp (a shorter prefix first): bbolt's key order.
    sql += "CREATE TABLE IF NOT EXISTS " + table(name) +
           " (k BLOB PRIMARY KEY NOT NULL, v BLOB NOT NULL) WITHOUT ROWID;";
  }
  sql += "COMMIT;";
  return exec(sql);
}

Status Backend::prepare_statements() {
  auto prepare = [this](Statement& stmt, std::string sql) -> Status {
    const int rc = stmt.prepare(db_, std::move(sql));
    if (rc != SQLITE_OK) return fail(sqlite_error(rc, stmt.sql()));
    return Status::ok();
  };
  for (const std::string& name : options_.buckets) {
    BucketStatements& b = buckets_[name];
    const std::string t = table(name);
    const std::pair<Statement*, std::string> statements[] = {
        {&b.get, "SELECT v FROM " + t + " WHERE k = ?1"},
        {&b.put, "INSERT OR REPLACE INTO " + t + " (k, v) VALUES (?1, ?2)"},
        {&b.del, "DELETE FROM " + t + " WHERE k = ?1"},
        {&b.del_from, "DELETE FROM " + t + " WHERE k >= ?1"},
        {&b.del_range, "DELETE FROM " + t + " WHERE k >= ?1 AND k < ?2"},
        {&b.range_from, "SELECT k, v FROM " + t + " WHERE k >= ?1 ORDER BY k LIMIT ?2"},
        {&b.range_between,
         "SELECT k, v FROM " + t + " WHERE k >= ?1 AND k < ?3 ORDER BY k LIMIT ?2"},
    };
    for (const auto& [stmt, sql] : statements) {
      if (Status s = prepare(*stmt, sql); !s.is_ok()) return s;
    }
  }
  if (Status s = prepare(page_count_, "PRAGMA page_count"); !s.is_ok()) return s;
  if (Status s = prepare(freelist_count_, "PRAGMA freelist_count"); !s.is_ok()) return s;
  if (Status s = prepare(begin_, "BEGIN"); !s.is_ok()) return s;
  return prepare(commit_, "COMMIT");
}

Status Backend::check_integrity() {
  if (!options_.check_on_open) return Status::ok();
  Statement stmt;
  int rc = stmt.prepare(db_, "PRAGMA quick_check");
  if (rc == SQLITE_OK) rc = stmt.step();
  vfs_->rethrow_pending_unwind();
  if (rc != SQLITE_ROW) return fail(sqlite_error(rc, stmt.sql()));
  const std::string_view verdict = stmt.column_blob(0);
  if (verdict == "ok") return Status::ok();
  // The first problem is enough to name; the VFS adds a failed page checksum if that was it.
  std::string message = "backend \"" + path_ + "\": quick_check: " + std::string(verdict);
  if (std::string disk = vfs_->take_last_error(); !disk.empty()) message += "; disk: " + disk;
  return fail(Status(StatusCode::kCorruption, std::move(message)));
}

Status Backend::load_applied_index() {
  Statement& stmt = bucket(kMetaBucket).get;
  StatementReset reset(stmt);
  stmt.bind_blob(1, kAppliedIndexKey);
  const int rc = stmt.step();
  vfs_->rethrow_pending_unwind();
  if (rc == SQLITE_DONE) return Status::ok();  // a new backend: nothing applied yet
  if (rc != SQLITE_ROW) return fail(sqlite_error(rc, stmt.sql()));
  const std::string_view bytes = stmt.column_blob(0);
  if (bytes.size() != 8) {
    return fail(Status(StatusCode::kCorruption, "backend \"" + path_ + "\": applied index of " +
                                                    std::to_string(bytes.size()) + " bytes"));
  }
  applied_index_ = committed_applied_index_ = decode_index(bytes);
  return Status::ok();
}

}  // namespace dst::backend
