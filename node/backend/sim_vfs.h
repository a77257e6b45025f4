// A SQLite VFS whose files are a node's simulated disk files (sim/file_system.h).
//
// Reads, writes, truncates and syncs go to the node's sim::FileSystem, so a power loss keeps only
// what SQLite synced and a slow fsync slows SQLite's commits. Randomness and the current time come
// from the Simulator; xSleep never sleeps. Nothing here touches a real file, the wall clock or a
// thread.
//
// Beyond a plain mapping, three things make it safe on the simulated disk:
// - Names: the sim disk (like strict POSIX) makes a created name durable only at sync_dir(). A file
//   this VFS created is dir-synced after its first successful xSync, as SQLite's unix VFS does for
//   journals and WALs; unlike it, also for the main database file, which the unix VFS leaves to
//   chance.
// - Page checksums: the main database file keeps an 8-byte checksum in the reserved tail of every
//   page (the Backend sets SQLite's reserve-bytes to 8 before the file has content). Writes fill it
//   in, full-page reads verify it, so a decayed bit anywhere in a page becomes SQLITE_IOERR_DATA (a
//   corruption Status) instead of silently wrong data or a confused b-tree. WAL frames have
//   SQLite's own checksums (checked when the WAL is recovered) and are passed through unchanged.
// - Process death: killing a process unwinds its fibers by throwing boost's forced_unwind at the
//   point where the fiber blocked, which may be an fsync inside SQLite. Letting it cross SQLite's
//   C frames would abandon the connection in an unknown state, so a VFS method catches it, returns
//   an I/O error to SQLite and stashes the exception; the Backend rethrows it as soon as SQLite has
//   returned (rethrow_pending_unwind). From then on, and whenever the owning process is dead or
//   the VFS was shut off, every method fails at once without touching the disk: a dead process
//   never writes.
//
// SQLite's VFS list is process-wide, so each instance registers under its own name
// ("dst-sim-<n>") and unregisters in its destructor; the name is only a lookup key and never
// changes behaviour. It never becomes the default VFS.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <exception>
#include <string>

#include "base/status.h"
#include "sim/env.h"
#include "sim/file_system.h"

namespace dst::backend {

// What a SimVfs did, for tests and metrics.
struct SimVfsStats {
  uint64_t files_opened = 0;
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t syncs = 0;       // successful xSync calls
  uint64_t dir_syncs = 0;
  uint64_t checksum_failures = 0;
  uint64_t io_errors = 0;   // methods that returned an error code to SQLite
};

class SimVfs {
 public:
  // `env` is the process whose fibers call SQLite; `page_bytes` the database page size the
  // checksums are computed over.
  SimVfs(sim::Env& env, uint32_t page_bytes);
  ~SimVfs();  // unregisters; every file must be closed by then
  SimVfs(const SimVfs&) = delete;
  SimVfs& operator=(const SimVfs&) = delete;

  const std::string& name() const { return name_; }
  uint32_t page_bytes() const { return page_bytes_; }

  // From now on every method fails without touching the disk (used before abandoning a
  // connection: a destroyed Backend must not write, like a crashed process).
  void shut_off() { shut_off_ = true; }
  bool io_allowed() const { return !shut_off_ && env_.alive(); }

  // If a method caught a fiber's unwinding, rethrows it (the fiber continues to unwind).
  void rethrow_pending_unwind();

  // The sim error behind the latest failed method ("io error: fsync failed ..."), then cleared;
  // empty if none. Errors carry more than SQLite's result codes can say.
  std::string take_last_error();

  const SimVfsStats& stats() const { return stats_; }
  sim::FileSystem& fs() { return fs_; }
  sim::Env& env() { return env_; }
  sim::Rng& rng() { return *rng_; }

  // --- used by the C callbacks (sim_vfs.cc) ---
  // Runs `body` unless I/O is off; a throw inside it (a fiber being unwound) is stashed, I/O is
  // shut off and `error_code` returned instead.
  template <typename F>
  int guarded(int error_code, F&& body);
  // Records a sim failure as the last error and returns `code` (for SQLite).
  int fail(int code, const Status& status);
  SimVfsStats& mutable_stats() { return stats_; }
  int open_files = 0;

 private:
  sqlite3_vfs vfs_{};  // pAppData points back here
  sim::Env& env_;
  sim::FileSystem& fs_;
  uint32_t page_bytes_;
  sim::Rng* rng_;
  std::string name_;
  bool shut_off_ = false;
  std::exception_ptr pending_unwind_;
  std::string last_error_;
  SimVfsStats stats_;
};

template <typename F>
int SimVfs::guarded(int error_code, F&& body) {
  if (!io_allowed()) {
    ++stats_.io_errors;
    return error_code;
  }
  try {
    return body();
  } catch (...) {  // forced_unwind (or anything else) must not cross SQLite's C frames
    pending_unwind_ = std::current_exception();
    shut_off_ = true;
    ++stats_.io_errors;
    return error_code;
  }
}

// The checksum stored in the last 8 bytes of database page `page_no` (1-based), over the rest.
uint64_t page_checksum(const unsigned char* page, uint32_t page_bytes, uint64_t page_no);

}  // namespace dst::backend
