// RunDbWriter (history/run_db.h): appends a run's rows to its run database in batched
// transactions, WAL journal mode, so a killed harness leaves everything up to the last commit.
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>

#include "history/run_db_internal.h"

namespace dst::history {

using run_db_internal::DbHandle;
using run_db_internal::Stmt;

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// A message's bytes, refused above kRunDbBlobBytesMax before anything is serialized.
template <typename Describe>
Result<std::string> serialize(const Message& message, const Describe& what) {
  const size_t bytes = message.ByteSizeLong();
  if (bytes > kRunDbBlobBytesMax) {
    return Status(StatusCode::kInvalidArgument, what() + " is " + std::to_string(bytes) +
                                                    " bytes, above the limit of " +
                                                    std::to_string(kRunDbBlobBytesMax));
  }
  std::string out;
  if (!message.SerializeToString(&out)) DST_UNREACHABLE(what() + ": serializing failed");
  return out;
}

template <typename Describe>
Status check_length(std::string_view text, size_t max, const Describe& what) {
  if (text.size() <= max) return Status::ok();
  return Status(StatusCode::kInvalidArgument, what() + " is " + std::to_string(text.size()) +
                                                  " bytes, above the limit of " +
                                                  std::to_string(max));
}

// The request oneof's field name: "put", "range", "delete_range", "txn", "lease_grant", ...
std::string request_kind(const etcdserverpb::ApiRequest& request) {
  const FieldDescriptor* field =
      etcdserverpb::ApiRequest::descriptor()->FindFieldByNumber(request.request_case());
  DST_ASSERT(field != nullptr);
  return field->name();
}

struct KeySpan {
  std::optional<std::string> key;
  std::optional<std::string> range_end;  // empty range_end: a single key (stored as NULL)
};

KeySpan span(const std::string& key, const std::string& range_end) {
  KeySpan s{key, std::nullopt};
  if (!range_end.empty()) s.range_end = range_end;
  return s;
}

KeySpan request_op_span(const etcdserverpb::RequestOp& op) {
  switch (op.request_case()) {
    case etcdserverpb::RequestOp::kRequestRange:
      return span(op.request_range().key(), op.request_range().range_end());
    case etcdserverpb::RequestOp::kRequestPut:
      return span(op.request_put().key(), "");
    case etcdserverpb::RequestOp::kRequestDeleteRange:
      return span(op.request_delete_range().key(), op.request_delete_range().range_end());
    default:
      return {};
  }
}

// The first key an operation touches, for queries: a txn's first compare, else its first op.
KeySpan request_span(const etcdserverpb::ApiRequest& request) {
  switch (request.request_case()) {
    case etcdserverpb::ApiRequest::kRange:
      return span(request.range().key(), request.range().range_end());
    case etcdserverpb::ApiRequest::kPut:
      return span(request.put().key(), "");
    case etcdserverpb::ApiRequest::kDeleteRange:
      return span(request.delete_range().key(), request.delete_range().range_end());
    case etcdserverpb::ApiRequest::kTxn: {
      const etcdserverpb::TxnRequest& txn = request.txn();
      if (txn.compare_size() > 0) return span(txn.compare(0).key(), txn.compare(0).range_end());
      for (const auto* ops : {&txn.success(), &txn.failure()}) {
        for (const etcdserverpb::RequestOp& op : *ops) {
          KeySpan s = request_op_span(op);
          if (s.key) return s;
        }
      }
      return {};
    }
    default:
      return {};
  }
}

// header.revision of whichever response the oneof holds; none for errors and headerless answers.
std::optional<int64_t> response_revision(const etcdserverpb::ApiResponse& response) {
  const google::protobuf::OneofDescriptor* oneof =
      etcdserverpb::ApiResponse::descriptor()->FindOneofByName("response");
  DST_ASSERT(oneof != nullptr);
  const google::protobuf::Reflection* reflection = response.GetReflection();
  const FieldDescriptor* field = reflection->GetOneofFieldDescriptor(response, oneof);
  if (field == nullptr || field->type() != FieldDescriptor::TYPE_MESSAGE) return std::nullopt;
  const Message& inner = reflection->GetMessage(response, field);
  const FieldDescriptor* header = inner.GetDescriptor()->FindFieldByName("header");
  if (header == nullptr || header->message_type() != etcdserverpb::ResponseHeader::descriptor()) {
    return std::nullopt;
  }
  if (!inner.GetReflection()->HasField(inner, header)) return std::nullopt;
  const auto& h = static_cast<const etcdserverpb::ResponseHeader&>(
      inner.GetReflection()->GetMessage(inner, header));
  return h.revision();
}

// etcd's IsProgressNotify: no events, not a created/canceled/compacted notice, a revision.
bool is_progress(const etcdserverpb::WatchResponse& r) {
  return r.events_size() == 0 && !r.created() && !r.canceled() && r.compact_revision() == 0 &&
         r.header().revision() != 0;
}

std::string format_trace_hash(uint64_t hash) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, hash);
  return buf;
}

std::string op_name(uint64_t id) { return "operation " + std::to_string(id); }
std::string watch_name(uint64_t id) { return "watch " + std::to_string(id); }

}  // namespace

struct RunDbWriter::Statements {
  Stmt insert_run, finish_run, insert_op, return_op, insert_watch, insert_segment, break_segment,
      insert_response, insert_fault, end_fault, insert_schedule_step, insert_restore, insert_check, insert_metric, insert_coverage;
  Stmt insert_informer, insert_informer_list, insert_list_object, insert_informer_watch,
      insert_watch_event, end_informer_watch, insert_processed, finish_informer,
      insert_final_object;

