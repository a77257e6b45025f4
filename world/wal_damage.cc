#include "world/wal_damage.h"

#include "node/wal/file_names.h"
#include "node/wal/record.h"

namespace dst::world {

std::optional<WalDamageTarget> wal_damage_target(const sim::Disk& disk, std::string_view data_dir) {
  const std::string prefix = wal::wal_dir_prefix(data_dir);
  std::optional<std::string> last;
  // The names sort by sequence number; an unfinished cut (".tmp") is never read at a start.
  for (const std::string& file : disk.list(prefix))
    if (!wal::ends_with_temp_suffix(file) && wal::parse_segment_name(file.substr(prefix.size()))) last = file;
  if (!last) return std::nullopt;
  // What a power loss would leave: the bytes promised durable. A process crash leaves more (the
  // page cache), but only appended after these, so the same records start at the same offsets.
  Result<std::string> durable = disk.durable_content(*last);
  if (!durable.is_ok()) return std::nullopt;
  const wal::SegmentScan scan = wal::scan_records(*durable);
  if (scan.records.size() < 2) return std::nullopt;
  return WalDamageTarget{.file = *last, .limit = scan.records.back().offset, .records = scan.records.size() - 1};
}

bool inside(const WalDamageTarget& target, std::string_view file, uint64_t offset, uint64_t length) {
  return file == target.file && length > 0 && offset < target.limit && length <= target.limit - offset;
}

}  // namespace dst::world
