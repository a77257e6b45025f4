// The MVCC key-value store (etcd's mvcc.store): revisions over the backend, the in-memory index of
// every key's history, reads at any revision not yet compacted, and write transactions that each
// take one new main revision.
//
// Backend layout (bucket "key"): revision bytes (revision.h) -> serialized mvccpb.KeyValue; a
// deletion is stored under its revision with the tombstone mark and a KeyValue holding only the key.
// Bucket "meta": the compaction progress ("scheduledCompactRev", "finishedCompactRev"), so a
// compaction interrupted by a crash is finished on the next open.
//
// Not thread-safe; used from the node's apply fiber (and reads from the request fibers of the same
// process, which the simulator never runs concurrently).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/bugs.h"
#include "base/status.h"
#include "node/backend/backend.h"
#include "node/mvcc/tree_index.h"
#include "proto/etcd_kv.pb.h"

namespace dst::mvcc {

// etcd's error strings (mvcc.ErrCompacted / ErrFutureRev), as the server prefixes them with
// "etcdserver: " in responses.
inline constexpr char kErrCompacted[] = "mvcc: required revision has been compacted";
inline constexpr char kErrFutureRev[] = "mvcc: required revision is a future revision";
// A read that was blocked in the backend while a Raft snapshot replaced the store (kUnavailable):
// the caller retries on the new store.
inline constexpr char kErrStoreReplaced[] = "mvcc: store replaced by a snapshot during the read";

// The store's buckets and its meta keys (etcd's names), and the meta values' encoding (8 bytes,
// big endian): for code that reads or writes a store's image outside a live store
// (node/server/snapshot_file.h).
inline constexpr std::string_view kKeyBucket = "key";
inline constexpr std::string_view kMetaBucket = "meta";
inline constexpr std::string_view kScheduledCompactKey = "scheduledCompactRev";
inline constexpr std::string_view kFinishedCompactKey = "finishedCompactRev";
std::string encode_i64(int64_t v);
// kCorruption unless exactly 8 bytes.
Result<int64_t> decode_i64(std::string_view s);

// Told about every published revision: the transaction's changes in order (puts: the full
// KeyValue; deletions: DELETE with a KeyValue of only key and mod_revision, as etcd's watch sends
// them) and the new revision. The watchable store is the one observer.
using CommitObserver = std::function<void(const std::vector<mvccpb::Event>& events, int64_t rev)>;

struct RangeOptions {
  int64_t limit = 0;    // 0: no limit
  int64_t rev = 0;      // 0: the current revision
  bool count_only = false;
};

struct RangeResult {
  std::vector<mvccpb::KeyValue> kvs;
  int64_t count = 0;  // every matching key, regardless of the limit
  int64_t rev = 0;    // the store's current revision (etcd answers with it, not the read revision)
};

class KvStore;

// Whether a write reads the previous value of what it replaces. etcd's own puts and deletes touch
// only the index (a prev_kv is a separate range); reading a value from the backend that nobody asked
// for was a fifth of the apply path at 1,000 QPS (issue 23).
enum class Prev { kSkip, kRead };

// One write transaction: every change gets main revision begin+1 and sub revisions 0, 1, 2...;
// reads inside it see its own earlier changes. end() publishes the revision.
class WriteTxn {
 public:
  WriteTxn(WriteTxn&& other) noexcept
      : store_(std::exchange(other.store_, nullptr)),
        begin_rev_(other.begin_rev_),
        events_(std::move(other.events_)),
        ended_(other.ended_) {}
  WriteTxn& operator=(WriteTxn&&) = delete;
  ~WriteTxn();

  Result<RangeResult> range(const std::string& key, const std::string& end, const RangeOptions& options);
  // Returns the key's previous value if it had one (with Prev::kSkip: never).
  Result<std::optional<mvccpb::KeyValue>> put(const std::string& key, const std::string& value, int64_t lease,
                                              Prev prev = Prev::kRead);
  // Deletes every key of the range alive now; returns them as they were (with Prev::kSkip: only
  // their keys and mod revisions, in the same order).
  Result<std::vector<mvccpb::KeyValue>> delete_range(const std::string& key, const std::string& end,
                                                     Prev prev = Prev::kRead);
  // The revision reads in this transaction see: the start revision, +1 once it changed anything.
  int64_t rev() const { return read_rev(); }
  // The changes so far: puts (full KeyValue) and deletions (key and mod_revision only).
  const std::vector<mvccpb::Event>& events() const { return events_; }
  // Publishes the new revision if anything changed; returns the store's revision afterwards.
  int64_t end();

 private:
  friend class KvStore;
  explicit WriteTxn(KvStore& store);
  int64_t read_rev() const;

