// The node's backend: an ordered key-value store with named buckets, kept in SQLite on the node's
// simulated disk (the role bbolt plays in etcd).
//
// Writes go into one batch transaction that is always open, like etcd's backend batchTx; commit()
// makes the batch durable (SQLite WAL mode, synchronous=FULL: the WAL is fsynced before COMMIT
// returns) and opens the next one. The node's apply loop calls set_applied(i) with the data of
// entry i and maybe_commit() after each apply, so the applied raft index always commits in the
// same SQLite transaction as the data it describes: after any crash, committed_applied_index()
// names exactly the entries whose effects are in the store, and the node replays the rest.
//
// open() first writes every backend file back whole and fsyncs it: after a process crash the page
// cache may show SQLite writes that are not durable (an interrupted or failed fsync), and the
// node acts on what open() reports, so it must survive a power loss right after open().
//
// Reads go through the same connection and so see the open batch's writes (as etcd's reads see
// its read buffer). One fiber at a time uses SQLite: a call made while another fiber's call is
// blocked inside SQLite (an fsync during commit) waits for it.
//
// Journal mode: WAL with locking_mode=EXCLUSIVE and synchronous=FULL. Why it is crash safe on the
// sim disk (sector-aligned torn writes, names durable only after sync_dir):
// - A commit appends frames to the WAL and fsyncs it before returning; every frame carries a
//   checksum chained over the WAL and salts from its header, so on recovery SQLite keeps exactly
//   the frames up to the last intact commit frame: a torn or lost tail drops only uncommitted
//   (never acknowledged) transactions.
// - A checkpoint fsyncs the WAL, copies pages into the database file, fsyncs that, and only then
//   may a later writer restart the WAL (new salts; the header is synced before new frames). A
//   crash in between leaves every page of the database file that might be torn still covered by
//   a valid WAL frame.
// - The VFS dir-syncs a file it created at its first fsync, so a synced WAL cannot lose its name.
// - Exclusive locking keeps the WAL index in heap memory: no shared-memory file, no xShm methods.
// Rollback-journal mode would need synchronous=EXTRA for the same durability (its commit point is
// the journal's deletion, a namespace operation), and writes every page twice per commit.
//
// Errors: every SQLite error becomes a Status naming the SQL, SQLite's message and the sim error
// underneath. The first error leaves the Backend failed: every later call returns it (after a
// failed fsync or a full disk SQLite may have rolled back part of the batch, so going on could
// silently drop writes). The node then crashes and restarts, as etcd panics on bbolt errors.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/limits.h"
#include "base/status.h"
#include "node/backend/sim_vfs.h"
#include "node/backend/sqlite_util.h"
#include "sim/env.h"
#include "sim/file_system.h"
#include "sim/sync.h"

namespace dst::backend {

// The bucket that holds the applied index; always present.
inline constexpr std::string_view kMetaBucket = "meta";
inline constexpr std::string_view kAppliedIndexKey = "applied_index";

// Called at named places inside the Backend (and the store above it, mvcc::KvStore) where a test
// or scenario may crash the node or stall it: the node's fault points
// (node/fault_points/fault_points.h), named here so the backend does not depend on the node. The
// hook may never return (the process was killed there); it is only called with no fiber lock
// held and no SQLite call in progress.
using FaultHook = std::function<void(std::string_view point)>;
// In defragment(): after the open batch committed, before VACUUM; between VACUUM (the rebuilt
// database sits in the WAL) and the checkpoint into the database file; after that checkpoint.
inline constexpr std::string_view kFaultBeforeDefrag = "before-defrag";
inline constexpr std::string_view kFaultDuringDefrag = "during-defrag";
inline constexpr std::string_view kFaultAfterDefrag = "after-defrag";

struct BackendOptions {
  // Bucket names: [a-z0-9_]+, at most limits::kBackendBucketsMax; "meta" is added if missing.
  std::vector<std::string> buckets = {"key", "meta", "lease", "alarm"};
  // should_commit() once the batch holds this many writes (etcd's batch limit)...
  uint64_t batch_limit_ops = limits::kBackendBatchOpsDefault;
  // ...or its first write is this old on the host's monotonic clock (etcd's batch interval).
  sim::DurationNs batch_interval_ns = limits::kBackendBatchIntervalNsDefault;
  // Read every page at open (PRAGMA quick_check), so a damaged file fails open() with a
  // corruption Status rather than some later read. Costs one pass over the file.
  bool check_on_open = true;
  // How fast a defragmentation copies the database: etcd's defrag rewrites every page into a new
  // file while holding the backend, so the member's reads and writes wait for time proportional
  // to its size. (VACUUM through the simulated disk costs only its fsyncs; this is the copy.)
  uint64_t defrag_bytes_per_second = limits::kBackendDefragBytesPerSecondDefault;
};

struct BackendStats {
  uint64_t commits = 0;        // batches made durable
  uint64_t ops_committed = 0;  // writes in those batches
};

class Backend {
 public:
  // Opens (creating if needed) the database file `path` on the process's files. Must run in a
  // fiber of the process (`env`) that will use the Backend; may block on the disk.
  static Result<std::unique_ptr<Backend>> open(sim::Env& env, std::string path, BackendOptions options = {});
  // Without close(): abandons the connection without touching the disk, like a process crash
  // (the open batch is lost; written-but-unsynced pages stay in the page cache).
  ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  // --- writes, into the open batch ---
  Status put(std::string_view bucket, std::string_view key, std::string_view value);
  Status del(std::string_view bucket, std::string_view key);
  // Deletes keys in [from, to); an empty `to` means to the end of the bucket.
  Status del_range(std::string_view bucket, std::string_view from, std::string_view to);
  // Records that raft entry `index` is applied, in the batch that holds its effects. Never
  // decreases.
  Status set_applied(uint64_t index);
  // Makes the batch durable and opens the next one; does nothing for an empty batch.
  Status commit();
  // Whether the batch is due by count or by age (see BackendOptions).
  bool should_commit() const;
  Status maybe_commit();

