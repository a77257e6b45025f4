// What dst's importer (import_etcd_report.h) and exporter (export_etcd_report.h) of etcd's
// robustness test reports agree on about that format (etcd-io/etcd tests/robustness, the `report`
// and `model` packages; docs/research/history-formats.md section 3 describes the files).
//
// Values: etcd's model keeps a value shorter than 20 bytes as it is and a longer one only as its
// FNV-1a 32-bit hash (model.ToValueOrHash), so a report cannot give back long values. dst keeps a
// canonical value everywhere: a short value as it is; a long value, or a recorded hash, as a token
// that names the hash and is itself 20 bytes or longer, so it never equals a short raw value.
#pragma once

#include <cstdint>
#include "base/key_range.h"
#include <cstdio>
#include <string>
#include <string_view>

namespace dst::history::etcd_report {

// Values this long or longer are stored as their hash (etcd's model: `len(value) < 20` is kept).
inline constexpr size_t kValueHashBytesMin = 20;

// FNV-1a, 32 bits (Go's hash/fnv New32a): offset basis 2166136261, prime 16777619.
constexpr uint32_t fnv32a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 16777619u;
  }
  return h;
}

// The token standing for a value known only by its hash: "\x01fnv32a:" + 8 hex digits, padded
// with '.' to kValueHashBytesMin bytes (the \x01 keeps it apart from any printable value too).
inline std::string hash_token(uint32_t hash) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", hash);
  std::string t = std::string("\x01" "fnv32a:") + hex;
  t.resize(kValueHashBytesMin, '.');
  return t;
}

// The hash a token names, or nothing when `value` is no token.
inline bool parse_hash_token(std::string_view value, uint32_t* hash) {
  constexpr std::string_view kPrefix = "\x01" "fnv32a:";
  if (value.size() != kValueHashBytesMin || value.substr(0, kPrefix.size()) != kPrefix) return false;
  uint32_t h = 0;
  for (char c : value.substr(kPrefix.size(), 8)) {
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    h = h * 16 + static_cast<uint32_t>(d);
  }
  if (value.substr(kPrefix.size() + 8).find_first_not_of('.') != std::string_view::npos) return false;
  *hash = h;
  return true;
}

// A prefix watch is [key, prefix_end(key)) (base/key_range.h: clientv3.GetPrefixRangeEnd).
inline std::string prefix_end(std::string_view key) { return prefix_range_end(key); }

// A value as the checker sees it after a round trip through a report (a token stays itself).
inline std::string canonical_value(std::string_view value) {
  uint32_t h = 0;
  if (value.size() < kValueHashBytesMin || parse_hash_token(value, &h)) return std::string(value);
  return hash_token(fnv32a(value));
}

}  // namespace dst::history::etcd_report
