// The run database: one SQLite file per run holding everything a checker or a report needs
// afterwards — the run (seed, scenario, options, version, trace hash, verdict), every operation
// with its request, response, times and outcome, every watch segment and response, every fault
// window, every informer's LISTs, WATCH events, processed keys and final store (kube_history.h),
// and periodic metrics. The schema is documented table by table in docs/run-db.md.
//
// Written incrementally while the simulation runs (RunDbWriter): rows are batched into
// transactions committed every `batch_rows` rows or on flush(), in SQLite's WAL journal mode, so a
// harness that is killed leaves a readable file holding everything up to its last commit; an
// operation is inserted when invoked and updated when it returns, so a killed run still shows the
// operations that were in flight (as unknown outcomes). Read back whole (RunDbReader,
// read_history) by `dst check`, `dst report` and the tests.
//
// This is harness output on the real filesystem, not on a simulated disk. Nothing here reads a
// clock: the only wall-clock values are the run's start and finish times, passed in by the caller
// as plain metadata.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/limits.h"
#include "base/status.h"
#include "history/checks.h"
#include "history/coverage.h"
#include "history/history.h"

struct sqlite3;  // <sqlite3.h>, kept out of this header

namespace dst::history {

// The schema version this code writes and the only one it reads. Bump it on any change to the
// tables (docs/run-db.md lists the changes); an older reader then refuses the file with a clear
// error instead of misreading it.
inline constexpr int64_t kRunDbSchemaVersion = 5;
// The meta table's `format` row: tells a dst run database from any other SQLite file.
inline constexpr std::string_view kRunDbFormat = "dst-run-db";
// PRAGMA application_id of a run database ("dstR"), so `file(1)` and tools can recognize it.
inline constexpr int32_t kRunDbApplicationId = 0x64737452;

// --- limits (kept here, next to the only code they bound) -----------------------------------
// Rows per transaction before an automatic commit: what a killed harness may lose at most.
// A commit in WAL mode with synchronous=NORMAL appends the batch's pages to the -wal file without
// an fsync, so 1000 rows keeps commits cheap while a kill loses only the last moments of a run.
inline constexpr size_t kRunDbBatchRowsDefault = 1000;
// Largest batch an option may ask for: the uncommitted rows are held by SQLite's page cache and
// WAL, and a huge batch makes a kill lose much of the run.
inline constexpr size_t kRunDbBatchRowsMax = 1'000'000;
// Largest request/response/watch blob stored or read: the largest message the simulated network
// carries at all (a bigger blob in a file is corruption, not data).
inline constexpr size_t kRunDbBlobBytesMax = limits::kMessageBytesMax;
// Largest free-text field (options, checker summary, error text): a summary is a few pages; more
// is a caller bug that would bloat every run file.
inline constexpr size_t kRunDbTextBytesMax = 16ull * 1024 * 1024;
// Longest short name (operation kind, fault kind and target, metric name, version, scenario).
inline constexpr size_t kRunDbNameBytesMax = 4096;
// Longest key of an informer's object or processed key, and of an informer's prefix: the largest
// key a member stores at all.
inline constexpr size_t kRunDbKeyBytesMax = limits::kBackendKeyBytesMax;
// Rows of each kind read_history / read_metrics load into memory: at least what one run may
// record (base/limits.h, kHistory*), so that every file dst wrote reads back; a file claiming more
// is refused rather than exhausting memory (10M operations are several GiB of protobufs).
inline constexpr size_t kRunDbOperationsMax = limits::kHistoryOperationsMax;
inline constexpr size_t kRunDbWatchesMax = limits::kHistoryWatchesMax;
inline constexpr size_t kRunDbWatchSegmentsPerWatchMax = 100'000;
// Watch responses of all watches together (the recorder bounds them per segment).
inline constexpr size_t kRunDbWatchResponsesMax = 20'000'000;
inline constexpr size_t kRunDbFaultsMax = 1'000'000;
inline constexpr size_t kRunDbScheduleStepsMax = 1'000'000;
// Checks of one run: a dozen in practice; a file claiming more is refused.
inline constexpr size_t kRunDbChecksMax = 1000;
// Coverage names of one run: the catalogue and a few unforeseen API combinations.
inline constexpr size_t kRunDbCoverageMax = kCoverageNamesMax;
inline constexpr size_t kRunDbMetricsMax = 20'000'000;
// Informers read_history loads (what one run may record), and rows of each informer table (lists,
// list objects, watches, watch events, processed keys, final objects) over all informers
// together: a long kube run is a few million events, and re-lists of a few thousand objects.
inline constexpr size_t kRunDbInformersMax = limits::kHistoryInformersMax;
inline constexpr size_t kRunDbInformerRowsMax = 20'000'000;
// SQLite page cache of the writer, in KiB (PRAGMA cache_size): the index pages of a long run stay
// in memory instead of being re-read for every batch; 32 MiB holds a 100k-operation run whole.
inline constexpr int64_t kRunDbCacheKib = 32 * 1024;
// Milliseconds SQLite retries a locked database (a reader meeting a writer's checkpoint) before
// reporting SQLITE_BUSY; time spent inside SQLite, never read by dst.
inline constexpr int kRunDbBusyTimeoutMs = 5000;

// What is known when a run starts. Wall-clock values are metadata only, supplied by the caller.
struct RunInfo {
  uint64_t seed = 0;
  std::string scenario;         // the scenario script's path or name
  std::string options;          // the options as text (enough to reproduce the run with the seed)
  std::string dst_version;      // the version of dst that ran it (e.g. `git describe`)
  int64_t started_unix_ms = 0;  // wall clock at start, milliseconds since the Unix epoch
};

// What is known when the run and its checks are over.
struct RunResult {
  int64_t finished_unix_ms = 0;  // wall clock at the end (finished - started = wall duration)
  uint64_t trace_hash = 0;       // the simulation's trace hash (stored as "0x%016x" text)
  std::string verdict;           // "pass", "violation", "unknown", "error", ...
  int exit_code = 0;             // the process exit code (tools/exit_codes.h)
  std::string checker_summary;   // the checkers' human-readable summary / first violation
  // One row per check (history/checks.h): the verdict as data; the `checks` table.
  std::vector<CheckRow> checks;
  // What the run reached (history/coverage.h): probes and the API surface; the `coverage` table.
  Coverage coverage;
};

// The run row as read back: `result` is empty when the run never finished (killed, or crashed).
struct RunRecord {
  RunInfo info;
  std::optional<RunResult> result;
};

// One periodic sample: leader, term, commit index of a member, or any other named value.
struct MetricSample {
  int64_t at_ns = 0;    // virtual time
  uint32_t member = 0;  // 1-based member id; 0 for cluster-wide or harness values
  std::string name;     // "leader", "term", "commit_index", ...
  int64_t value = 0;
};

struct RunDbOptions {
  // Commit after this many rows (1..kRunDbBatchRowsMax); flush() commits earlier.
  size_t batch_rows = kRunDbBatchRowsDefault;
  // Replace an existing run database at the path (refused if the file there is anything else).
  // Without it an existing file is an error: a run never overwrites another run silently.
  bool replace_existing = false;
};

namespace run_db_internal {
struct DbCloser {
  void operator()(sqlite3* db) const;  // sqlite3_close_v2
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;
}  // namespace run_db_internal

// Writes one run database, incrementally. Not thread-safe (dst has one thread). Every method
// returns an error instead of dropping data; after a failed commit the writer is failed and every
// later call returns that same error (the rows of the failed batch are lost, and said so once).
class RunDbWriter {
 public:
  // Creates the file with the schema (WAL journal mode) and returns a writer for it.
  static Result<std::unique_ptr<RunDbWriter>> create(const std::string& path,
                                                     const RunDbOptions& options = {});
  // Commits pending rows and closes, reporting any failure on stderr: call close() to see it.
  ~RunDbWriter();
  RunDbWriter(const RunDbWriter&) = delete;
  RunDbWriter& operator=(const RunDbWriter&) = delete;

