#include "node/mvcc/tree_index.h"

#include <algorithm>

namespace dst::mvcc {

bool in_range(const std::string& k, const std::string& key, const std::string& end) {
  if (end.empty()) return k == key;
  if (end == std::string(1, '\0')) return k >= key;
  return k >= key && k < end;
}

template <typename Fn>
void TreeIndex::for_range(const std::string& key, const std::string& end, Fn fn) const {
  if (end.empty()) {
    auto it = index_.find(key);
    if (it != index_.end()) fn(it->second);
    return;
  }
  bool to_end = end == std::string(1, '\0');
  for (auto it = index_.lower_bound(key); it != index_.end(); ++it) {
    if (!to_end && it->first >= end) break;
    if (!fn(it->second)) break;
  }
}

void TreeIndex::put(const std::string& key, Revision rev) {
  auto it = index_.find(key);
  if (it == index_.end()) it = index_.emplace(key, KeyIndex(key)).first;
  it->second.put(rev);
}

void TreeIndex::restore(const std::string& key, Revision created, Revision modified, int64_t version,
                        bool tombstone) {
  auto it = index_.find(key);
  if (it == index_.end()) {
    if (tombstone) return;  // a deletion whose puts were compacted away: nothing to restore
    index_.emplace(key, KeyIndex(key)).first->second.restore(created, modified, version);
    return;
  }
  if (tombstone) {
    Status s = it->second.tombstone(modified);
    (void)s;  // a tombstone of a key already dead (compacted puts): nothing to end
    return;
  }
  it->second.put(modified);
}

Status TreeIndex::tombstone(const std::string& key, Revision rev) {
  auto it = index_.find(key);
  if (it == index_.end()) return Status(StatusCode::kNotFound, "key not found");
  return it->second.tombstone(rev);
}

std::optional<KeyAt> TreeIndex::get(const std::string& key, int64_t at) const {
  auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  return it->second.get(at);
}

std::vector<IndexedKey> TreeIndex::range(const std::string& key, const std::string& end, int64_t at,
                                         size_t limit, size_t* total) const {
  std::vector<IndexedKey> out;
  size_t count = 0;
  for_range(key, end, [&](const KeyIndex& ki) {
    std::optional<KeyAt> k = ki.get(at);
    if (!k) return true;
    ++count;
    if (limit == 0 || out.size() < limit) out.push_back(IndexedKey{ki.key(), *k});
    return true;
  });
  if (total) *total = count;
  return out;
}

std::vector<std::pair<Revision, std::string>> TreeIndex::changes_since(const std::string& key,
                                                                       const std::string& end,
                                                                       int64_t since) const {
  std::vector<std::pair<Revision, std::string>> out;
  for_range(key, end, [&](const KeyIndex& ki) {
    for (const Revision& r : ki.since(since)) out.emplace_back(r, ki.key());
    return true;
  });
  std::sort(out.begin(), out.end());
  return out;
}

std::set<Revision> TreeIndex::compact(int64_t at) {
  std::set<Revision> available;
  for (auto it = index_.begin(); it != index_.end();) {
    it->second.compact(at, available);
    it = it->second.empty() ? index_.erase(it) : std::next(it);
  }
  return available;
}

std::set<Revision> TreeIndex::keep(int64_t at) const {
  std::set<Revision> kept;
  for (const auto& [key, ki] : index_) ki.keep(at, kept);
  return kept;
}

}  // namespace dst::mvcc
