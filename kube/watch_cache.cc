#include "kube/watch_cache.h"

#include <algorithm>

#include "base/assert.h"

namespace dst::kube {

const char* event_type_name(EventType t) {
  switch (t) {
    case EventType::kAdded: return "ADDED";
    case EventType::kModified: return "MODIFIED";
    case EventType::kDeleted: return "DELETED";
  }
  DST_UNREACHABLE("event type");
}

WatchCache::WatchCache(size_t capacity) : capacity_(capacity) { DST_ASSERT_GT(capacity, 0u); }

Status WatchCache::apply(const mvccpb::Event& event, int64_t at_ns) {
  const mvccpb::KeyValue& kv = event.kv();
  const int64_t rv = kv.mod_revision();
  // Several events may share a revision (one etcd txn), so only a lower one is out of order.
  if (rv < resource_version_ || rv <= complete_through_) {
    return Status(StatusCode::kInvalidArgument, "event at revision " + std::to_string(rv) +
                                                    " after the cache reached " + std::to_string(resource_version_));
  }
  auto it = objects_.find(kv.key());
  if (event.type() == mvccpb::Event::DELETE) {
    if (it == objects_.end()) {
      return Status(StatusCode::kInvalidArgument,
                    "delete of '" + kv.key() + "' at revision " + std::to_string(rv) + ", which the cache does not hold");
    }
    CacheEvent e{EventType::kDeleted, kv.key(), std::move(it->second.value), rv, at_ns};
    objects_.erase(it);
    push(std::move(e));
  } else {
    const EventType type = it == objects_.end() ? EventType::kAdded : EventType::kModified;
    objects_[kv.key()] = CachedObject{kv.value(), rv};
    push(CacheEvent{type, kv.key(), kv.value(), rv, at_ns});
  }
  resource_version_ = rv;
  return Status::ok();
}

void WatchCache::push(CacheEvent e) {
  DST_ASSERT(ring_.empty() || ring_.back().resource_version <= e.resource_version);
  if (ring_.size() == capacity_) {
    // A WATCH from below the evicted event's revision would miss it; from it on, nothing is lost
    // (the other events of that revision, if any, were evicted before it or are still here).
    oldest_watchable_ = std::max(oldest_watchable_, ring_.front().resource_version);
    ring_.pop_front();
  }
  ring_.push_back(std::move(e));
}

void WatchCache::progress(int64_t rv) {
  resource_version_ = std::max(resource_version_, rv);
  complete_through_ = std::max(complete_through_, rv);
}

Status WatchCache::replace(const std::vector<mvccpb::KeyValue>& objects, int64_t rv) {
  if (rv < resource_version_) {
    return Status(StatusCode::kInvalidArgument, "re-list at revision " + std::to_string(rv) +
                                                    " after the cache reached " + std::to_string(resource_version_));
  }
  std::map<std::string, CachedObject> fresh;
  for (const mvccpb::KeyValue& kv : objects) {
    if (kv.mod_revision() > rv) {
      return Status(StatusCode::kInvalidArgument, "re-listed '" + kv.key() + "' at revision " +
                                                      std::to_string(kv.mod_revision()) + ", after the list's " +
                                                      std::to_string(rv));
    }
    fresh[kv.key()] = CachedObject{kv.value(), kv.mod_revision()};
  }
  objects_ = std::move(fresh);
  ring_.clear();
  resource_version_ = rv;
  complete_through_ = rv;
  oldest_watchable_ = rv;
  return Status::ok();
}

Result<ListResult> WatchCache::list(int64_t min_rv) const {
  if (min_rv > resource_version_) {
    return Status(StatusCode::kUnavailable, "the watch cache is at resource version " +
                                                std::to_string(resource_version_) + ", behind the requested " +
                                                std::to_string(min_rv));
  }
  ListResult out;
  out.resource_version = resource_version_;
  out.objects.assign(objects_.begin(), objects_.end());
  return out;
}

Result<std::vector<CacheEvent>> WatchCache::events_after(int64_t rv) const {
  int64_t newest = rv;
  return events_after(rv, {}, newest);
}

Result<std::vector<CacheEvent>> WatchCache::events_after(int64_t rv, std::string_view key_prefix, int64_t& newest) const {
  if (rv < oldest_watchable_) {
    return Status(StatusCode::kOutOfRange, std::string(kErrTooOldResourceVersion) + ": " + std::to_string(rv) + " (" +
                                               std::to_string(oldest_watchable_) + ")");
  }
  // The ring is in resourceVersion order (push() appends the cacher's events as etcd numbered them).
  auto first = std::partition_point(ring_.begin(), ring_.end(), [rv](const CacheEvent& e) { return e.resource_version <= rv; });
  std::vector<CacheEvent> out;
  for (auto it = first; it != ring_.end(); ++it)
    if (std::string_view(it->key).substr(0, key_prefix.size()) == key_prefix) out.push_back(*it);
  if (first != ring_.end()) newest = std::max(newest, ring_.back().resource_version);
  return out;
}

}  // namespace dst::kube
