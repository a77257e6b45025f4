#include "node/mvcc/key_index.h"

#include "base/assert.h"

namespace dst::mvcc {

void KeyIndex::put(Revision rev) {
  DST_ASSERT_MSG(rev > modified_, "put at " + rev.to_string() + " not after " + modified_.to_string() +
                                      " for key " + key_);
  if (generations_.empty()) generations_.emplace_back();
  Generation& g = generations_.back();
  if (g.revs.empty()) g.created = rev;
  g.revs.push_back(rev);
  ++g.version;
  modified_ = rev;
}

void KeyIndex::restore(Revision created, Revision modified, int64_t version) {
  DST_ASSERT_MSG(generations_.empty(), "restore must be the first change of key " + key_);
  DST_ASSERT_GE(version, 1);
  Generation g;
  g.created = created;
  g.version = version;
  g.revs.push_back(modified);
  generations_.push_back(std::move(g));
  modified_ = modified;
}

Status KeyIndex::tombstone(Revision rev) {
  if (generations_.empty() || generations_.back().empty()) {
    return Status(StatusCode::kNotFound, "key " + key_ + " is not alive: nothing to delete");
  }
  put(rev);
  generations_.emplace_back();
  return Status::ok();
}

const Generation* KeyIndex::find_generation(int64_t at) const {
  // Newest generation first: the one alive at `at` began at or before it and (unless it is the
  // live one) was not yet deleted at it.
  for (size_t k = generations_.size(); k-- > 0;) {
    const Generation& g = generations_[k];
    if (g.empty()) continue;
    if (k != generations_.size() - 1 && g.revs.back().main <= at) return nullptr;  // deleted by then
    if (g.revs.front().main <= at) return &g;
  }
  return nullptr;
}

std::optional<KeyAt> KeyIndex::get(int64_t at) const {
  const Generation* g = find_generation(at);
  if (!g) return std::nullopt;
  for (size_t n = g->revs.size(); n-- > 0;) {
    if (g->revs[n].main > at) continue;
    KeyAt k;
    k.modified = g->revs[n];
    k.created = g->created;
    k.version = g->version - static_cast<int64_t>(g->revs.size() - n - 1);
    return k;
  }
  return std::nullopt;
}

std::vector<Revision> KeyIndex::since(int64_t since) const {
  std::vector<Revision> out;
  int64_t last_main = -1;
  for (const Generation& g : generations_) {
    for (const Revision& r : g.revs) {
      if (r.main < since) continue;
      // Only the last change of a key within one transaction is visible to a watcher.
      if (r.main == last_main && !out.empty()) {
        out.back() = r;
      } else {
        out.push_back(r);
      }
      last_main = r.main;
    }
  }
  return out;
}

std::pair<size_t, int> KeyIndex::compaction_point(int64_t at) const {
  DST_ASSERT(!generations_.empty());
  // The first generation that contains `at` or was created after it.
  size_t gen = 0;
  while (gen + 1 < generations_.size()) {
    const Generation& g = generations_[gen];
    if (!g.empty() && g.revs.back().main > at) break;
    ++gen;
  }
  const Generation& g = generations_[gen];
  for (size_t n = g.revs.size(); n-- > 0;)
    if (g.revs[n].main <= at) return {gen, static_cast<int>(n)};
  return {gen, -1};
}

void KeyIndex::keep(int64_t at, std::set<Revision>& keep) const {
  if (empty()) return;
  auto [gen, idx] = compaction_point(at);
  const Generation& g = generations_[gen];
  if (g.empty() || idx < 0) return;
  // A tombstone that ends its generation is not kept: nothing at >= at can read it.
  bool tombstone = idx == static_cast<int>(g.revs.size()) - 1 && gen != generations_.size() - 1;
  if (!tombstone) keep.insert(g.revs[static_cast<size_t>(idx)]);
}

void KeyIndex::compact(int64_t at, std::set<Revision>& available) {
  if (empty()) return;
  auto [gen, idx] = compaction_point(at);
  Generation& g = generations_[gen];
  if (!g.empty()) {
    if (idx >= 0) {
      available.insert(g.revs[static_cast<size_t>(idx)]);
      g.revs.erase(g.revs.begin(), g.revs.begin() + idx);
    }
    // Only a tombstone left in a finished generation: the key was deleted at or before `at`.
    if (g.revs.size() == 1 && gen != generations_.size() - 1 && g.revs[0].main <= at) {
      available.erase(g.revs[0]);
      ++gen;
    }
  }
  generations_.erase(generations_.begin(), generations_.begin() + static_cast<long>(gen));
}

std::string KeyIndex::describe() const {
  std::string s = key_ + " modified=" + modified_.to_string() + " generations:";
  for (const Generation& g : generations_) {
    s += " {";
    for (size_t i = 0; i < g.revs.size(); ++i) s += (i ? " " : "") + g.revs[i].to_string();
    s += "}";
  }
  return s;
}

}  // namespace dst::mvcc