  Status prepare(sqlite3* db, std::string_view path) {
    const Entry entries[] = {
        {&insert_run,
         "INSERT INTO run (id, seed, scenario, options, dst_version, started_unix_ms) "
         "VALUES (1, ?1, ?2, ?3, ?4, ?5)"},
        {&finish_run,
         "UPDATE run SET finished_unix_ms = ?1, trace_hash = ?2, verdict = ?3, exit_code = ?4, "
         "checker_summary = ?5 WHERE id = 1"},
        {&insert_op,
         "INSERT INTO operations (id, client, member, kind, key, range_end, request, invoke_ns, "
         "return_ns, outcome, response, response_revision, error_code, error) "
         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"},
        {&return_op,
         "UPDATE operations SET return_ns = ?2, outcome = ?3, response = ?4, "
         "response_revision = ?5, error_code = ?6, error = ?7 "
         "WHERE id = ?1 AND return_ns IS NULL AND outcome = 'unknown'"},
        {&insert_watch, "INSERT INTO watches (id, client) VALUES (?1, ?2)"},
        {&insert_segment,
         "INSERT INTO watch_segments (watch_id, segment, member, created_ns, key, range_end, "
         "start_revision, request, broken) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0)"},
        {&break_segment,
         "UPDATE watch_segments SET broken = 1 WHERE watch_id = ?1 AND segment = ?2"},
        {&insert_response,
         "INSERT INTO watch_responses (watch_id, segment, seq, at_ns, response, revision, events, "
         "first_event_revision, last_event_revision, created, canceled, compact_revision, "
         "is_progress) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"},
        {&insert_fault,
         "INSERT INTO faults (kind, target, start_ns, end_ns) VALUES (?1, ?2, ?3, ?4)"},
        {&end_fault, "UPDATE faults SET end_ns = ?2 WHERE id = ?1 AND end_ns IS NULL"},
        {&insert_check,
         "INSERT INTO checks (name, status, required, checked, violations, first_rule, first_message, "
         "first_at_ns, summary, wall_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"},
        {&insert_schedule_step,
         "INSERT INTO schedule (at_ns, origin, call, kind, step) VALUES (?1, ?2, ?3, ?4, ?5)"},
        {&insert_restore,
         "INSERT INTO restores (disaster_ns, restore_ns, revision, bump, snapshot) VALUES (?1, ?2, ?3, ?4, ?5)"},
        {&insert_metric,
         "INSERT INTO metrics (at_ns, member, name, value) VALUES (?1, ?2, ?3, ?4)"},
        {&insert_coverage, "INSERT INTO coverage (name, hits) VALUES (?1, ?2)"},
    };
    return prepare_all(db, path, entries) ? prepare_informers(db, path) : first_error_;
  }

  // The informer tables' statements (kube_history.h).
  Status prepare_informers(sqlite3* db, std::string_view path) {
    const Entry entries[] = {
        {&insert_informer, "INSERT INTO informers (id, client, prefix) VALUES (?1, ?2, ?3)"},
        {&insert_informer_list,
         "INSERT INTO informer_lists (informer_id, list, step, apiserver, invoke_ns, return_ns, "
         "requested_rv, ok, error, resource_version) "
         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"},
        {&insert_list_object,
         "INSERT INTO informer_list_objects (informer_id, list, seq, key, value, "
         "resource_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"},
        {&insert_informer_watch,
         "INSERT INTO informer_watches (informer_id, watch, step, apiserver, created_ns, from_rv) "
         "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"},
        {&insert_watch_event,
         "INSERT INTO informer_watch_events (informer_id, watch, seq, type, at_ns, cached_ns, key, "
         "value, resource_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"},
        {&end_informer_watch,
         "UPDATE informer_watches SET end_reason = ?3, ended_ns = ?4 "
         "WHERE informer_id = ?1 AND watch = ?2 AND end_reason IS NULL"},
        {&insert_processed,
         "INSERT INTO informer_processed (informer_id, seq, at_ns, key, informer_rv, present, "
         "object_rv) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"},
        {&finish_informer,
         "UPDATE informers SET finished = 1, final_ns = ?2, final_rv = ?3 "
         "WHERE id = ?1 AND finished = 0"},
        {&insert_final_object,
         "INSERT INTO informer_final_objects (informer_id, seq, key, value, resource_version) "
         "VALUES (?1, ?2, ?3, ?4, ?5)"},
    };
    return prepare_all(db, path, entries) ? Status::ok() : first_error_;
  }

 private:
  struct Entry {
    Stmt* stmt;
    const char* sql;
  };
  template <size_t N>
  bool prepare_all(sqlite3* db, std::string_view path, const Entry (&entries)[N]) {
    for (const Entry& e : entries) {
      if (Status s = e.stmt->prepare(db, path, e.sql); !s.is_ok()) {
        first_error_ = s;
        return false;
      }
    }
    return true;
  }
  Status first_error_;
};

RunDbWriter::RunDbWriter(std::string path, DbHandle db, size_t batch_rows)
    : path_(std::move(path)), db_(std::move(db)), batch_rows_(batch_rows) {}

RunDbWriter::~RunDbWriter() {
  if (closed_) return;
  Status status = close();
  if (!status.is_ok()) {
    std::fprintf(stderr, "run database not closed cleanly: %s\n", status.to_string().c_str());
  }
}

namespace {

// Removes an existing run database (and its -wal/-shm files) so that it can be replaced; anything
// that is not a dst run database is left alone and reported.
Status remove_existing_run_db(const std::string& path) {
  {
    Result<DbHandle> db = run_db_internal::open_db(path, SQLITE_OPEN_READONLY);
    if (!db.is_ok()) return db.status();
    Result<bool> ours = run_db_internal::is_run_db(db->get(), path);
    if (!ours.is_ok()) {
      return Status(ours.status().code(), "refusing to replace it: " + ours.status().message());
    }
    if (!*ours) {
      return Status(StatusCode::kAlreadyExists,
                    path + ": refusing to replace it: it is not a dst run database");
    }
  }
  for (const std::string& file : {path + "-wal", path + "-shm", path}) {
    if (::unlink(file.c_str()) != 0 && errno != ENOENT) {
      return Status(StatusCode::kIoError,
                    file + ": cannot remove the old run database: " + std::strerror(errno));
    }
  }
  return Status::ok();
}

}  // namespace

Result<std::unique_ptr<RunDbWriter>> RunDbWriter::create(const std::string& path,
                                                         const RunDbOptions& options) {
  if (options.batch_rows == 0 || options.batch_rows > kRunDbBatchRowsMax) {
    return Status(StatusCode::kInvalidArgument,
                  path + ": batch_rows " + std::to_string(options.batch_rows) + " outside 1.." +
                      std::to_string(kRunDbBatchRowsMax));
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!options.replace_existing) {
      return Status(StatusCode::kAlreadyExists,
                    path + ": already exists; a run database is never overwritten unless asked");
    }
    if (Status s = remove_existing_run_db(path); !s.is_ok()) return s;
  }
  Result<DbHandle> db =
      run_db_internal::open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                         SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_NOMUTEX);
  if (!db.is_ok()) return db.status();
  sqlite3* raw = db->get();
  // WAL: a commit is an append to the -wal file, readable by other connections at once and
  // surviving the process being killed (synchronous=NORMAL skips only the fsyncs that matter for
  // power loss, which a harness run does not need to survive).
  if (Status s = run_db_internal::exec(raw, path, "PRAGMA journal_mode = WAL;"); !s.is_ok())
    return s;
  if (Status s = run_db_internal::exec(raw, path, "PRAGMA synchronous = NORMAL;"); !s.is_ok())
    return s;
  if (Status s = run_db_internal::exec(raw, path, "PRAGMA foreign_keys = ON;"); !s.is_ok())
    return s;
  if (Status s = run_db_internal::exec(
          raw, path, "PRAGMA cache_size = -" + std::to_string(kRunDbCacheKib) + ";");
      !s.is_ok()) {
    return s;
  }
  {
    Stmt mode;
    if (Status s = mode.prepare(raw, path, "PRAGMA journal_mode"); !s.is_ok()) return s;
    if (mode.step() != SQLITE_ROW || mode.column_text(0) != "wal") {
      return Status(StatusCode::kIoError,
                    path + ": the file system does not support SQLite's WAL journal mode");
    }
  }
  if (Status s = run_db_internal::create_schema(raw, path); !s.is_ok()) return s;

  std::unique_ptr<RunDbWriter> writer(new RunDbWriter(path, std::move(*db), options.batch_rows));
  writer->stmts_ = std::make_unique<Statements>();
  if (Status s = writer->stmts_->prepare(raw, path); !s.is_ok()) return s;
  return writer;
}

// --- batching and failure ------------------------------------------------------------------

