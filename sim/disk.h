// One simulated disk: files whose written bytes sit in a page cache until fsync makes them durable.
//
// This is the data model only; it never blocks. The Simulator wraps it for fibers (sim/file_system.h):
// a fiber's fsync asks schedule_fsync() when the device will be done, sleeps until then, and calls
// complete_fsync(). Keeping the model free of time and fibers lets its crash semantics be tested
// directly.
//
// Crash semantics (what survives a power loss, crash()):
// - File data: every write/truncate is an operation pending on its file until an fsync of that file
//   that began after it completes. A crash keeps the durable content; with `torn`, it also keeps a
//   random prefix of each file's pending operations, the last of which may be cut at a sector
//   boundary (limits::kDiskSectorBytes), as a real disk tears a multi-sector write.
// - Names: create, rename and remove are pending until sync_dir() (strict POSIX: an fsync of a file
//   does not persist its directory entry). A crash restores the durable namespace; with `torn`, a
//   random prefix of the pending namespace operations survives.
// - A failed fsync (fault) returns kIoError and, like Linux after an fsync error, forgets the
//   writes it covered: they stay readable in the cache but will never become durable unless written
//   again ("fsyncgate").
//
// Inode lifetime: a FileId keeps working after its name is removed or renamed over, as long as the
// inode is still referenced by the durable namespace or by a pending namespace operation (a crash
// could still bring it back). Once it is referenced by neither namespace (after sync_dir() or a
// crash) it is freed, its space is released, and every operation on its FileId returns kNotFound.
// There is no close(), so an unlinked-but-open file does not outlive the next sync_dir(): a user
// that needs POSIX delete-on-close must remove the name when it closes the file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace dst::sim {

// Names an inode; stable across renames, never reused within one Disk.
using FileId = uint64_t;

struct DiskConfig {
  uint64_t capacity_bytes;        // writes that would grow usage beyond it fail with kNoSpace
  DurationDist fsync_latency;     // time the device needs per fsync (fsyncs are serialized)
  DurationDist read_latency;      // time per read that misses nothing (we model no cache misses)
  DiskConfig();                   // 4 GiB, fsync lognormal(median 2ms), read constant 0
};

struct DiskStats {
  uint64_t bytes_written = 0;   // bytes passed to write()
  uint64_t bytes_read = 0;
  uint64_t fsyncs = 0;          // completed fsyncs, successful or not
  uint64_t fsync_errors = 0;
  uint64_t sync_dirs = 0;
  uint64_t crashes = 0;
  uint64_t no_space_errors = 0;
  uint64_t bits_flipped = 0;
};

enum class OpenMode {
  kExisting,         // kNotFound if the name does not exist
  kCreate,           // open, creating an empty file if the name does not exist
  kCreateExclusive,  // kAlreadyExists if the name exists
};

// What an in-progress fsync covers: the pending operations of `file` up to `op_seq`.
struct FsyncTicket {
  FileId file = 0;
  uint64_t op_seq = 0;
};

class Disk {
 public:
  Disk(DiskConfig config, Rng rng);

  // --- names (pending until sync_dir) ---
  Result<FileId> open(std::string_view name, OpenMode mode);
  Status remove(std::string_view name);
  // Atomically replaces `to` if it exists.
  Status rename(std::string_view from, std::string_view to);
  bool exists(std::string_view name) const;
  // Names starting with `prefix`, sorted.
  std::vector<std::string> list(std::string_view prefix = "") const;

  // --- data (cached until fsync) ---
  // Reads up to `length` bytes at `offset`; fewer at end of file; empty past it.
  Result<std::string> read(FileId file, uint64_t offset, uint64_t length);
  // Writes at `offset`, extending the file (a hole reads as zeros). kNoSpace when full;
  // kResourceExhausted when the file has limits::kDiskPendingOpsPerFileMax unsynced operations.
  // An empty write changes nothing and records no operation.
  Status write(FileId file, uint64_t offset, std::string_view data);
  Status truncate(FileId file, uint64_t size);
  Result<uint64_t> size(FileId file) const;

  // --- durability ---
  // The device's completion time for an fsync issued at `now`: fsyncs queue behind each other.
  TimeNs schedule_fsync(TimeNs now);
  TimeNs schedule_read(TimeNs now);
  FsyncTicket begin_fsync(FileId file) const;
  // Makes the ticket's operations durable, or fails (fault) and forgets them (see top of file).
  // kNotFound if the file was freed meanwhile (its data can no longer matter).
  Status complete_fsync(const FsyncTicket& ticket);
  // Makes all pending namespace operations durable.
  void sync_dir();
  // Power loss: reverts to the durable state (see top of file); the disk stays usable afterwards.
  // Injected faults (fail_fsyncs, set_full) persist across it; so does the device queue.
  void crash(bool torn);

