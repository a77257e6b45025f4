// The apiserver's watch cache (Kubernetes' Cacher / watchCache) for one resource prefix: the
// current objects by key, and a bounded ring of the most recent events, both at the cache's
// resourceVersion (the etcd revision it has caught up to). Filled from one etcd watch on the
// prefix (with prev_kv), and from a LIST after that watch broke; served to LIST and WATCH.
//
// The contract it keeps, which the kube checks hold it to:
// - events enter in etcd revision order; the cache never goes back in resourceVersion;
// - LIST at resourceVersion R answers only once the cache has reached R, with the objects as
//   of the cache's resourceVersion (>= R);
// - WATCH from R gets every event with resourceVersion > R, in order, exactly once, or is
//   refused with "too old resource version" (HTTP 410 Gone) when those events left the ring
//   or predate the cache's last re-list.
//
// A pure data structure: no fibers, clocks or I/O. The apiserver process (a later step of issue
// #8) drives it from its etcd watch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "proto/etcd_kv.pb.h"

namespace dst::kube {

// The apiserver's answer to a WATCH from a resourceVersion older than the ring: 410 Gone.
inline constexpr char kErrTooOldResourceVersion[] = "too old resource version";

enum class EventType : uint8_t { kAdded, kModified, kDeleted };
const char* event_type_name(EventType t);  // "ADDED", "MODIFIED", "DELETED"

struct CachedObject {
  std::string value;
  int64_t resource_version = 0;  // the etcd revision of its last change (mod_revision)
};

struct CacheEvent {
  EventType type = EventType::kAdded;
  std::string key;
  // The object after the change; for kDeleted, the object as it was last (as Kubernetes sends).
  std::string value;
  int64_t resource_version = 0;  // the etcd revision of the change
  int64_t cached_ns = 0;         // when the cache took it in (tracing: the propagation-delay plots)
};

struct ListResult {
  std::vector<std::pair<std::string, CachedObject>> objects;  // sorted by key
  int64_t resource_version = 0;
};

class WatchCache {
 public:
  // `capacity`: events kept in the ring (Kubernetes sizes it per resource; at least 1).
  explicit WatchCache(size_t capacity);

  // One event of the etcd watch. Refused (kInvalidArgument, nothing changed) if its revision is
  // below the cache's resourceVersion, or it deletes a key the cache does not hold: either means
  // the feed lost or reordered events, and the caller must re-list.
  Status apply(const mvccpb::Event& event, int64_t at_ns = 0);
  // A progress notification (etcd) or bookmark: nothing changed in the prefix up to `rv`.
  void progress(int64_t rv);
  // A re-list after the etcd watch broke: the objects as of `rv` replace everything; the ring
  // starts empty, so WATCH from before `rv` is refused. `rv` may not go back either.
  Status replace(const std::vector<mvccpb::KeyValue>& objects, int64_t rv);

  // LIST at `min_rv` (0: any): kUnavailable while the cache is behind it (the apiserver waits,
  // then answers "Too large resource version").
  Result<ListResult> list(int64_t min_rv) const;
  // WATCH from `rv`: every event with resourceVersion > rv, in order. kOutOfRange with
  // kErrTooOldResourceVersion when some of them are no longer in the ring.
  Result<std::vector<CacheEvent>> events_after(int64_t rv) const;
  // The same, only the events of keys starting with `key_prefix` (a watch's selector); `newest`
  // becomes the resourceVersion of the newest event after rv, selected or not (unchanged if none),
  // where the watch may go on from. Finds its place by binary search: a cache with thousands of
  // watchers is asked once per watcher per change.
  Result<std::vector<CacheEvent>> events_after(int64_t rv, std::string_view key_prefix, int64_t& newest) const;

  int64_t resource_version() const { return resource_version_; }
  // The oldest resourceVersion a WATCH may start from.
  int64_t oldest_watchable() const { return oldest_watchable_; }
  size_t size() const { return objects_.size(); }
  size_t ring_size() const { return ring_.size(); }

 private:
  void push(CacheEvent e);

  size_t capacity_;
  std::map<std::string, CachedObject> objects_;
  std::deque<CacheEvent> ring_;  // bounded by capacity_
  int64_t resource_version_ = 0;
  // Revisions up to here were promised complete (a progress notification, a re-list): an event
  // must come after it, not merely at it as events sharing one txn revision may.
  int64_t complete_through_ = 0;
  int64_t oldest_watchable_ = 0;
};

}  // namespace dst::kube