Status RunDbWriter::fail(Status status) {
  DST_ASSERT(!status.is_ok());
  if (failed_.is_ok()) failed_ = status;
  return status;
}

Status RunDbWriter::check_writable(const char* what) {
  if (!failed_.is_ok()) return failed_;
  if (closed_) return Status(StatusCode::kClosed, path_ + ": " + what + " after close()");
  if (!run_begun_) {
    return Status(StatusCode::kInvalidArgument, path_ + ": " + what + " before begin_run()");
  }
  return Status::ok();
}

Status RunDbWriter::begin_batch_if_needed() {
  if (in_transaction_) return Status::ok();
  if (Status s = run_db_internal::exec(db_.get(), path_, "BEGIN;"); !s.is_ok()) return fail(s);
  in_transaction_ = true;
  return Status::ok();
}

Status RunDbWriter::row_written() {
  row_added();
  return commit_if_batch_full();
}

void RunDbWriter::row_added() {
  DST_ASSERT(in_transaction_);
  ++rows_written_;
  ++pending_rows_;
}

Status RunDbWriter::commit_if_batch_full() {
  if (pending_rows_ >= batch_rows_) return commit();
  return Status::ok();
}

Status RunDbWriter::commit() {
  if (!in_transaction_) return Status::ok();
  Status s = run_db_internal::exec(db_.get(), path_, "COMMIT;");
  if (!s.is_ok()) {
    if (!sqlite3_get_autocommit(db_.get()))
      (void)run_db_internal::exec(db_.get(), path_, "ROLLBACK;");
    in_transaction_ = false;
    return fail(Status(s.code(), s.message() + " (the " + std::to_string(pending_rows_) +
                                     " rows of the uncommitted batch are lost)"));
  }
  in_transaction_ = false;
  pending_rows_ = 0;
  return Status::ok();
}

// A statement failed. A constraint failure undoes only that statement (the caller's mistake,
// reported, the writer goes on); a failure that rolled the whole batch back loses rows: the writer
// is failed from then on, so no later call pretends the data is there.
#define DST_RUN_DB_STATEMENT(expr)                                                             \
  do {                                                                                         \
    Status dst_s_ = (expr);                                                                    \
    if (!dst_s_.is_ok()) {                                                                     \
      if (in_transaction_ && sqlite3_get_autocommit(db_.get())) {                              \
        in_transaction_ = false;                                                               \
        return fail(Status(dst_s_.code(), dst_s_.message() + " (the batch was rolled back: " + \
                                              std::to_string(pending_rows_) + " rows lost)")); \
      }                                                                                        \
      return dst_s_;                                                                           \
    }                                                                                          \
  } while (0)

Status RunDbWriter::flush() {
  if (!failed_.is_ok()) return failed_;
  if (closed_) return Status(StatusCode::kClosed, path_ + ": flush() after close()");
  return commit();
}

Status RunDbWriter::close() {
  if (closed_) return failed_.is_ok() ? Status::ok() : failed_;
  Status status = failed_.is_ok() ? commit() : failed_;
  if (status.is_ok()) {
    // Fold the WAL back into the database file and leave WAL mode, so that a finished run is one
    // self-contained file and its readers create no -wal/-shm files beside it. While a reader
    // still has the file open SQLite refuses the switch (SQLITE_BUSY); the file then stays in WAL
    // mode, which is just as readable, so only an I/O failure is an error. No waiting for readers
    // here: a checkpoint blocked by one reports "busy" in its result row, not as an error.
    sqlite3_busy_timeout(db_.get(), 0);
    status = run_db_internal::exec(db_.get(), path_, "PRAGMA wal_checkpoint(TRUNCATE);");
    if (status.is_ok()) {
      (void)run_db_internal::exec(db_.get(), path_, "PRAGMA journal_mode = DELETE;");
    }
  }
  stmts_.reset();
  const int rc = sqlite3_close(db_.get());
  if (rc == SQLITE_OK) {
    (void)db_.release();
  } else if (status.is_ok()) {
    status = run_db_internal::sqlite_error(path_, "closing", db_.get(), rc);
  }
  db_.reset();
  closed_ = true;
  if (!status.is_ok()) (void)fail(status);
  return status;
}

// --- run ------------------------------------------------------------------------------------

Status RunDbWriter::begin_run(const RunInfo& info) {
  if (!failed_.is_ok()) return failed_;
  if (closed_) return Status(StatusCode::kClosed, path_ + ": begin_run() after close()");
  if (run_begun_) return Status(StatusCode::kInvalidArgument, path_ + ": begin_run() called twice");
  for (const auto& [text, what] :
       {std::pair{&info.scenario, "scenario"}, std::pair{&info.dst_version, "dst_version"}}) {
    if (Status s = check_length(*text, kRunDbNameBytesMax, [&, field = what] { return path_ + ": run " + field; });
        !s.is_ok()) {
      return s;
    }
  }
  if (Status s =
          check_length(info.options, kRunDbTextBytesMax, [&] { return path_ + ": run options"; });
      !s.is_ok()) {
    return s;
  }
  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_run;
  st.bind_text(1, std::to_string(info.seed));
  st.bind_text(2, info.scenario);
  st.bind_text(3, info.options);
  st.bind_text(4, info.dst_version);
  st.bind_int64(5, info.started_unix_ms);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [] { return "inserting the run row"; }));
  run_begun_ = true;
  if (Status s = row_written(); !s.is_ok()) return s;
  return commit();  // a killed run still says what it was
}

Status RunDbWriter::finish_run(const RunResult& result) {
  if (Status s = check_writable("finish_run()"); !s.is_ok()) return s;
  if (run_finished_)
    return Status(StatusCode::kInvalidArgument, path_ + ": finish_run() called twice");
  if (Status s =
          check_length(result.verdict, kRunDbNameBytesMax, [&] { return path_ + ": run verdict"; });
      !s.is_ok()) {
    return s;
  }
  if (Status s = check_length(result.checker_summary, kRunDbTextBytesMax,
                              [&] { return path_ + ": run checker_summary"; });
      !s.is_ok()) {
    return s;
  }
  if (result.checks.size() > kRunDbChecksMax)
    return Status(StatusCode::kInvalidArgument, path_ + ": " + std::to_string(result.checks.size()) +
                                                    " checks; a run has at most " + std::to_string(kRunDbChecksMax));
  if (result.coverage.size() > kRunDbCoverageMax)
    return Status(StatusCode::kInvalidArgument, path_ + ": " + std::to_string(result.coverage.size()) +
                                                    " coverage names; a run has at most " + std::to_string(kRunDbCoverageMax));
  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  for (const CheckRow& check : result.checks)
    if (Status s = insert_check(check); !s.is_ok()) return s;
  for (const auto& [name, hits] : result.coverage)
    if (Status s = insert_coverage(name, hits); !s.is_ok()) return s;
  Stmt& st = stmts_->finish_run;
  st.bind_int64(1, result.finished_unix_ms);
  st.bind_text(2, format_trace_hash(result.trace_hash));
  st.bind_text(3, result.verdict);
  st.bind_int64(4, result.exit_code);
  st.bind_text(5, result.checker_summary);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [] { return "updating the run row"; }));
  run_finished_ = true;
  if (Status s = row_written(); !s.is_ok()) return s;
  return commit();
}

