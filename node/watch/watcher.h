// One watcher: what a WatchCreateRequest asked for, and how far its events have been handed to its
// stream. Plain data; the WatchableStore owns every Watcher and moves it between its synced and
// unsynced groups.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "proto/etcd_kv.pb.h"

namespace dst::watch {

// A watch stream (one gRPC Watch call of one client). Ids are never reused within a store.
using StreamId = uint64_t;

// Names a watcher: watch ids are unique per stream only. Ordered, so that every walk over
// watchers has the same order in every run.
struct WatcherRef {
  StreamId stream = 0;
  int64_t id = 0;
  auto operator<=>(const WatcherRef&) const = default;
};

struct Watcher {
  WatcherRef ref;
  // Unique per store: a cancelled watch id may be reused on the stream, and responses of the old
  // watcher still queued must not count as the new one's.
  uint64_t serial = 0;
  std::string key;
  std::string end;  // mvcc::in_range convention: empty = just `key`, "\0" = every key >= key
  bool filter_put = false;     // NOPUT
  bool filter_delete = false;  // NODELETE
  bool prev_kv = false;
  bool progress_notify = false;
  // The oldest revision whose events it has not been given. For a synced watcher it may lag
  // behind the store (it only moves when the watcher matched something); see
  // WatchableStore::on_restore for why that is harmless.
  int64_t next_rev = 0;
  // next_rev when it last joined the synced group (etcd's minRev; only the watch-time-travel bug
  // of base/bugs.h reads it).
  int64_t synced_from_rev = 0;
  bool synced = false;
  size_t queued = 0;  // responses for it waiting in its stream's queue

  // In its range and not filtered out.
  bool wants(const mvccpb::Event& event) const;
};

}  // namespace dst::watch
