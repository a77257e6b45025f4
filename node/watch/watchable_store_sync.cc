// The catch-up path (etcd's syncWatchers): one step reads at most kWatchSyncRevisionsMax revisions
// of history, once for all unsynced watchers, starting at the smallest revision one of them still
// needs, and hands each watcher its events in responses that never split a revision.
#include <algorithm>
#include <limits>

#include "base/assert.h"
#include "base/limits.h"
#include "base/probes.h"
#include "node/watch/watchable_store.h"

namespace dst::watch {

namespace {

const std::string kAllKeys(1, '\0');

int64_t rev_of(const mvccpb::Event& ev) { return ev.kv().mod_revision(); }

// The first event at or after `rev` (events are in revision order).
size_t first_at(const std::vector<mvccpb::Event>& events, int64_t rev) {
  auto it = std::lower_bound(events.begin(), events.end(), rev,
                             [](const mvccpb::Event& ev, int64_t r) { return rev_of(ev) < r; });
  return static_cast<size_t>(it - events.begin());
}

}  // namespace

void WatchableStore::cancel_compacted_unsynced() {
  const std::vector<WatcherRef> refs(unsynced_.begin(), unsynced_.end());
  for (const WatcherRef& ref : refs) {
    Watcher* w = find(ref);
    DST_ASSERT(w && !w->synced);
    if (w->next_rev < store_->compact_rev()) cancel_compacted(*find_stream(ref.stream), *w);
  }
}

void WatchableStore::promote_caught_up() {
  const std::vector<WatcherRef> refs(unsynced_.begin(), unsynced_.end());
  for (const WatcherRef& ref : refs) {
    Watcher* w = find(ref);
    if (w->next_rev > store_->rev()) move_to_synced(*find_stream(ref.stream), *w);
  }
}

std::optional<int64_t> WatchableStore::sync_from() const {
  std::optional<int64_t> from;
  for (const WatcherRef& ref : unsynced_) {
    const Stream& st = streams_.at(ref.stream);
    if (!st.queue.event_room()) continue;  // nothing could be given to it now
    int64_t next = st.watchers.at(ref.id).next_rev;
    if (!from || next < *from) from = next;
  }
  return from;
}

bool WatchableStore::unsynced_with_room() const {
  return std::any_of(unsynced_.begin(), unsynced_.end(),
                     [&](const WatcherRef& ref) { return streams_.at(ref.stream).queue.event_room(); });
}

std::set<size_t> WatchableStore::wanted_prev_kvs(const std::vector<mvccpb::Event>& events, int64_t to) {
  std::set<size_t> wanted;
  for (const WatcherRef& ref : unsynced_) {
    const Watcher* w = find(ref);
    if (!w->prev_kv || w->next_rev > to || !streams_.at(ref.stream).queue.event_room()) continue;
    for (size_t i = first_at(events, w->next_rev); i < events.size(); ++i) {
      if (w->wants(events[i])) wanted.insert(i);
    }
  }
  return wanted;
}

bool WatchableStore::sync_step() {
  cancel_compacted_unsynced();
  promote_caught_up();
  std::optional<int64_t> from = sync_from();
  if (!from) {
    for (auto& [sid, st] : streams_) answer_progress_if_ready(st);
    return false;
  }
  const int64_t to = std::min(store_->rev(), *from + limits::kWatchSyncRevisionsMax - 1);
  const uint64_t epoch = epoch_;
  // The reads below may block; watchers may come, go or change group meanwhile, so catch_up
  // re-checks each one against what was read.
  auto events = store_->history("", kAllKeys, *from, to);
  if (!events.is_ok()) {
    // Compacted since the check above: the next step cancels whom it overtook.
    return events.status().code() == StatusCode::kOutOfRange;
  }
  const std::set<size_t> wanted = wanted_prev_kvs(*events, to);
  std::set<size_t> failed;
  PrevKvs prev = read_prev_kvs(*events, wanted, &failed);
  if (epoch != epoch_) return true;  // replaced by a snapshot: start over from the new store
  if (!failed.empty()) return false;
  const std::vector<WatcherRef> refs(unsynced_.begin(), unsynced_.end());
  for (const WatcherRef& ref : refs) catch_up(ref, *events, prev, wanted, *from, to);
  for (auto& [sid, st] : streams_) answer_progress_if_ready(st);
  return unsynced_with_room();
}

void WatchableStore::catch_up(WatcherRef ref, const std::vector<mvccpb::Event>& events, const PrevKvs& prev,
                              const std::set<size_t>& prev_read, int64_t from, int64_t to) {
  Watcher* w = find(ref);
  if (!w || w->synced || w->next_rev < from || w->next_rev > to) return;
  Stream& st = *find_stream(ref.stream);
  const size_t begin = first_at(events, w->next_rev);
  std::vector<size_t> mine;
  for (size_t i = begin; i < events.size(); ++i) {
    if (!w->wants(events[i])) continue;
    // Came in while prev_kvs were read: its prev_kvs were not; the next step reads them.
    if (w->prev_kv && !prev_read.count(i)) return;
    mine.push_back(i);
  }
  if (w->prev_kv && !mine.empty()) DST_PROBE(kWatchPrevKvOnCatchUp);
  etcdserverpb::WatchResponse pending;
  auto flush = [&]() {
    if (pending.events_size() == 0) return true;
    if (!st.queue.event_room()) {
      DST_PROBE(kWatchCatchUpQueueFull);
      w->next_rev = rev_of(pending.events(0));  // the first revision not given to it
      return false;
    }
    w->next_rev = rev_of(pending.events(pending.events_size() - 1)) + 1;
    pending.mutable_header()->set_revision(store_->rev());  // etcd: the store's revision now
    pending.set_watch_id(ref.id);
    queue_events(st, *w, std::exchange(pending, {}));
    return true;
  };
  for (size_t k = 0; k < mine.size(); ++k) {
    const mvccpb::Event& ev = events[mine[k]];
    mvccpb::Event* out = pending.add_events();
    *out = ev;
    if (auto p = prev.find(mine[k]); w->prev_kv && p != prev.end()) *out->mutable_prev_kv() = p->second;
    // Close at a revision boundary once big enough: never split a revision.
    bool boundary = k + 1 == mine.size() || rev_of(events[mine[k + 1]]) != rev_of(ev);
    if (boundary && static_cast<size_t>(pending.events_size()) >= limits::kWatchResponseEventsSoft) {
      if (!flush()) return;
    }
  }
  if (!flush()) return;
  w->next_rev = to + 1;
  if (w->next_rev > store_->rev()) move_to_synced(st, *w);
}

}  // namespace dst::watch