Status RunDbWriter::insert_coverage(const std::string& name, uint64_t hits) {
  if (Status s = check_length(name, kCoverageNameBytesMax, [&] { return path_ + ": coverage name"; }); !s.is_ok()) return s;
  if (hits == 0) return Status(StatusCode::kInvalidArgument, path_ + ": coverage " + name + " with 0 hits");
  Stmt& st = stmts_->insert_coverage;
  st.bind_text(1, name);
  st.bind_int64(2, static_cast<int64_t>(std::min<uint64_t>(hits, INT64_MAX)));
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [&] { return "inserting the coverage of " + name; }));
  row_added();  // in finish_run's own batch, like the checks
  return Status::ok();
}

Status RunDbWriter::insert_check(const CheckRow& c) {
  for (const std::string* text : {&c.name, &c.first_rule})
    if (Status s = check_length(*text, kRunDbNameBytesMax, [&] { return path_ + ": check name or rule"; }); !s.is_ok())
      return s;
  for (const std::string* text : {&c.first_message, &c.summary})
    if (Status s = check_length(*text, kRunDbTextBytesMax, [&] { return path_ + ": check " + c.name; }); !s.is_ok())
      return s;
  Stmt& st = stmts_->insert_check;
  st.bind_text(1, c.name);
  st.bind_text(2, check_status_name(c.status));
  st.bind_int64(3, c.required ? 1 : 0);
  st.bind_int64(4, static_cast<int64_t>(std::min<uint64_t>(c.checked, INT64_MAX)));
  st.bind_int64(5, static_cast<int64_t>(std::min<uint64_t>(c.violations, INT64_MAX)));
  st.bind_text(6, c.first_rule);
  st.bind_text(7, c.first_message);
  if (c.first_at_ns == kNeverReturned) st.bind_null(8);
  else st.bind_int64(8, c.first_at_ns);
  st.bind_text(9, c.summary);
  st.bind_int64(10, c.wall_us);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [&] { return "inserting the check " + c.name; }));
  row_added();  // in finish_run's own batch: it commits once, with the run row
  return Status::ok();
}

// --- operations -----------------------------------------------------------------------------

namespace {

// Columns describing a response: its blob (NULL when empty), revision, error code and text.
struct ResponseColumns {
  std::optional<std::string> blob;
  std::optional<int64_t> revision;
  std::optional<int64_t> error_code;
  std::optional<std::string> error;
};

template <typename Describe>
Result<ResponseColumns> response_columns(const etcdserverpb::ApiResponse& response,
                                         const Describe& what) {
  Result<std::string> blob = serialize(response, [&] { return what() + " response"; });
  if (!blob.is_ok()) return blob.status();
  ResponseColumns c;
  if (!blob->empty()) c.blob = std::move(*blob);
  c.revision = response_revision(response);
  if (response.has_error()) {
    c.error_code = response.error().code();
    c.error = response.error().message();
    if (Status s = check_length(*c.error, kRunDbTextBytesMax, [&] { return what() + " error"; });
        !s.is_ok())
      return s;
  }
  return c;
}

void bind_response(Stmt& st, int first, const ResponseColumns& c) {
  if (c.blob) {
    st.bind_blob(first, *c.blob);
  } else {
    st.bind_null(first);
  }
  st.bind_optional_int64(first + 1, c.revision);
  st.bind_optional_int64(first + 2, c.error_code);
  st.bind_optional_text(first + 3, c.error);
}

}  // namespace

Status RunDbWriter::add_operation(const Operation& op) { return insert_operation(op, false); }

Status RunDbWriter::operation_invoked(const Operation& op) { return insert_operation(op, true); }

Status RunDbWriter::insert_operation(const Operation& op, bool invoked_only) {
  if (Status s = check_writable(invoked_only ? "operation_invoked()" : "add_operation()");
      !s.is_ok()) {
    return s;
  }
  const auto what = [&] { return path_ + ": " + op_name(op.id); };
  if (op.id > static_cast<uint64_t>(kInt64Max)) {
    return Status(StatusCode::kInvalidArgument, what() + ": id above 2^63-1");
  }
  if (op.request.request_case() == etcdserverpb::ApiRequest::REQUEST_NOT_SET) {
    return Status(StatusCode::kInvalidArgument, what() + " has no request");
  }
  // Invoked only: whatever else `op` holds, it is stored as not returned yet, outcome unknown.
  const bool returned = !invoked_only && op.return_ns != kNeverReturned;
  const Outcome outcome = invoked_only ? Outcome::kUnknown : op.outcome;
  if (!returned && outcome != Outcome::kUnknown) {
    return Status(StatusCode::kInvalidArgument,
                  what() + " never returned but its outcome is " + outcome_name(outcome));
  }
  if (returned && op.return_ns < op.invoke_ns) {
    return Status(StatusCode::kInvalidArgument,
                  what() + " returned at " + std::to_string(op.return_ns) +
                      " ns, before its invocation at " + std::to_string(op.invoke_ns) + " ns");
  }
  Result<std::string> request = serialize(op.request, [&] { return what() + " request"; });
  if (!request.is_ok()) return request.status();
  Result<ResponseColumns> response = invoked_only ? Result<ResponseColumns>(ResponseColumns{})
                                                  : response_columns(op.response, what);
  if (!response.is_ok()) return response.status();
  const KeySpan key = request_span(op.request);

  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_op;
  st.bind_int64(1, static_cast<int64_t>(op.id));
  st.bind_int64(2, op.client);
  st.bind_int64(3, op.member);
  st.bind_text(4, request_kind(op.request));
  st.bind_optional_text(5, key.key);
  st.bind_optional_text(6, key.range_end);
  st.bind_blob(7, *request);
  st.bind_int64(8, op.invoke_ns);
  st.bind_optional_int64(9, returned ? std::optional<int64_t>(op.return_ns) : std::nullopt);
  st.bind_text(10, outcome_name(outcome));
  bind_response(st, 11, *response);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [&] { return "inserting " + op_name(op.id); }));
  return row_written();
}

Status RunDbWriter::operation_returned(uint64_t id, int64_t return_ns, Outcome outcome,
                                       const etcdserverpb::ApiResponse& response) {
  if (Status s = check_writable("operation_returned()"); !s.is_ok()) return s;
  const auto what = [&] { return path_ + ": " + op_name(id); };
  if (id > static_cast<uint64_t>(kInt64Max)) {
    return Status(StatusCode::kInvalidArgument, what() + ": id above 2^63-1");
  }
  if (return_ns == kNeverReturned) {
    return Status(StatusCode::kInvalidArgument, what() + ": returned at kNeverReturned");
  }
  Result<ResponseColumns> columns = response_columns(response, what);
  if (!columns.is_ok()) return columns.status();

  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->return_op;
  st.bind_int64(1, static_cast<int64_t>(id));
  st.bind_int64(2, return_ns);
  st.bind_text(3, outcome_name(outcome));
  bind_response(st, 4, *columns);
  const int rc = st.step();
  st.reset();
  if (rc == SQLITE_CONSTRAINT_CHECK) {
    return Status(
        StatusCode::kInvalidArgument,
        what() + " returned at " + std::to_string(return_ns) + " ns, before its invocation");
  }
  DST_RUN_DB_STATEMENT(rc == SQLITE_DONE ? Status::ok()
                                         : run_db_internal::sqlite_error(
                                               path_, "updating " + op_name(id), db_.get(), rc));
  if (sqlite3_changes(db_.get()) != 1) {
    return Status(StatusCode::kInvalidArgument, what() +
                                                    " returned but was never invoked or has "
                                                    "already returned");
  }
  return row_written();
}

