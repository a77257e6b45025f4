// Where a member's WAL can be damaged so that its next start must refuse to open it: the bytes of
// synced records in its last segment that have a whole, valid record after them. A bad record
// with valid data after it cannot be a torn tail (wal.h), so a WAL that "repairs" it by cutting
// the log there drops records it promised were durable: votes, acknowledged entries.
//
// The random nemesis damages these bytes on a member that is down (issue 21: disk corruption of
// synced data that the WAL must detect); SimCluster then holds the member's next start to it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/disk.h"

namespace dst::world {

struct WalDamageTarget {
  std::string file;    // the last segment, by its current name on the disk
  uint64_t limit = 0;  // any damage within [0, limit) must be refused: the last valid record starts here
  size_t records = 0;  // whole records before `limit` (at least 1)
};

// nullopt when the member has no WAL yet, or its last segment holds fewer than two valid records.
std::optional<WalDamageTarget> wal_damage_target(const sim::Disk& disk, std::string_view data_dir);

// Whether damage to [offset, offset + length) of `file` lies inside `target`'s range.
bool inside(const WalDamageTarget& target, std::string_view file, uint64_t offset, uint64_t length);

}  // namespace dst::world
