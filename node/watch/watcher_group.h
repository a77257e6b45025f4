// The synced watchers, indexed so that a write finds the watchers of its keys without scanning
// every watcher: single-key watchers (the common case: an informer's object, a lock key) in a map
// by key; range and prefix watchers in a list tested one by one.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>

#include "node/watch/watcher.h"

namespace dst::watch {

class WatcherGroup {
 public:
  void add(const Watcher& w);
  void remove(const Watcher& w);
  void clear();
  size_t size() const { return size_; }

  // Calls fn(ref) for every watcher whose range contains `key` (filters are the caller's), single
  // key watchers first, each group in WatcherRef order.
  template <typename Fn>
  void visit(const std::string& key, Fn fn) const {
    if (auto it = by_key_.find(key); it != by_key_.end()) {
      for (const WatcherRef& ref : it->second) fn(ref);
    }
    for (const auto& [ref, range] : ranges_) {
      if (in_range(key, range)) fn(ref);
    }
  }

 private:
  static bool in_range(const std::string& key, const std::pair<std::string, std::string>& range);

  std::map<std::string, std::set<WatcherRef>> by_key_;
  std::map<WatcherRef, std::pair<std::string, std::string>> ranges_;  // ref -> (key, end)
  size_t size_ = 0;
};

}  // namespace dst::watch
