// Streams, watcher creation and cancellation, progress, the queue, restore and counters. The live
// path is in watchable_store_notify.cc, the catch-up path in watchable_store_sync.cc.
#include "node/watch/watchable_store.h"

#include "base/assert.h"
#include "base/limits.h"
#include "base/probes.h"

namespace dst::watch {

WatchableStore::WatchableStore(mvcc::KvStore& store, WatchOptions options)
    : store_(&store), options_(options), last_rev_(store.rev()) {
  observe();
}

void WatchableStore::observe() {
  // A store replaced by on_restore may live on (the caller owns it) and still call its observer:
  // only the current epoch's store feeds the watchers.
  store_->set_observer([this, epoch = epoch_](const std::vector<mvccpb::Event>& events, int64_t rev) {
    if (epoch == epoch_) notify(events, rev);
  });
}

WatchableStore::~WatchableStore() { store_->set_observer(nullptr); }

// --- streams and watchers ------------------------------------------------------------------------

StreamId WatchableStore::open_stream(std::function<void()> wake) {
  StreamId id = next_stream_++;
  streams_.emplace(id, Stream(std::move(wake)));
  return id;
}

void WatchableStore::close_stream(StreamId stream) {
  Stream* st = find_stream(stream);
  if (!st) return;
  // Bounded by kWatchersPerStreamMax.
  while (!st->watchers.empty()) remove_watcher(*st, st->watchers.begin()->second);
  streams_.erase(stream);
}

WatchableStore::Stream* WatchableStore::find_stream(StreamId stream) {
  auto it = streams_.find(stream);
  return it == streams_.end() ? nullptr : &it->second;
}

Watcher* WatchableStore::find(WatcherRef ref) {
  Stream* st = find_stream(ref.stream);
  if (!st) return nullptr;
  auto it = st->watchers.find(ref.id);
  return it == st->watchers.end() ? nullptr : &it->second;
}

Status WatchableStore::check_room_for_watcher(const Stream& st) const {
  if (st.watchers.size() >= limits::kWatchersPerStreamMax) {
    return Status(StatusCode::kResourceExhausted, "too many watchers on one watch stream");
  }
  if (watchers_total_ >= limits::kWatchersMax) {
    return Status(StatusCode::kResourceExhausted, "too many watchers on this member");
  }
  // A created ack now, and a cancel at the end (at once for a compacted start).
  if (!control_room(st, 2)) {
    return Status(StatusCode::kResourceExhausted, "watch stream's control responses not read by its client");
  }
  return Status::ok();
}

bool WatchableStore::control_room(const Stream& st, size_t extra) const {
  return st.queue.control_queued() + st.watchers.size() + extra <= kControlBudget;
}

int64_t WatchableStore::next_watch_id(Stream& st, int64_t requested) {
  if (requested != 0) return requested;
  // etcd's auto ids: the stream's counter, skipping ids a client chose itself. Bounded by the
  // number of watchers on the stream.
  while (st.watchers.count(st.next_auto_id)) ++st.next_auto_id;
  return st.next_auto_id++;
}

Result<int64_t> WatchableStore::watch(StreamId stream, const etcdserverpb::WatchCreateRequest& request) {
  Stream* st = find_stream(stream);
  if (!st) return Status(StatusCode::kNotFound, "watch stream " + std::to_string(stream) + " is closed");
  const std::string& end = request.range_end();
  if (!end.empty() && end != std::string(1, '\0') && request.key() >= end) {
    return Status(StatusCode::kInvalidArgument, kErrEmptyWatcherRange);
  }
  if (request.watch_id() < 0 || request.start_revision() < 0) {
    return Status(StatusCode::kInvalidArgument, "negative watch id or start revision");
  }
  if (request.watch_id() != 0 && st->watchers.count(request.watch_id())) {
    return Status(StatusCode::kAlreadyExists, kErrWatcherDuplicateID);
  }
  if (Status room = check_room_for_watcher(*st); !room.is_ok()) return room;
  const int64_t id = next_watch_id(*st, request.watch_id());

  etcdserverpb::WatchResponse created = control_response(id);
  created.set_created(true);
  queue_control(*st, 0, std::move(created));
  if (request.start_revision() > 0 && request.start_revision() < store_->compact_rev()) {
    // Like etcd: acknowledged, then canceled with the compaction revision; the watcher is gone.
    etcdserverpb::WatchResponse canceled;
    canceled.set_watch_id(id);
    canceled.set_canceled(true);
    canceled.set_compact_revision(store_->compact_rev());
    queue_control(*st, 0, std::move(canceled));
    ++st->counters.compaction_cancels;
    ++totals_.compaction_cancels;
    DST_PROBE(kWatchCompactionCancel);
    return id;
  }
  add_watcher(stream, *st, request, id);
  return id;
}

Watcher& WatchableStore::add_watcher(StreamId stream, Stream& st, const etcdserverpb::WatchCreateRequest& request,
                                     int64_t id) {
  Watcher w;
  w.ref = WatcherRef{stream, id};
  w.serial = next_serial_++;
  w.key = request.key();
  w.end = request.range_end();
  for (int f : request.filters()) {
    if (f == etcdserverpb::WatchCreateRequest::NOPUT) w.filter_put = true;
    if (f == etcdserverpb::WatchCreateRequest::NODELETE) w.filter_delete = true;
  }
  w.prev_kv = request.prev_kv();
  w.progress_notify = request.progress_notify();
  // 0 is "from the next revision"; a start beyond it waits (synced, skipping older events).
  w.next_rev = request.start_revision() == 0 ? store_->rev() + 1 : request.start_revision();
  w.synced = w.next_rev > store_->rev();
  w.synced_from_rev = w.next_rev;
  Watcher& added = st.watchers.emplace(id, std::move(w)).first->second;
  ++watchers_total_;
  if (added.synced) {
    synced_.add(added);
  } else {
    unsynced_.insert(added.ref);
    ++st.unsynced;
  }
  return added;
}

void WatchableStore::remove_watcher(Stream& st, Watcher& w) {
  if (w.synced) {
    synced_.remove(w);
  } else {
    DST_ASSERT(unsynced_.erase(w.ref) == 1);
    --st.unsynced;
  }
  --watchers_total_;
  st.watchers.erase(w.ref.id);  // `w` dangles from here on
}

void WatchableStore::move_to_unsynced(Stream& st, Watcher& w, int64_t next_rev) {
  DST_ASSERT(w.synced);
  synced_.remove(w);
  w.synced = false;
  w.next_rev = next_rev;
  unsynced_.insert(w.ref);
  ++st.unsynced;
}

void WatchableStore::move_to_synced(Stream& st, Watcher& w) {
  DST_ASSERT(!w.synced);
  DST_ASSERT_GT(w.next_rev, store_->rev());
  DST_ASSERT(unsynced_.erase(w.ref) == 1);
  --st.unsynced;
  DST_PROBE(kWatchCaughtUp);
  w.synced = true;
  w.synced_from_rev = w.next_rev;
  synced_.add(w);
}

Status WatchableStore::cancel(StreamId stream, int64_t watch_id) {
  Stream* st = find_stream(stream);
  if (!st) return Status(StatusCode::kNotFound, "watch stream " + std::to_string(stream) + " is closed");
  auto it = st->watchers.find(watch_id);
  if (it == st->watchers.end()) return Status(StatusCode::kNotFound, kErrWatcherNotExist);
  remove_watcher(*st, it->second);
  etcdserverpb::WatchResponse canceled = control_response(watch_id);
  canceled.set_canceled(true);
  queue_control(*st, 0, std::move(canceled));  // fits: the watcher's own slot was just freed
  answer_progress_if_ready(*st);
  return Status::ok();
}

void WatchableStore::cancel_compacted(Stream& st, Watcher& w) {
  DST_ASSERT_LT(w.next_rev, store_->compact_rev());
  etcdserverpb::WatchResponse canceled;  // no header revision, as etcd sends it
  canceled.set_watch_id(w.ref.id);
  canceled.set_canceled(true);
  canceled.set_compact_revision(store_->compact_rev());
  remove_watcher(st, w);
  queue_control(st, 0, std::move(canceled));
  ++st.counters.compaction_cancels;
  ++totals_.compaction_cancels;
  DST_PROBE(kWatchCompactionCancel);
}

// --- queueing ------------------------------------------------------------------------------------

etcdserverpb::WatchResponse WatchableStore::control_response(int64_t watch_id) const {
  etcdserverpb::WatchResponse r;
  r.mutable_header()->set_revision(store_->rev());
  r.set_watch_id(watch_id);
  return r;
}

void WatchableStore::queue_events(Stream& st, Watcher& w, etcdserverpb::WatchResponse response) {
  const uint64_t events = static_cast<uint64_t>(response.events_size());
  st.queue.push_events(std::move(response), w.serial);
  ++w.queued;
  for (WatchCounters* c : {&st.counters, &totals_}) {
    ++c->responses_queued;
    c->events_queued += events;
  }
}

void WatchableStore::queue_control(Stream& st, uint64_t serial, etcdserverpb::WatchResponse response) {
  st.queue.push_control(std::move(response), serial);
  ++st.counters.responses_queued;
  ++totals_.responses_queued;
}

std::optional<etcdserverpb::WatchResponse> WatchableStore::pop(StreamId stream) {
  Stream* st = find_stream(stream);
  if (!st) return std::nullopt;
  std::optional<StreamQueue::Entry> e = st->queue.pop();
  if (!e) return std::nullopt;
  if (e->serial != 0) {
    auto it = st->watchers.find(e->response.watch_id());
    if (it != st->watchers.end() && it->second.serial == e->serial) {
      DST_ASSERT_GT(it->second.queued, 0u);
      --it->second.queued;
    }
  }
  ++st->counters.responses_popped;
  ++totals_.responses_popped;
  if (!e->carries_events) answer_progress_if_ready(*st);  // control budget freed
  return std::move(e->response);
}

// --- progress ------------------------------------------------------------------------------------

Status WatchableStore::request_progress(StreamId stream) {
  Stream* st = find_stream(stream);
  if (!st) return Status(StatusCode::kNotFound, "watch stream " + std::to_string(stream) + " is closed");
  st->progress_requested = true;
  answer_progress_if_ready(*st);
  return Status::ok();
}

void WatchableStore::answer_progress_if_ready(Stream& st) {
  if (!st.progress_requested) return;
  // Every watcher synced means every event up to the store's revision is queued ahead of this
  // answer, so its revision is never ahead of what the client has been sent.
  if (st.unsynced > 0 && !options_.bugs.on(Bug::kProgressNotifyAhead)) {
    DST_PROBE(kWatchProgressDeferred);
    return;
  }
  if (!control_room(st, 1)) return;
  st.progress_requested = false;
  queue_control(st, 0, control_response(-1));
  ++st.counters.progress_responses;
  ++totals_.progress_responses;
}

void WatchableStore::progress_notify_tick() {
  for (auto& [sid, st] : streams_) {
    for (auto& [id, w] : st.watchers) {
      // Synced: nothing up to the store's revision is still to come; nothing queued: its client
      // hears about the revision from the responses it is yet to read anyway.
      if (!w.progress_notify || !w.synced || w.queued > 0 || !control_room(st, 1)) continue;
      queue_control(st, w.serial, control_response(id));
      ++w.queued;
      ++st.counters.progress_responses;
      ++totals_.progress_responses;
    }
  }
}

// --- restore and counters ------------------------------------------------------------------------

void WatchableStore::on_restore(mvcc::KvStore& store) {
  // The old store may already be gone: never touch it.
  store_ = &store;
  ++epoch_;
  observe();
  for (auto& [sid, st] : streams_) {
    for (auto& [id, w] : st.watchers) {
      if (!w.synced) continue;
      // A synced watcher has every wanted event up to last_rev_, even if its next_rev lags (it
      // only moves on a match): resume after last_rev_, so an idle watcher is not mistaken for
      // one compaction overtook.
      DST_PROBE(kWatchRestoredFromSnapshot);
      synced_.remove(w);
      w.synced = false;
      w.next_rev = options_.bugs.on(Bug::kWatchTimeTravel) ? w.synced_from_rev : std::max(w.next_rev, last_rev_ + 1);
      unsynced_.insert(w.ref);
      ++st.unsynced;
    }
  }
  DST_ASSERT_EQ(synced_.size(), 0u);
  last_rev_ = store_->rev();
  cancel_compacted_unsynced();
}

WatchCounters WatchableStore::counters() const {
  WatchCounters c = totals_;
  c.watchers_synced = synced_.size();
  c.watchers_unsynced = unsynced_.size();
  return c;
}

WatchCounters WatchableStore::stream_counters(StreamId stream) const {
  auto it = streams_.find(stream);
  if (it == streams_.end()) return {};
  WatchCounters c = it->second.counters;
  c.watchers_unsynced = it->second.unsynced;
  c.watchers_synced = it->second.watchers.size() - it->second.unsynced;
  return c;
}

size_t WatchableStore::queued(StreamId stream) const {
  auto it = streams_.find(stream);
  return it == streams_.end() ? 0 : it->second.queue.size();
}

}  // namespace dst::watch
