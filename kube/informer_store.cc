#include "kube/informer_store.h"

#include <algorithm>
#include <utility>

#include "base/assert.h"

namespace dst::kube {

InformerStore::InformerStore(Handler handler) : handler_(std::move(handler)) { DST_ASSERT(handler_ != nullptr); }

Status InformerStore::replace(const std::vector<std::pair<std::string, CachedObject>>& objects, int64_t rv) {
  if (rv < resource_version_) {
    return Status(StatusCode::kInvalidArgument, "list at resource version " + std::to_string(rv) +
                                                    " after the informer reached " + std::to_string(resource_version_));
  }
  std::map<std::string, CachedObject> fresh(objects.begin(), objects.end());
  DST_ASSERT_EQ(fresh.size(), objects.size());
  std::vector<Notification> out;
  // Both maps are sorted: one merge walk, so the notifications come in key order.
  auto old_it = objects_.begin();
  auto new_it = fresh.begin();
  while (old_it != objects_.end() || new_it != fresh.end()) {
    if (new_it == fresh.end() || (old_it != objects_.end() && old_it->first < new_it->first)) {
      out.push_back({Notification::Kind::kDelete, old_it->first, old_it->second.value, "", rv});
      ++old_it;
    } else if (old_it == objects_.end() || new_it->first < old_it->first) {
      out.push_back({Notification::Kind::kAdd, new_it->first, "", new_it->second.value, new_it->second.resource_version});
      ++new_it;
    } else {
      // client-go notifies an update for every listed object it held, changed or not.
      out.push_back({Notification::Kind::kUpdate, new_it->first, old_it->second.value, new_it->second.value,
                     new_it->second.resource_version});
      ++old_it;
      ++new_it;
    }
  }
  objects_ = std::move(fresh);
  resource_version_ = rv;
  complete_through_ = rv;
  for (const Notification& n : out) handler_(n);
  return Status::ok();
}

Status InformerStore::apply(const CacheEvent& event) {
  const int64_t rv = event.resource_version;
  auto refuse = [&](const std::string& why) {
    return Status(StatusCode::kInvalidArgument, std::string(event_type_name(event.type)) + " " + event.key + " at " +
                                                    std::to_string(rv) + ": " + why);
  };
  // Events of one etcd txn share a revision; anything older than the informer has is a replay.
  if (rv < resource_version_ || rv <= complete_through_) return refuse("before the informer's " + std::to_string(resource_version_));
  auto it = objects_.find(event.key);
  switch (event.type) {
    case EventType::kAdded:
      if (it != objects_.end()) return refuse("the informer already holds it");
      objects_.emplace(event.key, CachedObject{event.value, rv});
      resource_version_ = rv;
      handler_({Notification::Kind::kAdd, event.key, "", event.value, rv});
      break;
    case EventType::kModified: {
      if (it == objects_.end()) return refuse("the informer does not hold it");
      if (it->second.resource_version >= rv) return refuse("not newer than the object it holds");
      std::string old = std::move(it->second.value);
      it->second = CachedObject{event.value, rv};
      resource_version_ = rv;
      handler_({Notification::Kind::kUpdate, event.key, std::move(old), event.value, rv});
      break;
    }
    case EventType::kDeleted: {
      if (it == objects_.end()) return refuse("the informer does not hold it");
      std::string old = std::move(it->second.value);
      objects_.erase(it);
      resource_version_ = rv;
      handler_({Notification::Kind::kDelete, event.key, std::move(old), "", rv});
      break;
    }
  }
  return Status::ok();
}

void InformerStore::bookmark(int64_t rv) {
  resource_version_ = std::max(resource_version_, rv);
  complete_through_ = std::max(complete_through_, rv);
}

void InformerStore::resync() {
  for (const auto& [key, obj] : objects_)
    handler_({Notification::Kind::kUpdate, key, obj.value, obj.value, obj.resource_version});
}

}  // namespace dst::kube