  KvStore* store_;
  int64_t begin_rev_;
  std::vector<mvccpb::Event> events_;
  bool ended_ = false;
};

// Fault points in the compaction path (backend::FaultHook; the node's names for them): after
// scheduledCompactRev is written and the index compacted, and before and after each batch of
// backend deletions (the last batch is followed by finishedCompactRev). Passed by compact() and by
// open() when it finishes an interrupted compaction.
inline constexpr std::string_view kFaultAfterCompactionScheduled = "after-compaction-scheduled";
inline constexpr std::string_view kFaultBeforeCompactionBatch = "before-compaction-batch";
inline constexpr std::string_view kFaultAfterCompactionBatch = "after-compaction-batch";

struct StoreOptions {
  // The run's bugs (base/bugs.h), passed down unchanged. The store asks for two:
  // - kWatchDropAtCompaction (etcd #18089 / #19179): compaction also removes the tombstone at the
  //   compaction revision itself, so a watcher catching up from exactly there loses that delete.
  // - kCompactionRevisionDecrease (etcd #17780), with the two behaviours of etcd's store that made
  //   it possible (ours has neither): compaction removes the tombstone at the compaction revision
  //   itself, as etcd's did before #18274 (when that deletion is the newest revision, the key
  //   bucket's newest row is gone); each batch of compaction deletions is committed at once,
  //   before finishedCompactRev is written, as etcd force-commits every full batch (so a crash
  //   can leave the deletion durable and the compaction unfinished). The bug itself: restore()
  //   takes the current revision from the newest key row and finishedCompactRev only, ignoring
  //   scheduledCompactRev (etcd's fix raises it to scheduledCompactRev), so after such a crash
  //   the member reopens at a lower revision (the unfinished compaction, now at a future
  //   revision, is dropped as etcd's failed) and gives already-used revisions to the next writes.
  Bugs bugs;
};

class KvStore {
 public:
  // Rebuilds the index from the backend and finishes an interrupted compaction. `fault_hook` (may
  // be empty) is called at the compaction fault points above and may never return.
  static Result<std::unique_ptr<KvStore>> open(backend::Backend& backend, backend::FaultHook fault_hook = {},
                                               StoreOptions options = {});

  int64_t rev() const { return current_rev_; }
  // The revision of the last compaction; -1 before any (as etcd's compactMainRev: a compaction to
  // revision 0 is then allowed, and etcd's HashKV reports -1).
  int64_t compact_rev() const { return compact_rev_; }

  // A read outside any write (etcd's read transaction). kOutOfRange-style errors carry etcd's
  // strings: kErrCompacted, kErrFutureRev.
  Result<RangeResult> range(const std::string& key, const std::string& end, const RangeOptions& options);
  WriteTxn write() { return WriteTxn(*this); }

  // Forgets every revision older than `rev` that no read at >= rev can see, in the index and in
  // the backend. Every backend row of revision `rev` itself stays (until a later compaction), so
  // that history(.., rev, ..) still returns the whole revision: a watcher may resume at exactly
  // the compaction revision, and a deletion at it must reach that watcher (etcd #18089, #19179,
  // where the tombstone was dropped and such watchers silently missed the delete). kErrCompacted if rev <= compact_rev(), kErrFutureRev if rev > rev().
  Status compact(int64_t rev);
  // Every change to keys of the range (in_range convention) with main revision in
  // [from_rev, to_rev], in revision order, read from the backend (what a watcher replays).
  // Deletions come as DELETE events holding only key and mod_revision. kErrCompacted if
  // from_rev < compact_rev(); kErrFutureRev if to_rev > rev(); kInvalidArgument for a span wider
  // than limits::kWatchSyncRevisionsMax (one call's work stays bounded).
  Result<std::vector<mvccpb::Event>> history(const std::string& key, const std::string& end, int64_t from_rev,
                                             int64_t to_rev);
  // Installs (or, with nullptr, removes) the observer WriteTxn::end() calls after publishing a new
  // revision. The observer may read the store but must not start a write.
  void set_observer(CommitObserver observer) { observer_ = std::move(observer); }
  // A digest of every key's state at `rev` (member agreement: equal on every member at the same
  // revision).
  Result<uint64_t> hash_at(int64_t rev);
  // etcd's HashKV (mvcc HashByRev in 3.4): a CRC-32C over the name of the key bucket, then the
  // backend key and value of every revision <= rev (0: the current one), where a revision at or
  // below the compaction counts only if a compaction at rev would keep it. So it equals a real
  // etcd's for the same history. kErrCompacted if 0 < rev <= compact_rev(), kErrFutureRev if rev > rev().
  Result<uint32_t> etcd_hash_kv(int64_t rev);

  const TreeIndex& index() const { return index_; }
  // The store was replaced by a snapshot's (its backend now holds another state): reads still in
  // progress fail with kErrStoreReplaced instead of reading the new rows through the old index.
  void retire() { retired_ = true; }
  bool retired() const { return retired_; }
  backend::Backend& backend() { return backend_; }

 private:
  friend class WriteTxn;
  explicit KvStore(backend::Backend& backend) : backend_(backend) {}
  Status restore();
  Result<RangeResult> range_at(const std::string& key, const std::string& end, const RangeOptions& options,
                               int64_t read_rev);
  Result<mvccpb::KeyValue> fetch(Revision rev);
  Status finish_compaction(int64_t rev);
  void fault(std::string_view point) {
    if (fault_hook_) fault_hook_(point);
  }

  backend::Backend& backend_;
  backend::FaultHook fault_hook_;
  StoreOptions options_;
  TreeIndex index_;
  int64_t current_rev_ = 1;  // etcd starts at revision 1 with an empty store
  int64_t compact_rev_ = -1;
  bool write_open_ = false;
  bool retired_ = false;
  CommitObserver observer_;
};

}  // namespace dst::mvcc