  // The device is lost and an empty one takes its place (a machine whose disk died, in a
  // disaster): no file survives, and injected fsync errors and a full disk go with the old
  // device; the configuration (capacity, fsync and read latencies, as a fault may have set them)
  // stays, as the machine's. Only while no process of the host has a file open (the world kills
  // them first).
  void replace();

  // --- faults ---
  // The next `count` fsyncs fail; with `count` < 0 every fsync fails until cleared with 0.
  void fail_fsyncs(int64_t count);
  void set_fsync_latency(DurationDist dist);
  const DurationDist& fsync_latency() const { return config_.fsync_latency; }
  void set_read_latency(DurationDist dist);
  // Disk full: every write that grows usage fails with kNoSpace until cleared.
  void set_full(bool full);
  void set_capacity(uint64_t capacity_bytes);
  // Flips `bits` random bits within [offset, offset+length) of the file, in both the cached and the
  // durable content (the medium itself decayed). kInvalidArgument if the range is outside the file.
  // The bits are distinct, so exactly `bits` bits change in the cached content; in the durable
  // content only those that lie within its (possibly shorter) length. Pending writes are not
  // altered: a later fsync of a pending write over the range makes the durable bytes good again.
  Status flip_bits(std::string_view name, uint64_t offset, uint64_t length, int bits);

  // --- inspection ---
  uint64_t used_bytes() const;  // sum of current file sizes
  const DiskStats& stats() const { return stats_; }
  const DiskConfig& config() const { return config_; }
  // Durable content of a name as a crash right now would leave it without tearing (for tests and
  // durability checkers); kNotFound if the name is not durable.
  Result<std::string> durable_content(std::string_view name) const;
  // Digest of the whole current state (names and contents), for trace hashing and tests.
  uint64_t digest() const;

 private:
  struct PendingOp {
    uint64_t seq;
    bool is_truncate;
    uint64_t offset;   // write offset, or truncate size
    std::string data;  // written bytes (empty for truncate)
  };
  struct Inode {
    std::string current;  // what reads see
    std::string durable;  // what survives a crash
    std::vector<PendingOp> pending;  // ops applied to `current` but not yet to `durable`
    uint64_t next_op_seq = 1;  // never reset, so a ticket from before a crash covers no new op
    // hash_bytes(current), computed lazily by digest(); digest() may run on every traced event and
    // files can be large, so only changed files are rehashed.
    mutable uint64_t current_hash = 0;
    mutable bool current_hash_valid = false;
  };
  using NameMap = std::map<std::string, FileId, std::less<>>;
  struct NamespaceOp {
    enum class Kind { kLink, kUnlink } kind;  // rename = unlink(from) + link(to)
    std::string name;
    FileId file;  // the inode linked, or the inode the name referred to when unlinked
    // Set on a rename's unlink: a torn crash never cuts between it and the following link, since
    // journaling file systems make rename atomic (the target never vanishes).
    bool atomic_with_next = false;
  };

  Inode* find_inode(FileId file);
  const Inode* find_inode(FileId file) const;
  // "file 7 \"wal/0.wal\"" (or "file 7 (unlinked)"), for error messages.
  std::string describe_file(FileId file) const;
  // kResourceExhausted if `count` more namespace operations would exceed the pending bound.
  Status reserve_namespace_ops(size_t count) const;
  // kNoSpace (counted in stats) if growing a file from `old_size` to `new_size` is not allowed.
  Status check_space(uint64_t old_size, uint64_t new_size);
  void set_current_size(Inode& inode, uint64_t size);
  static void apply_op(std::string& content, const PendingOp& op);
  static void apply_namespace_op(NameMap& names, const NamespaceOp& op);
  // Applies a random sector-aligned prefix (possibly empty, never all) of a write (torn crash).
  void apply_torn_write(std::string& content, const PendingOp& op);
  void crash_names(bool torn);
  void crash_inode(Inode& inode, bool torn);
  void free_unreachable_inodes();
  void check_invariants() const;

  DiskConfig config_;
  Rng rng_;
  DiskStats stats_;
  std::map<FileId, Inode> inodes_;
  NameMap names_;          // current namespace
  NameMap durable_names_;  // namespace after a crash
  // Applied to names_ already, to durable_names_ at sync_dir(): names_ is always durable_names_
  // with these replayed in order.
  std::vector<NamespaceOp> pending_names_;
  FileId next_file_id_ = 1;
  TimeNs device_busy_until_ = 0;
  int64_t fsyncs_to_fail_ = 0;
  bool full_ = false;
  uint64_t used_bytes_ = 0;  // sum of current sizes of all inodes, kept incrementally
};

}  // namespace dst::sim
