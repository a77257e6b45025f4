// Backend reads, writes, batching and maintenance; opening is in backend_open.cc.
#include "node/backend/backend.h"

#include "base/big_endian.h"

#include <algorithm>

#include "base/hash.h"
#include "base/probes.h"
#include "node/backend/backend_guard.h"

namespace dst::backend {

void Backend::reseed_sqlite_prng() {
  const uint32_t seed = static_cast<uint32_t>(env_.rng(rng_stream_).next_u64()) | 1;  // 0: urandom
  sqlite3_test_control(SQLITE_TESTCTRL_PRNG_SEED, static_cast<int>(seed),
                       static_cast<sqlite3*>(nullptr));
}

Status Backend::check_usable() const {
  if (!failure_.is_ok()) return failure_;
  if (closed_) return Status(StatusCode::kClosed, "backend \"" + path_ + "\" is closed");
  return Status::ok();
}

Status Backend::fail(Status status) {
  DST_ASSERT(!status.is_ok());
  if (failure_.is_ok()) failure_ = status;
  return status;
}

Status Backend::sqlite_error(int rc, std::string_view sql) {
  std::string message = "backend \"" + path_ + "\": " + std::string(sql) + ": " +
                        sqlite3_errmsg(db_) + " [" + sqlite_code_name(rc) + "]";
  if (std::string disk = vfs_->take_last_error(); !disk.empty()) message += "; disk: " + disk;
  return Status(status_code_for_sqlite(rc), std::move(message));
}

Status Backend::exec(const std::string& sql) {
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  vfs_->rethrow_pending_unwind();
  if (rc != SQLITE_OK) return fail(sqlite_error(rc, sql));
  return Status::ok();
}

Status Backend::step_done(Statement& stmt) {
  StatementReset reset(stmt);
  const int rc = stmt.step();
  vfs_->rethrow_pending_unwind();
  if (rc != SQLITE_DONE) return fail(sqlite_error(rc, stmt.sql()));
  return Status::ok();
}

Backend::BucketStatements& Backend::bucket(std::string_view name) {
  auto it = buckets_.find(name);
  DST_ASSERT_MSG(it != buckets_.end(), "unknown bucket \"" + std::string(name) + "\"");
  return it->second;
}

void Backend::count_write(uint64_t ops) {
  if (pending_ops_ == 0) batch_started_ = env_.monotonic_now();
  pending_ops_ += std::max<uint64_t>(ops, 1);
}

// --- writes -------------------------------------------------------------------------------------

namespace {
Status check_sizes(std::string_view key, std::string_view value) {
  if (key.size() > limits::kBackendKeyBytesMax) {
    return Status(StatusCode::kInvalidArgument,
                  "key of " + std::to_string(key.size()) + " bytes exceeds the backend's limit");
  }
  if (value.size() > limits::kBackendValueBytesMax) {
    return Status(StatusCode::kInvalidArgument,
                  "value of " + std::to_string(value.size()) + " bytes exceeds the backend's limit");
  }
  return Status::ok();
}

std::string encode_index(uint64_t index) {
  return be64(index);
}
}  // namespace

Status Backend::put(std::string_view bucket_name, std::string_view key, std::string_view value) {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  if (Status s = check_sizes(key, value); !s.is_ok()) return s;
  Statement& stmt = bucket(bucket_name).put;
  stmt.bind_blob(1, key);
  stmt.bind_blob(2, value);
  if (Status s = step_done(stmt); !s.is_ok()) return s;
  count_write(1);
  return Status::ok();
}

Status Backend::del(std::string_view bucket_name, std::string_view key) {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  Statement& stmt = bucket(bucket_name).del;
  stmt.bind_blob(1, key);
  if (Status s = step_done(stmt); !s.is_ok()) return s;
  count_write(1);
  return Status::ok();
}

Status Backend::del_range(std::string_view bucket_name, std::string_view from,
                          std::string_view to) {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  BucketStatements& b = bucket(bucket_name);
  Statement& stmt = to.empty() ? b.del_from : b.del_range;
  stmt.bind_blob(1, from);
  if (!to.empty()) stmt.bind_blob(2, to);
  if (Status s = step_done(stmt); !s.is_ok()) return s;
  count_write(static_cast<uint64_t>(sqlite3_changes64(db_)));
  return Status::ok();
}

Status Backend::set_applied(uint64_t index) {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  DST_ASSERT_MSG(index >= applied_index_, "applied index moves backwards: " +
                                              std::to_string(applied_index_) + " -> " +
                                              std::to_string(index));
  // The row is written once per batch (write_applied_index) instead of once per entry: the batch
  // commits atomically, so the file holds the same thing either way, and the per-entry statement
  // was a tenth of the backend's time at 1,000 QPS (issue 23). It still counts as a write, so
  // batches close exactly as before.
  applied_index_ = index;
  applied_index_dirty_ = true;
  count_write(1);
  return Status::ok();
}

// Under the fiber lock: the meta row catches up with set_applied before anything can see it
// (a commit, or a read of the meta bucket).
Status Backend::write_applied_index() {
  if (!applied_index_dirty_) return Status::ok();
  const std::string value = encode_index(applied_index_);
  Statement& stmt = bucket(kMetaBucket).put;
  stmt.bind_blob(1, kAppliedIndexKey);
  stmt.bind_blob(2, value);
  if (Status s = step_done(stmt); !s.is_ok()) return s;
  applied_index_dirty_ = false;
  return Status::ok();
}

Status Backend::commit() {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  return commit_locked();
}

Status Backend::commit_locked() {
  if (pending_ops_ == 0) return Status::ok();
  if (Status s = write_applied_index(); !s.is_ok()) return s;
  // COMMIT appends the batch to the WAL and fsyncs it (blocking this fiber); it may also run an
  // automatic checkpoint, whose failure COMMIT reports although the batch is durable. Either way
  // the Backend is failed and the node restarts from what the disk holds.
  if (Status s = step_done(commit_); !s.is_ok()) return s;
  ++stats_.commits;
  stats_.ops_committed += pending_ops_;
  committed_applied_index_ = applied_index_;
  pending_ops_ = 0;
  return step_done(begin_);
}

bool Backend::should_commit() const {
  if (pending_ops_ == 0) return false;
  if (pending_ops_ >= options_.batch_limit_ops) return true;
  return env_.monotonic_now() - batch_started_ >= options_.batch_interval_ns;
}

Status Backend::maybe_commit() {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  return should_commit() ? commit_locked() : Status::ok();
}

// --- reads --------------------------------------------------------------------------------------

Result<std::optional<std::string>> Backend::get(std::string_view bucket_name,
                                                std::string_view key) {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  if (bucket_name == kMetaBucket) {
    if (Status s = write_applied_index(); !s.is_ok()) return s;
  }
  Statement& stmt = bucket(bucket_name).get;
  StatementReset reset(stmt);
  stmt.bind_blob(1, key);
  const int rc = stmt.step();
  vfs_->rethrow_pending_unwind();
  if (rc == SQLITE_DONE) return std::optional<std::string>();
  if (rc != SQLITE_ROW) return fail(sqlite_error(rc, stmt.sql()));
  return std::optional<std::string>(std::string(stmt.column_blob(0)));
}

Status Backend::range(std::string_view bucket_name, std::string_view from, std::string_view to,
                      uint64_t limit, const Visitor& visit) {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  return range_locked(bucket_name, from, to, limit, visit);
}

Status Backend::range_locked(std::string_view bucket_name, std::string_view from,
                             std::string_view to, uint64_t limit, const Visitor& visit) {
  if (bucket_name == kMetaBucket) {
    if (Status s = write_applied_index(); !s.is_ok()) return s;
  }
  BucketStatements& b = bucket(bucket_name);
  Statement& stmt = to.empty() ? b.range_from : b.range_between;
  StatementReset reset(stmt);
  stmt.bind_blob(1, from);
  // LIMIT -1 is SQLite's "no limit".
  stmt.bind_int64(2, limit == 0 ? -1 : static_cast<int64_t>(std::min<uint64_t>(limit, INT64_MAX)));
  if (!to.empty()) stmt.bind_blob(3, to);
  while (true) {
    const int rc = stmt.step();
    vfs_->rethrow_pending_unwind();
    if (rc == SQLITE_DONE) return Status::ok();
    if (rc != SQLITE_ROW) return fail(sqlite_error(rc, stmt.sql()));
    visiting_ = true;
    const bool more = visit(stmt.column_blob(0), stmt.column_blob(1));
    visiting_ = false;
    if (!more) return Status::ok();
  }
}

Result<uint64_t> Backend::hash(const std::vector<std::string>& names) {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  std::vector<std::string> sorted = names;
  if (sorted.empty()) {
    for (const auto& [name, statements] : buckets_) sorted.push_back(name);
  }
  std::sort(sorted.begin(), sorted.end());
  uint64_t h = 0;
  for (const std::string& name : sorted) {
    h = hash_combine(h, hash_bytes(name));
    Status s = range_locked(name, "", "", 0, [&h](std::string_view k, std::string_view v) {
      h = hash_combine(hash_combine(h, hash_bytes(k)), hash_bytes(v));
      return true;
    });
    if (!s.is_ok()) return s;
  }
  return h;
}

// --- space and maintenance ----------------------------------------------------------------------

Result<int64_t> Backend::pragma_int(const std::string& pragma) {
  Statement stmt;
  const int rc = stmt.prepare(db_, pragma);
  if (rc != SQLITE_OK) return fail(sqlite_error(rc, pragma));
  return pragma_int(stmt);
}

Result<int64_t> Backend::pragma_int(Statement& stmt) {
  StatementReset reset(stmt);
  const int rc = stmt.step();
  vfs_->rethrow_pending_unwind();
  if (rc != SQLITE_ROW) return fail(sqlite_error(rc, stmt.sql()));
  return stmt.column_int64(0);
}

Result<uint64_t> Backend::size_bytes() {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  Result<int64_t> pages = pragma_int(page_count_);  // on every write that grows the store
  if (!pages.is_ok()) return pages.status();
  return static_cast<uint64_t>(*pages) * limits::kBackendPageBytes;
}

Result<uint64_t> Backend::size_in_use() {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  Result<int64_t> pages = pragma_int(page_count_);
  if (!pages.is_ok()) return pages.status();
  Result<int64_t> free_pages = pragma_int(freelist_count_);
  if (!free_pages.is_ok()) return free_pages.status();
  return static_cast<uint64_t>(*pages - *free_pages) * limits::kBackendPageBytes;
}

Status Backend::run_outside_batch(std::initializer_list<const char*> sql) {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  if (Status s = commit_locked(); !s.is_ok()) return s;
  if (sql.size() == 0) return Status::ok();
  // The committed batch left an empty transaction open (begin_): end it, and open the next batch
  // afterwards, so that the batch invariant holds whenever the lock is free.
  if (Status s = exec("COMMIT"); !s.is_ok()) return s;
  for (const char* statement : sql) {
    if (Status s = exec(statement); !s.is_ok()) return s;
  }
  return exec("BEGIN");
}

void Backend::fault(std::string_view point) {
  if (fault_hook_) fault_hook_(point);
}

Status Backend::hold_for_copy() {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  Result<int64_t> pages = pragma_int("PRAGMA page_count");
  if (!pages.is_ok()) return pages.status();
  const uint64_t bytes = static_cast<uint64_t>(*pages) * limits::kBackendPageBytes;
  const uint64_t rate = std::max<uint64_t>(1, options_.defrag_bytes_per_second);
  const unsigned __int128 ns = static_cast<unsigned __int128>(bytes) * 1'000'000'000u / rate;
  const sim::DurationNs copy = static_cast<sim::DurationNs>(std::min<unsigned __int128>(ns, limits::kBackendDefragCopyNsMax));
  const sim::WaitResult r = env_.sleep(copy);
  if (r != sim::WaitResult::kOk)
    return Status(StatusCode::kCancelled, std::string("defragmenting: ") + sim::wait_result_name(r));
  return Status::ok();
}

Status Backend::defragment() {
  // VACUUM cannot run inside a transaction. It rebuilds the database in a temporary in-memory
  // copy (temp_store=MEMORY) and writes it back through the WAL; the TRUNCATE checkpoint then
  // copies it into the database file, cuts that file to its new size and empties the WAL. Each
  // step holds the fiber lock; the fault points sit between them (see fault()).
  if (Status s = run_outside_batch({}); !s.is_ok()) return s;
  fault(kFaultBeforeDefrag);
  if (Status s = run_outside_batch({"VACUUM"}); !s.is_ok()) return s;
  if (Status s = hold_for_copy(); !s.is_ok()) return s;
  fault(kFaultDuringDefrag);
  if (Status s = run_outside_batch({"PRAGMA wal_checkpoint(TRUNCATE)"}); !s.is_ok()) return s;
  fault(kFaultAfterDefrag);
  DST_PROBE(kBackendDefragmented);
  return Status::ok();
}

Status Backend::close() {
  Guard guard(*this);
  if (Status s = guard.status(); !s.is_ok()) return s;
  if (Status s = commit_locked(); !s.is_ok()) return s;
  for (const char* sql : {"COMMIT", "PRAGMA wal_checkpoint(TRUNCATE)"}) {
    if (Status s = exec(sql); !s.is_ok()) return s;
  }
  // The WAL is empty and synced state is in the database file: sqlite3_close only deletes it.
  close_connection();
  closed_ = true;
  return Status::ok();
}

void Backend::finalize_statements() {
  buckets_.clear();
  for (Statement* stmt : {&begin_, &commit_, &page_count_, &freelist_count_}) *stmt = Statement();
}

void Backend::close_connection() {
  finalize_statements();
  if (db_ != nullptr) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
  }
  if (vfs_ != nullptr) vfs_->rethrow_pending_unwind();
}

Backend::~Backend() {
  if (vfs_ != nullptr) vfs_->shut_off();  // abandon: a destroyed Backend never writes
  finalize_statements();
  if (db_ != nullptr) sqlite3_close_v2(db_);
  db_ = nullptr;
  vfs_.reset();
}

}  // namespace dst::backend
