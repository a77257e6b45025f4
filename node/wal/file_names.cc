// File naming; see file_names.h.
#include "node/wal/file_names.h"

namespace dst::wal {
namespace {

std::string hex16(uint64_t v) {
  static const char* kDigits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[i] = kDigits[v & 0xFu];
  return s;
}

std::optional<uint64_t> parse_hex16(std::string_view s) {
  if (s.size() != 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (digit < 0) return std::nullopt;
    v = (v << 4) | static_cast<uint64_t>(digit);
  }
  return v;
}

// "<hex16>-<hex16><suffix>" -> the two numbers.
std::optional<std::pair<uint64_t, uint64_t>> parse_pair(std::string_view base,
                                                        std::string_view suffix) {
  if (base.size() != 16 + 1 + 16 + suffix.size() || base[16] != '-' ||
      base.substr(33) != suffix) {
    return std::nullopt;
  }
  const std::optional<uint64_t> a = parse_hex16(base.substr(0, 16));
  const std::optional<uint64_t> b = parse_hex16(base.substr(17, 16));
  if (!a || !b) return std::nullopt;
  return std::make_pair(*a, *b);
}

}  // namespace

std::string wal_dir_prefix(std::string_view dir) { return std::string(dir) + "/wal/"; }
std::string snap_dir_prefix(std::string_view dir) { return std::string(dir) + "/snap/"; }

std::string segment_file_name(std::string_view dir, SegmentName name) {
  return wal_dir_prefix(dir) + hex16(name.seq) + "-" + hex16(name.first_index) + ".wal";
}

std::optional<SegmentName> parse_segment_name(std::string_view base) {
  const auto pair = parse_pair(base, ".wal");
  if (!pair) return std::nullopt;
  return SegmentName{pair->first, pair->second};
}

std::string snapshot_file_name(std::string_view dir, SnapshotName name) {
  return snap_dir_prefix(dir) + hex16(name.term) + "-" + hex16(name.index) + ".snap";
}

std::optional<SnapshotName> parse_snapshot_name(std::string_view base) {
  const auto pair = parse_pair(base, ".snap");
  if (!pair) return std::nullopt;
  return SnapshotName{pair->first, pair->second};
}

bool ends_with_temp_suffix(std::string_view name) { return name.ends_with(kTempSuffix); }

}  // namespace dst::wal