// --- watches --------------------------------------------------------------------------------

Status RunDbWriter::watch_created(uint64_t watch_id, uint32_t client) {
  if (Status s = check_writable("watch_created()"); !s.is_ok()) return s;
  const auto what = [&] { return path_ + ": " + watch_name(watch_id); };
  if (watch_id > static_cast<uint64_t>(kInt64Max)) {
    return Status(StatusCode::kInvalidArgument, what() + ": id above 2^63-1");
  }
  if (watches_.count(watch_id) != 0)
    return Status(StatusCode::kAlreadyExists, what() + " created twice");
  if (watches_.size() >= kRunDbWatchesMax) {
    return Status(
        StatusCode::kResourceExhausted,
        what() + ": more than " + std::to_string(kRunDbWatchesMax) + " watches in one run");
  }
  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_watch;
  st.bind_int64(1, static_cast<int64_t>(watch_id));
  st.bind_int64(2, client);
  DST_RUN_DB_STATEMENT(
      st.run(db_.get(), path_, [&] { return "inserting " + watch_name(watch_id); }));
  watches_[watch_id] = WatchState{client, 0, 0, false};
  return row_written();
}

Status RunDbWriter::watch_segment_started(uint64_t watch_id, uint32_t member, int64_t created_ns,
                                          const etcdserverpb::WatchCreateRequest& request) {
  if (Status s = check_writable("watch_segment_started()"); !s.is_ok()) return s;
  const auto what = [&] { return path_ + ": " + watch_name(watch_id); };
  auto it = watches_.find(watch_id);
  if (it == watches_.end()) return Status(StatusCode::kNotFound, what() + " was never created");
  WatchState& w = it->second;
  if (static_cast<size_t>(w.segments) >= kRunDbWatchSegmentsPerWatchMax) {
    return Status(
        StatusCode::kResourceExhausted,
        what() + ": more than " + std::to_string(kRunDbWatchSegmentsPerWatchMax) + " segments");
  }
  Result<std::string> blob = serialize(request, [&] { return what() + " create request"; });
  if (!blob.is_ok()) return blob.status();
  const KeySpan key = span(request.key(), request.range_end());

  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_segment;
  st.bind_int64(1, static_cast<int64_t>(watch_id));
  st.bind_int64(2, w.segments);
  st.bind_int64(3, member);
  st.bind_int64(4, created_ns);
  st.bind_optional_text(5, key.key);
  st.bind_optional_text(6, key.range_end);
  st.bind_int64(7, request.start_revision());
  st.bind_blob(8, *blob);
  DST_RUN_DB_STATEMENT(
      st.run(db_.get(), path_, [&] { return "inserting a segment of " + watch_name(watch_id); }));
  ++w.segments;
  w.responses_in_last = 0;
  w.last_broken = false;
  return row_written();
}

Status RunDbWriter::watch_response(uint64_t watch_id, int64_t at_ns,
                                   const etcdserverpb::WatchResponse& response) {
  if (Status s = check_writable("watch_response()"); !s.is_ok()) return s;
  const auto what = [&] { return path_ + ": " + watch_name(watch_id); };
  auto it = watches_.find(watch_id);
  if (it == watches_.end()) return Status(StatusCode::kNotFound, what() + " was never created");
  WatchState& w = it->second;
  if (w.segments == 0)
    return Status(StatusCode::kInvalidArgument, what() + ": a response before any segment");
  if (w.last_broken) {
    return Status(StatusCode::kInvalidArgument, what() + ": a response after its stream broke");
  }
  Result<std::string> blob = serialize(response, [&] { return what() + " response"; });
  if (!blob.is_ok()) return blob.status();

  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_response;
  st.bind_int64(1, static_cast<int64_t>(watch_id));
  st.bind_int64(2, w.segments - 1);
  st.bind_int64(3, w.responses_in_last);
  st.bind_int64(4, at_ns);
  st.bind_blob(5, *blob);
  st.bind_int64(6, response.header().revision());
  st.bind_int64(7, response.events_size());
  if (response.events_size() > 0) {
    st.bind_int64(8, response.events(0).kv().mod_revision());
    st.bind_int64(9, response.events(response.events_size() - 1).kv().mod_revision());
  } else {
    st.bind_null(8);
    st.bind_null(9);
  }
  st.bind_int64(10, response.created() ? 1 : 0);
  st.bind_int64(11, response.canceled() ? 1 : 0);
  st.bind_int64(12, response.compact_revision());
  st.bind_int64(13, is_progress(response) ? 1 : 0);
  DST_RUN_DB_STATEMENT(
      st.run(db_.get(), path_, [&] { return "inserting a response of " + watch_name(watch_id); }));
  ++w.responses_in_last;
  return row_written();
}

Status RunDbWriter::watch_segment_broken(uint64_t watch_id) {
  if (Status s = check_writable("watch_segment_broken()"); !s.is_ok()) return s;
  const auto what = [&] { return path_ + ": " + watch_name(watch_id); };
  auto it = watches_.find(watch_id);
  if (it == watches_.end()) return Status(StatusCode::kNotFound, what() + " was never created");
  WatchState& w = it->second;
  if (w.segments == 0)
    return Status(StatusCode::kInvalidArgument, what() + ": broken before any segment");
  if (w.last_broken) return Status(StatusCode::kInvalidArgument, what() + ": broken twice");

  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->break_segment;
  st.bind_int64(1, static_cast<int64_t>(watch_id));
  st.bind_int64(2, w.segments - 1);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [&] {
    return "marking a segment of " + watch_name(watch_id) + " broken";
  }));
  w.last_broken = true;
  return row_written();
}

Status RunDbWriter::add_watch(const Watch& watch) {
  if (Status s = watch_created(watch.id, watch.client); !s.is_ok()) return s;
  for (const WatchSegment& segment : watch.segments) {
    if (Status s =
            watch_segment_started(watch.id, segment.member, segment.created_ns, segment.request);
        !s.is_ok()) {
      return s;
    }
    for (const WatchResponse& r : segment.responses) {
      if (Status s = watch_response(watch.id, r.at_ns, r.response); !s.is_ok()) return s;
    }
    if (segment.broken) {
      if (Status s = watch_segment_broken(watch.id); !s.is_ok()) return s;
    }
  }
  return Status::ok();
}

// --- faults and metrics ---------------------------------------------------------------------

