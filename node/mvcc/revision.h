// MVCC revisions (etcd's mvcc.revision): every write transaction gets the next main revision; the
// n-th change inside it gets sub revision n. The store's key space in the backend is the revision,
// encoded so that byte order equals revision order.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dst::mvcc {

struct Revision {
  int64_t main = 0;
  int64_t sub = 0;
  auto operator<=>(const Revision&) const = default;
  std::string to_string() const { return std::to_string(main) + "." + std::to_string(sub); }
};

// Backend key of a revision: 8 bytes main (big endian), '_', 8 bytes sub (big endian); a
// tombstone (a deletion) appends 't'. Same layout as etcd's revToBytes/appendMarkTombstone.
inline constexpr size_t kRevisionBytes = 17;
std::string encode_revision(Revision rev, bool tombstone = false);
struct DecodedRevision {
  Revision rev;
  bool tombstone = false;
};
// kCorruption for anything that is not exactly 17 or 18 bytes in that layout.
Result<DecodedRevision> decode_revision(std::string_view bytes);

}  // namespace dst::mvcc