  // --- reads, seeing the open batch ---
  Result<std::optional<std::string>> get(std::string_view bucket, std::string_view key);
  // Return false to stop early. The visitor must not call the Backend.
  using Visitor = std::function<bool(std::string_view key, std::string_view value)>;
  // Keys in [from, to) in byte order (memcmp; a prefix sorts first); empty `to`: to the end;
  // `limit` 0: no limit.
  Status range(std::string_view bucket, std::string_view from, std::string_view to, uint64_t limit,
               const Visitor& visit);
  // Digest of the contents of `buckets` (all buckets if empty) in name and key order: equal
  // contents give equal hashes on every member.
  Result<uint64_t> hash(const std::vector<std::string>& buckets = {});

  // The applied index including the open batch, and as of the last commit (what a crash keeps).
  uint64_t applied_index() const { return applied_index_; }
  uint64_t committed_applied_index() const { return committed_applied_index_; }
  uint64_t pending_ops() const { return pending_ops_; }

  // --- space ---
  // Logical database size (pages * page size), including free pages: what etcd's quota counts.
  Result<uint64_t> size_bytes();
  // Without the free pages.
  Result<uint64_t> size_in_use();
  // Commits, then rebuilds the file without free pages (VACUUM) and checkpoints it so the
  // database file shrinks. Passes the kFault*Defrag points between its steps; each step takes
  // the fiber lock anew and leaves a batch open, so other fibers may run between steps while a
  // fault hook stalls.
  Status defragment();
  // Installs (or, with an empty one, removes) the fault hook.
  void set_fault_hook(FaultHook hook) { fault_hook_ = std::move(hook); }

  // Commits, checkpoints and closes. The Backend is unusable afterwards (every call fails).
  Status close();

  const Status& failure() const { return failure_; }
  const BackendStats& stats() const { return stats_; }
  const SimVfsStats& vfs_stats() const { return vfs_->stats(); }
  const std::string& path() const { return path_; }

 private:
  struct BucketStatements {
    Statement get, put, del, del_from, del_range, range_from, range_between;
  };
  class Guard;  // the fiber lock plus per-call checks (backend.cc)

  Backend(sim::Env& env, std::string path, BackendOptions options);
  // Holds the backend (every other call waits) for the time a defragmentation's copy of the
  // database takes at options_.defrag_bytes_per_second.
  Status hold_for_copy();
  Status make_files_durable();
  Status rewrite_and_sync(const std::string& name);
  Status open_connection();
  Status configure();
  Status check_file_format();
  Status configure_connection();
  Status set_wal_mode();
  Status check_integrity();
  Status create_buckets();
  Status prepare_statements();
  Status load_applied_index();
  Status exec(const std::string& sql);
  Status range_locked(std::string_view bucket, std::string_view from, std::string_view to,
                      uint64_t limit, const Visitor& visit);
  // Finalizes the statements and closes the connection (I/O as allowed by the VFS).
  void close_connection();
  void finalize_statements();  // before the connection closes: an open statement keeps it alive
  // The Status for a failed SQLite call: SQL, SQLite's message, the sim error underneath.
  Status sqlite_error(int rc, std::string_view sql);
  // Records the first failure (sticky) and returns it.
  Status fail(Status status);
  Status check_usable() const;
  // Statement set of a bucket; asserts that it exists (bucket names are fixed at open).
  BucketStatements& bucket(std::string_view name);
  Status step_done(Statement& stmt);  // steps a write statement to completion
  void count_write(uint64_t ops);
  Result<int64_t> pragma_int(const std::string& pragma);
  Result<int64_t> pragma_int(Statement& prepared);
  Status write_applied_index();
  Status commit_locked();
  // Under the fiber lock: commits the batch, then (if `sql` is not empty) ends it, runs `sql`
  // outside any transaction and opens the next batch.
  Status run_outside_batch(std::initializer_list<const char*> sql);
  // Calls the fault hook, if any. Never with the fiber lock held: a crash at the point kills the
  // process's other fibers first, among them the one that owns this Backend, and a lock guard
  // left on this fiber's stack would touch the freed Backend when the fiber is unwound.
  void fault(std::string_view point);
  void reseed_sqlite_prng();

  sim::Env& env_;
  sim::FileSystem& fs_;
  std::string path_;
  BackendOptions options_;
  std::string rng_stream_;  // "sqlite/<host>": SQLite's PRNG seeds and the VFS's xRandomness
  std::unique_ptr<SimVfs> vfs_;
  sqlite3* db_ = nullptr;
  std::map<std::string, BucketStatements, std::less<>> buckets_;
  Statement begin_, commit_;
  Statement page_count_, freelist_count_;  // prepared once: size_bytes() runs on every put
  Status failure_;
  bool closed_ = false;
  uint64_t applied_index_ = 0;
  bool applied_index_dirty_ = false;  // applied_index_ not yet in the batch's meta row
  uint64_t committed_applied_index_ = 0;
  uint64_t pending_ops_ = 0;
  sim::TimeNs batch_started_ = 0;  // monotonic time of the batch's first write
  BackendStats stats_;
  // The fiber lock: true while a fiber is inside a call (it may block in SQLite's fsync).
  bool busy_ = false;
  bool visiting_ = false;  // inside a range() visitor
  sim::WaitQueue lock_waiters_;
  FaultHook fault_hook_;
};

}  // namespace dst::backend