  // The run row. begin_run must come first (once) and is committed at once; finish_run (once)
  // records the end and is committed at once.
  Status begin_run(const RunInfo& info);
  Status finish_run(const RunResult& result);

  // An operation as it is sent: id, client, member, invoke_ns and request are stored; it reads
  // back as kUnknown and never returned until operation_returned() updates it. Ids are unique.
  Status operation_invoked(const Operation& op);
  // Its answer (or the client giving up at return_ns, with kUnknown). Once per operation.
  Status operation_returned(uint64_t id, int64_t return_ns, Outcome outcome,
                            const etcdserverpb::ApiResponse& response);
  // A whole operation at once (imports, tests): never returned iff return_ns == kNeverReturned.
  Status add_operation(const Operation& op);

  // A logical watch, then its segments in order; responses and "broken" apply to the watch's
  // latest segment.
  Status watch_created(uint64_t watch_id, uint32_t client);
  Status watch_segment_started(uint64_t watch_id, uint32_t member, int64_t created_ns,
                               const etcdserverpb::WatchCreateRequest& request);
  Status watch_response(uint64_t watch_id, int64_t at_ns,
                        const etcdserverpb::WatchResponse& response);
  Status watch_segment_broken(uint64_t watch_id);
  Status add_watch(const Watch& watch);  // created + every segment + responses + broken flags

