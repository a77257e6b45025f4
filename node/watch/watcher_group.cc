#include "node/watch/watcher_group.h"

#include "base/assert.h"
#include "node/mvcc/tree_index.h"

namespace dst::watch {

bool WatcherGroup::in_range(const std::string& key, const std::pair<std::string, std::string>& range) {
  return mvcc::in_range(key, range.first, range.second);
}

void WatcherGroup::add(const Watcher& w) {
  bool added = w.end.empty() ? by_key_[w.key].insert(w.ref).second
                             : ranges_.emplace(w.ref, std::pair{w.key, w.end}).second;
  DST_ASSERT_MSG(added, "watcher added to the synced group twice");
  ++size_;
}

void WatcherGroup::remove(const Watcher& w) {
  size_t removed = 0;
  if (w.end.empty()) {
    auto it = by_key_.find(w.key);
    if (it != by_key_.end()) {
      removed = it->second.erase(w.ref);
      if (it->second.empty()) by_key_.erase(it);
    }
  } else {
    removed = ranges_.erase(w.ref);
  }
  DST_ASSERT_MSG(removed == 1, "removing a watcher that is not in the synced group");
  --size_;
}

void WatcherGroup::clear() {
  by_key_.clear();
  ranges_.clear();
  size_ = 0;
}

}  // namespace dst::watch
