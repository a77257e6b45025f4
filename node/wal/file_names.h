// Names of WAL segment and snapshot files under a node's data directory.
//
//   <dir>/wal/<seq:016x>-<first_index:016x>.wal      segment `seq`, first entry index expected
//   <dir>/snap/<term:016x>-<index:016x>.snap         snapshot at (term, index)
//   <name>.tmp                                       being written; renamed into place when durable
//
// Fixed-width hex makes lexical order (Disk::list sorts names) equal numeric order, like etcd.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dst::wal {

inline constexpr std::string_view kTempSuffix = ".tmp";

std::string wal_dir_prefix(std::string_view dir);   // "<dir>/wal/"
std::string snap_dir_prefix(std::string_view dir);  // "<dir>/snap/"

struct SegmentName {
  uint64_t seq = 0;
  uint64_t first_index = 0;
};
std::string segment_file_name(std::string_view dir, SegmentName name);
// Parses the part after the prefix ("0000000000000001-000000000000002a.wal"); nullopt otherwise.
std::optional<SegmentName> parse_segment_name(std::string_view base);

struct SnapshotName {
  uint64_t term = 0;
  uint64_t index = 0;
};
std::string snapshot_file_name(std::string_view dir, SnapshotName name);
std::optional<SnapshotName> parse_snapshot_name(std::string_view base);

bool ends_with_temp_suffix(std::string_view name);

}  // namespace dst::wal