Result<int64_t> RunDbWriter::fault_started(std::string_view kind, std::string_view target,
                                           int64_t start_ns) {
  if (Status s = check_writable("fault_started()"); !s.is_ok()) return s;
  if (Status s = check_length(kind, kRunDbNameBytesMax, [&] { return path_ + ": fault kind"; });
      !s.is_ok())
    return s;
  if (Status s = check_length(target, kRunDbNameBytesMax, [&] { return path_ + ": fault target"; });
      !s.is_ok())
    return s;
  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_fault;
  st.bind_text(1, kind);
  st.bind_text(2, target);
  st.bind_int64(3, start_ns);
  st.bind_null(4);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [] { return "inserting a fault"; }));
  const int64_t id = sqlite3_last_insert_rowid(db_.get());
  if (Status s = row_written(); !s.is_ok()) return s;
  return id;
}

Status RunDbWriter::fault_ended(int64_t fault_id, int64_t end_ns) {
  if (Status s = check_writable("fault_ended()"); !s.is_ok()) return s;
  const auto what = [&] { return path_ + ": fault " + std::to_string(fault_id); };
  if (end_ns == kNeverReturned)
    return Status(StatusCode::kInvalidArgument, what() + ": ended at kNeverReturned");
  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->end_fault;
  st.bind_int64(1, fault_id);
  st.bind_int64(2, end_ns);
  const int rc = st.step();
  st.reset();
  if (rc == SQLITE_CONSTRAINT_CHECK) {
    return Status(StatusCode::kInvalidArgument,
                  what() + ": ended at " + std::to_string(end_ns) + " ns, before it started");
  }
  DST_RUN_DB_STATEMENT(rc == SQLITE_DONE
                           ? Status::ok()
                           : run_db_internal::sqlite_error(path_, "ending a fault", db_.get(), rc));
  if (sqlite3_changes(db_.get()) != 1) {
    return Status(StatusCode::kInvalidArgument,
                  what() + " ended but was never started or already ended");
  }
  return row_written();
}

Status RunDbWriter::add_fault(const Fault& fault) {
  Result<int64_t> id = fault_started(fault.kind, fault.target, fault.start_ns);
  if (!id.is_ok()) return id.status();
  if (fault.end_ns == kNeverReturned) return Status::ok();
  return fault_ended(*id, fault.end_ns);
}

Status RunDbWriter::schedule_step(const ScheduleStep& step) {
  if (Status s = check_writable("schedule_step()"); !s.is_ok()) return s;
  if (Status s = check_length(step.origin, kRunDbNameBytesMax, [&] { return path_ + ": schedule origin"; }); !s.is_ok())
    return s;
  if (Status s = check_length(step.kind, kRunDbNameBytesMax, [&] { return path_ + ": schedule kind"; }); !s.is_ok())
    return s;
  if (Status s = check_length(step.lua, kRunDbTextBytesMax, [&] { return path_ + ": schedule step"; }); !s.is_ok())
    return s;
  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_schedule_step;
  st.bind_int64(1, step.at_ns);
  st.bind_text(2, step.origin);
  st.bind_int64(3, static_cast<int64_t>(step.call));
  st.bind_text(4, step.kind);
  st.bind_text(5, step.lua);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [] { return "inserting a schedule step"; }));
  return row_written();
}

Status RunDbWriter::restored(const Restore& restore) {
  if (Status s = check_writable("restored()"); !s.is_ok()) return s;
  if (Status s = check_length(restore.snapshot, kRunDbNameBytesMax, [&] { return path_ + ": restore snapshot"; });
      !s.is_ok())
    return s;
  if (restore.restore_ns < restore.disaster_ns || restore.revision < 1 || restore.bump < 0 ||
      restore.revision > kRestoreRevisionMax || restore.bump > kRestoreRevisionMax)
    return Status(StatusCode::kInvalidArgument, path_ + ": restore with restore_ns before disaster_ns, revision < 1 "
                                                        "or a negative bump, or either too large");
  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_restore;
  st.bind_int64(1, restore.disaster_ns);
  st.bind_int64(2, restore.restore_ns);
  st.bind_int64(3, restore.revision);
  st.bind_int64(4, restore.bump);
  st.bind_text(5, restore.snapshot);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [] { return "inserting a restore"; }));
  return row_written();
}

Status RunDbWriter::metric(int64_t at_ns, uint32_t member, std::string_view name, int64_t value) {
  if (Status s = check_writable("metric()"); !s.is_ok()) return s;
  if (Status s = check_length(name, kRunDbNameBytesMax, [&] { return path_ + ": metric name"; });
      !s.is_ok())
    return s;
  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_metric;
  st.bind_int64(1, at_ns);
  st.bind_int64(2, member);
  st.bind_text(3, name);
  st.bind_int64(4, value);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [] { return "inserting a metric"; }));
  return row_written();
}

// --- informers ------------------------------------------------------------------------------

namespace {

std::string informer_name(uint64_t id) { return "informer " + std::to_string(id); }

// Counts of one informer's lists, watches, events of a watch, processed keys: each is a subset of
// an informer table, which the reader loads up to kRunDbInformerRowsMax rows of.
template <typename Describe>
Status check_room(int64_t count, const char* items, const Describe& what) {
  if (static_cast<size_t>(count) < kRunDbInformerRowsMax) return Status::ok();
  return Status(StatusCode::kResourceExhausted,
                what() + ": more than " + std::to_string(kRunDbInformerRowsMax) + " " + items);
}

// step is a uint64 stored in a signed column.
template <typename Describe>
Status check_step(uint64_t step, const Describe& what) {
  if (step <= static_cast<uint64_t>(kInt64Max)) return Status::ok();
  return Status(StatusCode::kInvalidArgument, what() + ": step above 2^63-1");
}

template <typename Describe>
Status check_object(const KubeObject& object, const Describe& what) {
  if (Status s = check_length(object.key, kRunDbKeyBytesMax, [&] { return what() + " key"; });
      !s.is_ok()) {
    return s;
  }
  return check_length(object.value, kRunDbBlobBytesMax, [&] { return what() + " value"; });
}

// Every object of a list or a final store, checked before any row is written: the call's rows
// then either all land in the batch or the writer fails.
template <typename Describe>
Status check_objects(const std::vector<KubeObject>& objects, const Describe& what) {
  if (objects.size() > kRunDbInformerRowsMax) {
    return Status(StatusCode::kResourceExhausted,
                  what() + ": " + std::to_string(objects.size()) + " objects, above the limit of " +
                      std::to_string(kRunDbInformerRowsMax));
  }
  for (size_t i = 0; i < objects.size(); ++i) {
    const auto object_what = [&] { return what() + " object " + std::to_string(i); };
    if (Status s = check_object(objects[i], object_what); !s.is_ok()) {
      return s;
    }
  }
  return Status::ok();
}

// Binds an object's key, value and resource_version to parameters first, first + 1, first + 2.
void bind_object(Stmt& st, int first, const KubeObject& object) {
  st.bind_text(first, object.key);
  st.bind_blob(first + 1, object.value);
  st.bind_int64(first + 2, object.resource_version);
}

}  // namespace

std::string RunDbWriter::informer_item(uint64_t informer_id, const char* kind, int64_t n) const {
  return path_ + ": " + informer_name(informer_id) + " " + kind + " " + std::to_string(n);
}

Result<RunDbWriter::InformerState*> RunDbWriter::writable_informer(uint64_t informer_id, const char* call,
                                                                   const char* what) {
  if (Status s = check_writable(call); !s.is_ok()) return s;
  auto it = informers_.find(informer_id);
  if (it == informers_.end()) {
    return Status(StatusCode::kNotFound, path_ + ": " + informer_name(informer_id) + ": " + what +
                                             " but the informer was never started");
  }
  return &it->second;
}

