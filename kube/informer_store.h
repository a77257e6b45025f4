// An informer's local store (client-go's Indexer behind a SharedInformer): the objects of one
// resource as the informer last heard of them, at the informer's resourceVersion, and the
// notifications its event handlers get. Fed by a LIST (replace) and then the WATCH from the
// list's resourceVersion (apply); a watch that ends with 410 Gone means a new LIST.
//
// Notifications follow client-go: add, update (old and new value; also for a resync, with both
// equal) and delete. A re-list turns the difference between the store and the list into them
// (client-go's DeltaFIFO.Replace: keys missing from the list are deleted with their last known
// value, "DeletedFinalStateUnknown").
//
// A pure data structure; single-threaded here, with client-go's contract.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "kube/watch_cache.h"

namespace dst::kube {

struct Notification {
  enum class Kind : uint8_t { kAdd, kUpdate, kDelete };
  Kind kind = Kind::kAdd;
  std::string key;
  std::string old_value;  // kUpdate, kDelete
  std::string new_value;  // kAdd, kUpdate
  int64_t resource_version = 0;
};

class InformerStore {
 public:
  using Handler = std::function<void(const Notification&)>;
  explicit InformerStore(Handler handler);

  // A LIST's answer: the store becomes exactly `objects` at `rv`, and the handler hears what
  // changed. A list older than what the informer has already seen is refused (kInvalidArgument).
  Status replace(const std::vector<std::pair<std::string, CachedObject>>& objects, int64_t rv);
  // One WATCH event. Refused (kInvalidArgument, nothing changed) when it is not after the
  // informer's resourceVersion or does not fit the store (an ADDED for a key it holds, a MODIFIED
  // or DELETED for one it does not): the informer lost or reordered events.
  Status apply(const CacheEvent& event);
  // A bookmark: nothing changed up to `rv`.
  void bookmark(int64_t rv);
  // client-go's resync: an update with equal old and new value for every object.
  void resync();

  int64_t resource_version() const { return resource_version_; }
  const std::map<std::string, CachedObject>& objects() const { return objects_; }

 private:
  Handler handler_;
  std::map<std::string, CachedObject> objects_;
  int64_t resource_version_ = 0;
  // Promised complete up to here (a list, a bookmark): an event must come after it.
  int64_t complete_through_ = 0;
};

}  // namespace dst::kube