  // A fault window: started (returns its id, the faults row id), then ended at most once.
  Result<int64_t> fault_started(std::string_view kind, std::string_view target, int64_t start_ns);
  Status fault_ended(int64_t fault_id, int64_t end_ns);
  Status add_fault(const Fault& fault);  // end_ns == kNeverReturned: not healed
  // A step of the fault schedule (its Lua text at most kRunDbTextBytesMax bytes).
  Status schedule_step(const ScheduleStep& step);
  // A restore from a snapshot (history.h Restore).
  Status restored(const Restore& restore);

  Status metric(int64_t at_ns, uint32_t member, std::string_view name, int64_t value);

  // An informer (kube_history.h), mirroring Recorder's informer_* calls: created once (ids are
  // unique), then its LISTs (each with its objects, written in the same batch so that a killed
  // run never shows part of a list), its WATCHes (events and the end apply to its latest watch;
  // nothing after the end), the keys its controller processed, and its final store (once).
  Status informer_started(uint64_t informer_id, uint32_t client, std::string_view prefix);
  Status informer_list(uint64_t informer_id, const KubeList& list);
  // Events and an end that `watch` already holds are written too (the recorder passes none); an
  // empty `end` with a nonzero `ended_ns` is refused, as it would not read back.
  Status informer_watch_started(uint64_t informer_id, const KubeWatch& watch);
  Status informer_watch_event(uint64_t informer_id, const KubeWatchEvent& event);
  // `end` is how it ended ("410 too old resource version", "broken: ...", "stopped"): not empty.
  Status informer_watch_ended(uint64_t informer_id, std::string_view end, int64_t at_ns);
  Status informer_processed(uint64_t informer_id, const KubeProcessed& processed);
  Status informer_finished(uint64_t informer_id, int64_t at_ns, int64_t resource_version,
                           const std::vector<KubeObject>& objects);
  // A whole informer at once: refused when !finished but final_* are set (they would not read
  // back).
  Status add_informer(const Informer& informer);

  // Everything in `history` (operations, watches, faults, informers), in order.
  Status add_history(const History& history);

  // Commits the pending rows now. Cheap when nothing is pending.
  Status flush();
  // Flushes, checkpoints the WAL into the database file and closes. Later calls fail.
  Status close();

  const std::string& path() const { return path_; }
  // Rows inserted or updated so far (committed or pending), for progress output.
  uint64_t rows_written() const { return rows_written_; }

 private:
  struct Statements;
  struct WatchState {
    uint32_t client = 0;
    int64_t segments = 0;           // segments started so far
    int64_t responses_in_last = 0;  // responses of the latest segment
    bool last_broken = false;
  };
  struct InformerState {
    int64_t lists = 0;
    int64_t watches = 0;         // watches started so far
    int64_t events_in_last = 0;  // events of the latest watch
    bool last_ended = false;
    int64_t processed = 0;
    bool finished = false;
  };
  RunDbWriter(std::string path, run_db_internal::DbHandle db, size_t batch_rows);

