// The in-memory index of every key's history (etcd's treeIndex): key -> KeyIndex, ordered by key
// bytes so that ranges are scans. Values live in the backend under their revisions; this index says
// which revision a read at some point in time must fetch.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "node/mvcc/key_index.h"

namespace dst::mvcc {

// etcd's range convention: end empty = the single key; end "\0" = every key >= key; otherwise the
// half-open interval [key, end).
bool in_range(const std::string& k, const std::string& key, const std::string& end);

struct IndexedKey {
  std::string key;
  KeyAt at;
};

class TreeIndex {
 public:
  void put(const std::string& key, Revision rev);
  // Rebuilding from the backend, in revision order: the first change seen of a key restores it
  // (see KeyIndex::restore), later ones are puts; a tombstone ends the generation.
  void restore(const std::string& key, Revision created, Revision modified, int64_t version, bool tombstone);
  Status tombstone(const std::string& key, Revision rev);
  std::optional<KeyAt> get(const std::string& key, int64_t at) const;
  // Keys of the range alive at `at`, in key order, at most `limit` of them (0: no limit);
  // `total` counts them all (etcd's Range count ignores the limit).
  std::vector<IndexedKey> range(const std::string& key, const std::string& end, int64_t at, size_t limit,
                                size_t* total) const;
  // Every change to keys of the range with main revision >= `since`, ordered by revision.
  std::vector<std::pair<Revision, std::string>> changes_since(const std::string& key, const std::string& end,
                                                              int64_t since) const;
  // Forgets history before `at` (see KeyIndex::compact); returns the revisions still needed.
  std::set<Revision> compact(int64_t at);
  std::set<Revision> keep(int64_t at) const;
  size_t keys() const { return index_.size(); }

 private:
  template <typename Fn>
  void for_range(const std::string& key, const std::string& end, Fn fn) const;

  std::map<std::string, KeyIndex> index_;
};

}  // namespace dst::mvcc
