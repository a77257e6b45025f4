// The live path: each published revision goes to the synced watchers that want some of its events,
// one response per watcher and revision, or, when a watcher's stream queue is full, the watcher
// drops back to catching up from the store at that revision.
#include "base/assert.h"
#include "base/probes.h"
#include "node/watch/watchable_store.h"

namespace dst::watch {

std::map<WatcherRef, std::vector<size_t>> WatchableStore::match_synced(const std::vector<mvccpb::Event>& events,
                                                                       int64_t rev) {
  std::map<WatcherRef, std::vector<size_t>> matches;
  for (size_t i = 0; i < events.size(); ++i) {
    synced_.visit(events[i].kv().key(), [&](WatcherRef ref) {
      const Watcher* w = find(ref);
      DST_ASSERT(w && w->synced);
      // A watcher waiting for a future start revision skips everything before it.
      if (rev >= w->next_rev && w->wants(events[i])) matches[ref].push_back(i);
    });
  }
  return matches;
}

WatchableStore::PrevKvs WatchableStore::read_prev_kvs(const std::vector<mvccpb::Event>& events,
                                                      const std::set<size_t>& wanted, std::set<size_t>* failed) {
  PrevKvs prev;
  for (size_t i : wanted) {
    const mvccpb::KeyValue& kv = events[i].kv();
    // etcd's prev_kv is the key as of the revision before the event's, if still readable.
    auto r = store_->range(kv.key(), "", mvcc::RangeOptions{.rev = kv.mod_revision() - 1});
    if (!r.is_ok()) {
      bool compacted = r.status().code() == StatusCode::kOutOfRange;
      if (!compacted) failed->insert(i);
      continue;
    }
    if (!r->kvs.empty()) prev.emplace(i, std::move(r->kvs.front()));
  }
  return prev;
}

void WatchableStore::notify(const std::vector<mvccpb::Event>& events, int64_t rev) {
  DST_ASSERT(!events.empty());
  DST_ASSERT_GT(rev, last_rev_);
  last_rev_ = rev;
  std::map<WatcherRef, std::vector<size_t>> matches = match_synced(events, rev);
  std::set<size_t> wanted;
  for (const auto& [ref, indexes] : matches) {
    if (find(ref)->prev_kv) wanted.insert(indexes.begin(), indexes.end());
  }
  const uint64_t epoch = epoch_;
  std::set<size_t> failed;
  PrevKvs prev = read_prev_kvs(events, wanted, &failed);  // may block: state may change meanwhile
  // Replaced meanwhile: every watcher is catching up from the new store instead.
  if (epoch != epoch_) return;
  for (const auto& [ref, indexes] : matches) deliver_live(ref, indexes, events, prev, failed, rev);
}

void WatchableStore::deliver_live(WatcherRef ref, const std::vector<size_t>& indexes,
                                  const std::vector<mvccpb::Event>& events, const PrevKvs& prev,
                                  const std::set<size_t>& prev_failed, int64_t rev) {
  Watcher* w = find(ref);
  // Canceled or closed while prev_kvs were read. A watcher that became synced meanwhile starts
  // after `rev` (rev was already published), so it cannot be in `matches` wrongly.
  if (!w || !w->synced || rev < w->next_rev) return;
  Stream& st = *find_stream(ref.stream);
  bool prev_missing = false;
  for (size_t i : indexes) prev_missing |= w->prev_kv && prev_failed.count(i) > 0;
  if (!st.queue.event_room() && options_.bugs.on(Bug::kWatchLostUnderStarvation)) {
    // The bug: the revision is skipped, as if it had been sent.
    w->next_rev = rev + 1;
    ++st.counters.overflows;
    ++totals_.overflows;
    return;
  }
  if (!st.queue.event_room() || prev_missing) {
    // Not dropped: it reads this revision from the store later (etcd's slow-watcher fallback).
    DST_PROBE(kWatchMovedToUnsynced);
    move_to_unsynced(st, *w, rev);
    ++st.counters.overflows;
    ++totals_.overflows;
    return;
  }
  if (indexes.size() > 1) DST_PROBE(kWatchMultiEventRevision);
  etcdserverpb::WatchResponse r;
  r.mutable_header()->set_revision(rev);
  r.set_watch_id(ref.id);
  for (size_t i : indexes) {
    mvccpb::Event* ev = r.add_events();
    *ev = events[i];
    if (!w->prev_kv) continue;
    auto p = prev.find(i);
    if (p != prev.end()) *ev->mutable_prev_kv() = p->second;
  }
  queue_events(st, *w, std::move(r));
  w->next_rev = rev + 1;
}

}  // namespace dst::watch