  // add_operation, or operation_invoked when `invoked_only` (return, outcome, response ignored).
  Status insert_operation(const Operation& op, bool invoked_only);
  Status check_writable(const char* what);
  Status begin_batch_if_needed();
  Status row_written();  // counts a row; commits when the batch is full
  Status insert_check(const CheckRow& check);  // a checks row, inside finish_run
  Status insert_coverage(const std::string& name, uint64_t hits);  // a coverage row, likewise
  // Counts a row without committing, for a call whose rows must land in one batch; the call ends
  // with commit_if_batch_full().
  void row_added();
  Status commit_if_batch_full();
  // The informer's state once the writer may write (check_writable(call)), or kNotFound naming
  // what the call was about.
  Result<InformerState*> writable_informer(uint64_t informer_id, const char* call, const char* what);
  // "<path>: informer 3 list 7": names one of an informer's rows in errors.
  std::string informer_item(uint64_t informer_id, const char* kind, int64_t n) const;
  Status commit();
  Status fail(Status status);  // makes the writer failed with `status` and returns it

  std::string path_;
  run_db_internal::DbHandle db_;
  std::unique_ptr<Statements> stmts_;
  size_t batch_rows_ = 0;
  size_t pending_rows_ = 0;
  bool in_transaction_ = false;
  bool run_begun_ = false;
  bool run_finished_ = false;
  bool closed_ = false;
  Status failed_;
  uint64_t rows_written_ = 0;
  std::map<uint64_t, WatchState> watches_;  // ordered: nothing depends on hash order
  std::map<uint64_t, InformerState> informers_;
};

// Reads a run database (one that is still being written, was killed mid-run, or was closed).
class RunDbReader {
 public:
  // Opens read-only and checks the format and schema version.
  static Result<RunDbReader> open(const std::string& path);

  // The run row (kNotFound if the run was never begun).
  Result<RunRecord> read_run() const;
  // Operations by id, watches by id with segments and responses in order, faults by id,
  // informers by id with their lists, watches, events, processed keys and final objects in order.
  // Operations that never returned read as kUnknown with return_ns = kNeverReturned. A blob that
  // does not parse, or a row that contradicts itself, is kCorruption naming table and row id.
  Result<History> read_history() const;
  // Metric samples by (name, member, at_ns).
  Result<std::vector<MetricSample>> read_metrics() const;
  // The fault schedule's steps in the order they were applied (read_history reads them too).
  Result<std::vector<ScheduleStep>> read_schedule_steps() const;

  const std::string& path() const { return path_; }

 private:
  RunDbReader(std::string path, run_db_internal::DbHandle db)
      : path_(std::move(path)), db_(std::move(db)) {}
  Status read_operations(History& out) const;
  Status read_watches(History& out) const;
  // Its parts: the watches rows (index_of: watch id -> position in out.watches), then their
  // segments, then the segments' responses.
  Status read_watch_rows(History& out, std::map<int64_t, size_t>& index_of) const;
  Status read_watch_segments(History& out, const std::map<int64_t, size_t>& index_of) const;
  Status read_watch_responses(History& out, const std::map<int64_t, size_t>& index_of) const;
  Status read_faults(History& out) const;
  Status read_schedule(History& out) const;
  Status read_restores(History& out) const;
  Status read_checks(RunResult& out) const;
  Status read_coverage(RunResult& out) const;
  // Informers, then each of their child tables (run_db_reader.cc).
  Status read_informers(History& out) const;

  std::string path_;
  run_db_internal::DbHandle db_;
};

// One-shot conveniences over RunDbReader.
Result<History> read_history(const std::string& path);
Result<RunRecord> read_run(const std::string& path);

// Writes a whole run database at once (imports, tests): create, begin_run, add_history,
// finish_run if `result` is given, close.
Status write_run_db(const std::string& path, const RunInfo& info, const History& history,
                    const std::optional<RunResult>& result, const RunDbOptions& options = {});

}  // namespace dst::history