Status RunDbWriter::informer_started(uint64_t informer_id, uint32_t client,
                                     std::string_view prefix) {
  if (Status s = check_writable("informer_started()"); !s.is_ok()) return s;
  const auto what = [&] { return path_ + ": " + informer_name(informer_id); };
  if (informer_id > static_cast<uint64_t>(kInt64Max)) {
    return Status(StatusCode::kInvalidArgument, what() + ": id above 2^63-1");
  }
  if (informers_.count(informer_id) != 0) {
    return Status(StatusCode::kAlreadyExists, what() + " started twice");
  }
  if (informers_.size() >= kRunDbInformersMax) {
    return Status(StatusCode::kResourceExhausted, what() + ": more than " +
                                                      std::to_string(kRunDbInformersMax) +
                                                      " informers in one run");
  }
  if (Status s = check_length(prefix, kRunDbKeyBytesMax, [&] { return what() + " prefix"; });
      !s.is_ok()) {
    return s;
  }
  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_informer;
  st.bind_int64(1, static_cast<int64_t>(informer_id));
  st.bind_int64(2, client);
  st.bind_text(3, prefix);
  DST_RUN_DB_STATEMENT(
      st.run(db_.get(), path_, [&] { return "inserting " + informer_name(informer_id); }));
  informers_[informer_id] = InformerState{};
  return row_written();
}

Status RunDbWriter::informer_list(uint64_t informer_id, const KubeList& list) {
  Result<InformerState*> state = writable_informer(informer_id, "informer_list()", "a list");
  if (!state.is_ok()) return state.status();
  InformerState& informer = **state;
  const auto what = [&] { return informer_item(informer_id, "list", informer.lists); };
  if (Status s = check_room(informer.lists, "lists", what); !s.is_ok()) return s;
  if (Status s = check_step(list.step, what); !s.is_ok()) return s;
  if (list.return_ns < list.invoke_ns) {
    return Status(StatusCode::kInvalidArgument,
                  what() + " returned at " + std::to_string(list.return_ns) +
                      " ns, before it was sent at " + std::to_string(list.invoke_ns) + " ns");
  }
  if (Status s = check_length(list.error, kRunDbTextBytesMax, [&] { return what() + " error"; });
      !s.is_ok()) {
    return s;
  }
  if (Status s = check_objects(list.objects, what); !s.is_ok()) return s;

  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_informer_list;
  st.bind_int64(1, static_cast<int64_t>(informer_id));
  st.bind_int64(2, informer.lists);
  st.bind_int64(3, static_cast<int64_t>(list.step));
  st.bind_int64(4, list.apiserver);
  st.bind_int64(5, list.invoke_ns);
  st.bind_int64(6, list.return_ns);
  st.bind_int64(7, list.requested_rv);
  st.bind_int64(8, list.ok ? 1 : 0);
  // NULL for no error: an empty error and NULL are the same thing, so it reads back exactly.
  st.bind_optional_text(9, list.error.empty() ? std::nullopt : std::optional(list.error));
  st.bind_int64(10, list.resource_version);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [&] { return "inserting " + what(); }));
  row_added();
  Stmt& object_st = stmts_->insert_list_object;
  for (size_t i = 0; i < list.objects.size(); ++i) {
    object_st.bind_int64(1, static_cast<int64_t>(informer_id));
    object_st.bind_int64(2, informer.lists);
    object_st.bind_int64(3, static_cast<int64_t>(i));
    bind_object(object_st, 4, list.objects[i]);
    if (Status s =
            object_st.run(db_.get(), path_, [&] { return "inserting objects of " + what(); });
        !s.is_ok()) {
      // The list's row is in the batch without all its objects: nothing may commit it now.
      return fail(Status(s.code(), s.message() + " (the list is half written; the writer stops)"));
    }
    row_added();
  }
  ++informer.lists;
  return commit_if_batch_full();
}

Status RunDbWriter::informer_watch_started(uint64_t informer_id, const KubeWatch& watch) {
  Result<InformerState*> state = writable_informer(informer_id, "informer_watch_started()", "a watch started");
  if (!state.is_ok()) return state.status();
  InformerState& informer = **state;
  const auto what = [&] { return informer_item(informer_id, "watch", informer.watches); };
  if (Status s = check_room(informer.watches, "watches", what); !s.is_ok()) return s;
  if (Status s = check_step(watch.step, what); !s.is_ok()) return s;
  if (watch.end.empty() && watch.ended_ns != 0) {
    return Status(StatusCode::kInvalidArgument,
                  what() + ": ended_ns " + std::to_string(watch.ended_ns) + " without an end");
  }
  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_informer_watch;
  st.bind_int64(1, static_cast<int64_t>(informer_id));
  st.bind_int64(2, informer.watches);
  st.bind_int64(3, static_cast<int64_t>(watch.step));
  st.bind_int64(4, watch.apiserver);
  st.bind_int64(5, watch.created_ns);
  st.bind_int64(6, watch.from_rv);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [&] { return "inserting " + what(); }));
  ++informer.watches;
  informer.events_in_last = 0;
  informer.last_ended = false;
  if (Status s = row_written(); !s.is_ok()) return s;
  // What the watch already holds (add_informer; the recorder starts watches empty).
  for (const KubeWatchEvent& event : watch.events) {
    if (Status s = informer_watch_event(informer_id, event); !s.is_ok()) return s;
  }
  if (watch.end.empty()) return Status::ok();
  return informer_watch_ended(informer_id, watch.end, watch.ended_ns);
}

Status RunDbWriter::informer_watch_event(uint64_t informer_id, const KubeWatchEvent& event) {
  Result<InformerState*> state = writable_informer(informer_id, "informer_watch_event()", "a watch event");
  if (!state.is_ok()) return state.status();
  InformerState& informer = **state;
  const auto what = [&] { return informer_item(informer_id, "watch", informer.watches - 1); };
  if (informer.watches == 0) {
    return Status(StatusCode::kInvalidArgument,
                  path_ + ": " + informer_name(informer_id) + ": a watch event before any watch");
  }
  if (informer.last_ended) {
    return Status(StatusCode::kInvalidArgument, what() + ": an event after the watch ended");
  }
  if (Status s = check_room(informer.events_in_last, "events", what); !s.is_ok()) return s;
  const std::string_view type = kube_event_type_name(event.type);
  if (type == "?") {
    return Status(StatusCode::kInvalidArgument,
                  what() + ": event type " + std::to_string(static_cast<int>(event.type)) +
                      " is not ADDED, MODIFIED, DELETED or BOOKMARK");
  }
  if (Status s = check_object(event.object, [&] { return what() + " event"; }); !s.is_ok())
    return s;

  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_watch_event;
  st.bind_int64(1, static_cast<int64_t>(informer_id));
  st.bind_int64(2, informer.watches - 1);
  st.bind_int64(3, informer.events_in_last);
  st.bind_text(4, type);
  st.bind_int64(5, event.at_ns);
  st.bind_int64(6, event.cached_ns);
  bind_object(st, 7, event.object);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [&] { return "inserting an event of " + what(); }));
  ++informer.events_in_last;
  return row_written();
}

