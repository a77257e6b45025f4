// WAL record framing: how records sit in a segment file and how a segment is read back.
//
// Layout of one record, little-endian:
//   [u32 payload length][u32 CRC-32C of payload][payload = serialized walpb::WalRecord]
// A payload is never empty (a WalRecord always has its oneof set), so a length of 0 marks a
// zero-filled tail, not a record.
//
// scan_records() reads the valid prefix of a segment and, when bytes follow it that are not a
// valid record, says why and whether any valid record starts later in the file. That last bit is
// what tells a torn tail (nothing valid after it: the crash cut the final write) from corruption in
// the middle (valid data after the damage: truncating would drop records that were promised
// durable). The caller (wal.cc) makes the decision; this file only reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "proto/wal.pb.h"

namespace dst::wal {

inline constexpr uint64_t kRecordHeaderBytes = 8;

// Appends one framed record to `out`. kInvalidArgument if the record has no content or its
// payload exceeds limits::kWalRecordBytesMax (then `out` is unchanged).
Status append_record(const walpb::WalRecord& record, std::string& out);

struct DecodedRecord {
  uint64_t offset = 0;  // of the record's header within the segment
  walpb::WalRecord record;
};

// Bytes at `offset` that are not a valid record.
struct BadRecord {
  uint64_t offset = 0;
  std::string reason;  // "checksum mismatch (stored 0x..., computed 0x...)", ...
  // Offset of the first valid record found after the bad one: proof of mid-log corruption.
  std::optional<uint64_t> valid_record_after;
  // The search for a valid record after it gave up (limits::kWalResyncScanBytesMax): unknown.
  bool search_gave_up = false;
};

struct SegmentScan {
  std::vector<DecodedRecord> records;  // the valid prefix, in file order
  uint64_t valid_bytes = 0;            // end of the last valid record (0 if none)
  std::optional<BadRecord> bad;        // set iff bytes follow valid_bytes
};

SegmentScan scan_records(std::string_view bytes);

}  // namespace dst::wal
