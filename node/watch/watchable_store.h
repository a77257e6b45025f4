// etcd's watchable store: watchers over the MVCC store, fed live from every published revision
// and, when they are behind, from the store's history.
//
// Every watcher is in one of two groups:
// - synced: it has been given every event it wants up to the store's revision; the KvStore's
//   commit observer (notify) hands it each new revision's events as they are published.
// - unsynced: it still has to read history from `next_rev` on; sync_step() feeds it in bounded
//   steps and moves it to synced once it reaches the store's revision.
// A watcher joins unsynced when created at a past revision, when its stream's queue is full at a
// live revision (it catches up later instead of anything being dropped), and when the store is
// replaced by a snapshot (on_restore). Each watcher gets every wanted event exactly once, in
// revision order, and never a part of a revision.
//
// Responses go into a bounded queue per stream (stream_queue.h) that the server's sender fiber
// drains with pop(); the server fills in header cluster_id/member_id/raft_term.
//
// A pure data structure driven by calls: no clock, fiber or random source of its own. It reads the
// store (which may block on the backend); every method that reads finishes its reads before it
// changes any state and re-checks what it read against the state afterwards.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "base/bugs.h"
#include "base/status.h"
#include "node/mvcc/kv_store.h"
#include "node/watch/stream_queue.h"
#include "node/watch/watcher.h"
#include "node/watch/watcher_group.h"
#include "proto/etcd_rpc.pb.h"

namespace dst::watch {

// etcd's error strings (mvcc.ErrWatcherDuplicateID and friends); the server puts them into the
// cancel_reason of a created+canceled response.
inline constexpr char kErrWatcherDuplicateID[] = "mvcc: duplicate watch ID provided on the WatchStream";
inline constexpr char kErrEmptyWatcherRange[] = "mvcc: watcher range is empty";
inline constexpr char kErrWatcherNotExist[] = "mvcc: watcher does not exist";

struct WatchOptions {
  // The run's bugs (base/bugs.h), passed down unchanged. The store asks for three:
  // - kProgressNotifyAhead (etcd #15220, etcd 3.4's progress request): answered at once with the
  //   store's revision even while some watcher of the stream is still catching up, so the
  //   progress revision can be ahead of events the client has not been sent yet. Correct:
  //   answered once every watcher of the stream is synced.
  // - kWatchLostUnderStarvation (etcd #17529): a watcher whose stream queue is full loses the
  //   revision instead of catching up from the store later.
  // - kWatchTimeTravel (etcd #15271): when a snapshot replaces the store, a synced watcher catches
  //   up from the revision it had when it joined the synced group (etcd's minRev, which notify
  //   never advanced), not from where it already is: every event it was sent since then is sent
  //   again, going back in time.
  Bugs bugs;
};

// Gauges (watchers_*) and running totals, per stream and over the whole store.
struct WatchCounters {
  size_t watchers_synced = 0;
  size_t watchers_unsynced = 0;
  uint64_t responses_queued = 0;
  uint64_t responses_popped = 0;
  uint64_t events_queued = 0;       // events in the queued responses
  uint64_t overflows = 0;           // live revisions a full queue turned into catch-up
  uint64_t compaction_cancels = 0;  // watchers canceled because compaction overtook them
  uint64_t progress_responses = 0;  // progress_notify and progress-request answers
};

class WatchableStore {
 public:
  // Installs itself as `store`'s commit observer. The store must outlive this object or be
  // replaced through on_restore() first.
  explicit WatchableStore(mvcc::KvStore& store, WatchOptions options = {});
  ~WatchableStore();
  WatchableStore(const WatchableStore&) = delete;
  WatchableStore& operator=(const WatchableStore&) = delete;

  // `wake` is called when the stream's queue goes from empty to non-empty; it must not call into
  // the store.
  StreamId open_stream(std::function<void()> wake);
  // Cancels every watcher of the stream without a response and forgets its queue.
  void close_stream(StreamId stream);

  // Creates a watcher and queues its created ack (and, for a compacted start revision, its
  // cancel right after). Errors, in etcd's words where etcd has them: kAlreadyExists
  // (kErrWatcherDuplicateID), kInvalidArgument (kErrEmptyWatcherRange, negative id or revision),
  // kResourceExhausted (watcher limits or the stream's control budget), kNotFound (no stream).
  Result<int64_t> watch(StreamId stream, const etcdserverpb::WatchCreateRequest& request);
  // Removes the watcher and queues {watch_id, canceled, header.revision}. Its responses queued
  // before stay queued ahead of the cancel. kNotFound (kErrWatcherNotExist) for an unknown id.
  Status cancel(StreamId stream, int64_t watch_id);
  // Queues {watch_id = -1, header.revision} once no watcher of the stream is catching up (at
  // once with the progress-notify-ahead bug). Requests waiting together are answered by one response.
  Status request_progress(StreamId stream);
  // For every synced progress_notify watcher with nothing queued: {watch_id, header.revision}.
  void progress_notify_tick();