Status RunDbWriter::informer_watch_ended(uint64_t informer_id, std::string_view end,
                                         int64_t at_ns) {
  Result<InformerState*> state = writable_informer(informer_id, "informer_watch_ended()", "a watch ended");
  if (!state.is_ok()) return state.status();
  InformerState& informer = **state;
  const auto what = [&] { return informer_item(informer_id, "watch", informer.watches - 1); };
  if (informer.watches == 0) {
    return Status(StatusCode::kInvalidArgument,
                  path_ + ": " + informer_name(informer_id) + ": a watch ended before any watch");
  }
  if (informer.last_ended) return Status(StatusCode::kInvalidArgument, what() + " ended twice");
  // An empty end means "still running" (KubeWatch::end): it would read back as not ended.
  if (end.empty()) {
    return Status(StatusCode::kInvalidArgument, what() + " ended without saying how (empty end)");
  }
  if (Status s = check_length(end, kRunDbTextBytesMax, [&] { return what() + " end"; });
      !s.is_ok()) {
    return s;
  }
  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->end_informer_watch;
  st.bind_int64(1, static_cast<int64_t>(informer_id));
  st.bind_int64(2, informer.watches - 1);
  st.bind_text(3, end);
  st.bind_int64(4, at_ns);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [&] { return "ending " + what(); }));
  // The state above says the row exists and has not ended; anything else is a writer bug.
  DST_ASSERT_EQ(sqlite3_changes(db_.get()), 1);
  informer.last_ended = true;
  return row_written();
}

Status RunDbWriter::informer_processed(uint64_t informer_id, const KubeProcessed& processed) {
  Result<InformerState*> state = writable_informer(informer_id, "informer_processed()", "a processed key");
  if (!state.is_ok()) return state.status();
  InformerState& informer = **state;
  const auto what = [&] { return informer_item(informer_id, "processed key", informer.processed); };
  if (Status s = check_room(informer.processed, "processed keys", what); !s.is_ok()) return s;
  if (Status s = check_length(processed.key, kRunDbKeyBytesMax, what); !s.is_ok()) return s;

  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->insert_processed;
  st.bind_int64(1, static_cast<int64_t>(informer_id));
  st.bind_int64(2, informer.processed);
  st.bind_int64(3, processed.at_ns);
  st.bind_text(4, processed.key);
  st.bind_int64(5, processed.informer_rv);
  st.bind_int64(6, processed.present ? 1 : 0);
  st.bind_int64(7, processed.object_rv);
  DST_RUN_DB_STATEMENT(st.run(db_.get(), path_, [&] { return "inserting " + what(); }));
  ++informer.processed;
  return row_written();
}

Status RunDbWriter::informer_finished(uint64_t informer_id, int64_t at_ns,
                                      int64_t resource_version,
                                      const std::vector<KubeObject>& objects) {
  Result<InformerState*> state = writable_informer(informer_id, "informer_finished()", "finished");
  if (!state.is_ok()) return state.status();
  InformerState& informer = **state;
  const auto what = [&] { return path_ + ": " + informer_name(informer_id) + " final store"; };
  if (informer.finished) {
    return Status(StatusCode::kInvalidArgument,
                  path_ + ": " + informer_name(informer_id) + " finished twice");
  }
  if (Status s = check_objects(objects, what); !s.is_ok()) return s;

  if (Status s = begin_batch_if_needed(); !s.is_ok()) return s;
  Stmt& st = stmts_->finish_informer;
  st.bind_int64(1, static_cast<int64_t>(informer_id));
  st.bind_int64(2, at_ns);
  st.bind_int64(3, resource_version);
  DST_RUN_DB_STATEMENT(
      st.run(db_.get(), path_, [&] { return "finishing " + informer_name(informer_id); }));
  DST_ASSERT_EQ(sqlite3_changes(db_.get()), 1);  // started and not finished, as the state says
  row_added();
  Stmt& object_st = stmts_->insert_final_object;
  for (size_t i = 0; i < objects.size(); ++i) {
    object_st.bind_int64(1, static_cast<int64_t>(informer_id));
    object_st.bind_int64(2, static_cast<int64_t>(i));
    bind_object(object_st, 3, objects[i]);
    if (Status s = object_st.run(db_.get(), path_, [&] { return "inserting the " + what(); });
        !s.is_ok()) {
      // The informer reads as finished without all its objects: nothing may commit that now.
      return fail(
          Status(s.code(), s.message() + " (the final store is half written; the writer stops)"));
    }
    row_added();
  }
  informer.finished = true;
  return commit_if_batch_full();
}

Status RunDbWriter::add_informer(const Informer& informer) {
  if (!informer.finished &&
      (informer.final_ns != 0 || informer.final_rv != 0 || !informer.final_objects.empty())) {
    return Status(StatusCode::kInvalidArgument,
                  path_ + ": " + informer_name(informer.id) +
                      " is not finished but has a final store (final_ns, final_rv or objects)");
  }
  if (Status s = informer_started(informer.id, informer.client, informer.prefix); !s.is_ok())
    return s;
  for (const KubeList& list : informer.lists) {
    if (Status s = informer_list(informer.id, list); !s.is_ok()) return s;
  }
  for (const KubeWatch& watch : informer.watches) {
    if (Status s = informer_watch_started(informer.id, watch); !s.is_ok()) return s;
  }
  for (const KubeProcessed& processed : informer.processed) {
    if (Status s = informer_processed(informer.id, processed); !s.is_ok()) return s;
  }
  if (!informer.finished) return Status::ok();
  return informer_finished(informer.id, informer.final_ns, informer.final_rv,
                           informer.final_objects);
}

Status RunDbWriter::add_history(const History& history) {
  for (const Operation& op : history.operations) {
    if (Status s = add_operation(op); !s.is_ok()) return s;
  }
  for (const Watch& watch : history.watches) {
    if (Status s = add_watch(watch); !s.is_ok()) return s;
  }
  for (const Fault& fault : history.faults) {
    if (Status s = add_fault(fault); !s.is_ok()) return s;
  }
  for (const ScheduleStep& step : history.schedule) {
    if (Status s = schedule_step(step); !s.is_ok()) return s;
  }
  for (const Informer& informer : history.informers) {
    if (Status s = add_informer(informer); !s.is_ok()) return s;
  }
  for (const Restore& restore : history.restores) {
    if (Status s = restored(restore); !s.is_ok()) return s;
  }
  return Status::ok();
}

#undef DST_RUN_DB_STATEMENT

Status write_run_db(const std::string& path, const RunInfo& info, const History& history,
                    const std::optional<RunResult>& result, const RunDbOptions& options) {
  Result<std::unique_ptr<RunDbWriter>> writer = RunDbWriter::create(path, options);
  if (!writer.is_ok()) return writer.status();
  RunDbWriter& w = **writer;
  if (Status s = w.begin_run(info); !s.is_ok()) return s;
  if (Status s = w.add_history(history); !s.is_ok()) return s;
  if (result) {
    if (Status s = w.finish_run(*result); !s.is_ok()) return s;
  }
  return w.close();
}

}  // namespace dst::history
