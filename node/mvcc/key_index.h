// The revision history of one key (etcd's keyIndex), kept in memory.
//
// A key's life is a list of generations. A generation starts with the put that creates the key
// and ends with the tombstone that deletes it; the next put starts a new generation. Example
// (put at 1.0, 2.0, delete at 3.0, put at 4.0, 5.0):
//
//   generations: {1.0, 2.0, 3.0(tombstone)}, {4.0, 5.0}
//
// A read at revision r finds the generation alive at r and the newest change <= r in it; the
// version is the key's version then (1 on creation, +1 per put). Compaction at r drops every
// change that no read at >= r can see, keeping the newest change <= r of the live generation.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "node/mvcc/revision.h"

namespace dst::mvcc {

struct Generation {
  int64_t version = 0;         // number of puts in it (the tombstone counts too, as in etcd)
  Revision created;            // its first revision
  std::vector<Revision> revs;  // ascending; the last is a tombstone unless it is the live one
  bool empty() const { return revs.empty(); }
};

// What a read at some revision sees of a key.
struct KeyAt {
  Revision modified;  // the change visible at that revision
  Revision created;   // when the visible generation began
  int64_t version = 0;
};

class KeyIndex {
 public:
  explicit KeyIndex(std::string key) : key_(std::move(key)) {}

  const std::string& key() const { return key_; }
  Revision modified() const { return modified_; }
  const std::vector<Generation>& generations() const { return generations_; }

  // Records a put at `rev` (> every revision recorded so far).
  void put(Revision rev);
  // Rebuilding the index from the backend: the key's first surviving change is `modified`, of a
  // generation created at `created` in which it was the `version`-th change (after compaction the
  // earlier changes are gone, so they cannot be replayed).
  void restore(Revision created, Revision modified, int64_t version);
  // Records a deletion at `rev`; kNotFound if the key is not alive (nothing to delete).
  Status tombstone(Revision rev);
  // The key as a read at main revision `at` sees it, or nullopt if it did not exist then.
  std::optional<KeyAt> get(int64_t at) const;
  // Every change with main revision >= `since`, ascending (what a watch from `since` replays).
  std::vector<Revision> since(int64_t since) const;
  // Drops history no read at >= `at` can see; adds the revisions that stay reachable at `at` to
  // `available` (their values must be kept in the backend).
  void compact(int64_t at, std::set<Revision>& available);
  // Adds the revisions a compaction at `at` would keep to `keep` without changing anything.
  void keep(int64_t at, std::set<Revision>& keep) const;
  // Nothing left: a single empty generation (all history compacted away).
  bool empty() const { return generations_.size() == 1 && generations_[0].empty(); }

  std::string describe() const;

 private:
  const Generation* find_generation(int64_t at) const;
  // The generation to compact into and the index of its newest revision <= at (-1 if none).
  std::pair<size_t, int> compaction_point(int64_t at) const;

  std::string key_;
  Revision modified_;
  std::vector<Generation> generations_;
};

}  // namespace dst::mvcc