  // The KvStore observer: revision `rev` was published with `events`.
  void notify(const std::vector<mvccpb::Event>& events, int64_t rev);
  // One bounded catch-up step for the unsynced watchers (see the file comment). Returns whether
  // calling it again now would make progress: some unsynced watcher has queue room. Errors
  // reading the store leave everything as it was and return false (the periodic call retries).
  bool sync_step();

  // The next response of the stream, in order; nullopt when the queue is empty or the stream is
  // unknown.
  std::optional<etcdserverpb::WatchResponse> pop(StreamId stream);

  // The store was replaced wholesale (a raft snapshot was installed): every synced watcher
  // catches up from the new store; watchers whose next revision it has compacted are canceled.
  // The old store is not touched (it may be gone); if it lives on, its commits are ignored.
  void on_restore(mvcc::KvStore& store);

  WatchCounters counters() const;
  WatchCounters stream_counters(StreamId stream) const;
  size_t queued(StreamId stream) const;
  size_t watchers() const { return watchers_total_; }

 private:
  struct Stream {
    explicit Stream(std::function<void()> wake) : queue(std::move(wake)) {}
    StreamQueue queue;
    std::map<int64_t, Watcher> watchers;  // by watch id
    int64_t next_auto_id = 0;
    size_t unsynced = 0;
    bool progress_requested = false;
    WatchCounters counters;  // watchers_* gauges are computed, not kept here
  };
  // prev_kv per event index of one batch of events (absent: the key did not exist just before,
  // or that revision is compacted).
  using PrevKvs = std::map<size_t, mvccpb::KeyValue>;

  void observe();  // installs notify() as the current store's observer
  Stream* find_stream(StreamId stream);
  Watcher* find(WatcherRef ref);
  Status check_room_for_watcher(const Stream& st) const;
  int64_t next_watch_id(Stream& st, int64_t requested);
  Watcher& add_watcher(StreamId stream, Stream& st, const etcdserverpb::WatchCreateRequest& request, int64_t id);
  void remove_watcher(Stream& st, Watcher& w);
  void move_to_unsynced(Stream& st, Watcher& w, int64_t next_rev);
  void move_to_synced(Stream& st, Watcher& w);

  // Queueing, with the counters.
  void queue_events(Stream& st, Watcher& w, etcdserverpb::WatchResponse response);
  void queue_control(Stream& st, uint64_t serial, etcdserverpb::WatchResponse response);
  etcdserverpb::WatchResponse control_response(int64_t watch_id) const;
  bool control_room(const Stream& st, size_t extra) const;
  void answer_progress_if_ready(Stream& st);
  void cancel_compacted(Stream& st, Watcher& w);

  // Live path (watchable_store_notify.cc).
  std::map<WatcherRef, std::vector<size_t>> match_synced(const std::vector<mvccpb::Event>& events, int64_t rev);
  void deliver_live(WatcherRef ref, const std::vector<size_t>& indexes, const std::vector<mvccpb::Event>& events,
                    const PrevKvs& prev, const std::set<size_t>& prev_failed, int64_t rev);

  // Reads prev_kv (the key at revision - 1) for `wanted` event indexes; indexes whose read failed
  // go to `failed`. May block on the backend.
  PrevKvs read_prev_kvs(const std::vector<mvccpb::Event>& events, const std::set<size_t>& wanted,
                        std::set<size_t>* failed);

  // Catch-up path (watchable_store_sync.cc).
  void cancel_compacted_unsynced();
  void promote_caught_up();
  std::optional<int64_t> sync_from() const;
  std::set<size_t> wanted_prev_kvs(const std::vector<mvccpb::Event>& events, int64_t to);
  // Gives the watcher its events of [from, to] as far as its queue allows; `prev_read` are the
  // event indexes whose prev_kv was read.
  void catch_up(WatcherRef ref, const std::vector<mvccpb::Event>& events, const PrevKvs& prev,
                const std::set<size_t>& prev_read, int64_t from, int64_t to);
  bool unsynced_with_room() const;

  mvcc::KvStore* store_;
  WatchOptions options_;
  std::map<StreamId, Stream> streams_;
  StreamId next_stream_ = 1;
  uint64_t next_serial_ = 1;
  WatcherGroup synced_;
  std::set<WatcherRef> unsynced_;
  size_t watchers_total_ = 0;
  // The newest revision notify() has seen (or the store's revision when attached): every synced
  // watcher has been given every wanted event up to it.
  int64_t last_rev_ = 0;
  // Bumped by on_restore, so a method that blocked reading the old store drops what it read.
  uint64_t epoch_ = 0;
  WatchCounters totals_;
};

}  // namespace dst::watch
