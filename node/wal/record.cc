// Record framing and segment scanning; see record.h.
#include "node/wal/record.h"

#include "base/limits.h"
#include "base/crc32c.h"

namespace dst::wal {
namespace {

uint32_t load_u32(std::string_view bytes, uint64_t offset) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[offset + i]);
  return v;
}

void store_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFu));
}

std::string hex32(uint32_t v) {
  static const char* kDigits = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) s.push_back(kDigits[(v >> shift) & 0xFu]);
  return s;
}

// Every payload we write starts with the tag of one of WalRecord's oneof fields (1..4, all
// length-delimited). Checking it first lets the resync search skip most offsets without a CRC.
bool plausible_first_byte(char c) {
  const auto b = static_cast<unsigned char>(c);
  return b == 0x0a || b == 0x12 || b == 0x1a || b == 0x22;
}

// Decodes the record at `offset`. Returns "" and fills `out`/`end` if valid, else the reason.
std::string decode_at(std::string_view bytes, uint64_t offset, walpb::WalRecord& out,
                      uint64_t& end) {
  const uint64_t remaining = bytes.size() - offset;
  if (remaining < kRecordHeaderBytes) {
    return "incomplete header (" + std::to_string(remaining) + " of 8 bytes)";
  }
  const uint32_t length = load_u32(bytes, offset);
  const uint32_t stored_crc = load_u32(bytes, offset + 4);
  if (length == 0) return "zero length (zero-filled tail or damaged header)";
  if (length > limits::kWalRecordBytesMax) {
    return "length " + std::to_string(length) + " exceeds the record limit";
  }
  if (length > remaining - kRecordHeaderBytes) {
    return "record of " + std::to_string(length) + " bytes runs past the end of the file (" +
           std::to_string(remaining - kRecordHeaderBytes) + " bytes left)";
  }
  const std::string_view payload = bytes.substr(offset + kRecordHeaderBytes, length);
  const uint32_t computed_crc = crc32c(payload);
  if (computed_crc != stored_crc) {
    return "checksum mismatch (stored " + hex32(stored_crc) + ", computed " + hex32(computed_crc) +
           ")";
  }
  if (!out.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    return "checksum matches but the payload does not parse as a WalRecord";
  }
  if (out.record_case() == walpb::WalRecord::RECORD_NOT_SET) return "record has no content";
  end = offset + kRecordHeaderBytes + length;
  return "";
}

// Looks for any valid record starting after `bad_offset`; fills the BadRecord's verdict fields.
// Spends at most limits::kWalResyncScanBytesMax payload bytes on checksums.
void search_valid_record_after(std::string_view bytes, BadRecord& bad) {
  uint64_t budget = limits::kWalResyncScanBytesMax;
  walpb::WalRecord scratch;
  // Bounded by the file size: one candidate per byte offset.
  for (uint64_t o = bad.offset + 1; o + kRecordHeaderBytes < bytes.size(); ++o) {
    const uint32_t length = load_u32(bytes, o);
    if (length == 0 || length > bytes.size() - o - kRecordHeaderBytes) continue;
    if (!plausible_first_byte(bytes[o + kRecordHeaderBytes])) continue;
    if (length > budget) {
      bad.search_gave_up = true;
      return;
    }
    budget -= length;
    uint64_t end = 0;
    if (decode_at(bytes, o, scratch, end).empty()) {
      bad.valid_record_after = o;
      return;
    }
  }
}

}  // namespace

Status append_record(const walpb::WalRecord& record, std::string& out) {
  if (record.record_case() == walpb::WalRecord::RECORD_NOT_SET) {
    return Status(StatusCode::kInvalidArgument, "wal: record has no content");
  }
  const size_t length = record.ByteSizeLong();
  if (length > limits::kWalRecordBytesMax) {
    return Status(StatusCode::kInvalidArgument,
                  "wal: record of " + std::to_string(length) + " bytes exceeds the limit of " +
                      std::to_string(limits::kWalRecordBytesMax));
  }
  std::string payload;
  const bool serialized = record.SerializeToString(&payload);
  DST_ASSERT(serialized);
  DST_ASSERT_EQ(payload.size(), length);
  DST_ASSERT(length > 0);  // a set oneof always serializes its tag
  out.reserve(out.size() + kRecordHeaderBytes + length);
  store_u32(out, static_cast<uint32_t>(length));
  store_u32(out, crc32c(payload));
  out += payload;
  return Status::ok();
}

SegmentScan scan_records(std::string_view bytes) {
  SegmentScan scan;
  uint64_t offset = 0;
  // Each iteration consumes at least one header, so this ends within size/8 iterations.
  while (offset < bytes.size()) {
    DecodedRecord decoded;
    decoded.offset = offset;
    uint64_t end = 0;
    std::string reason = decode_at(bytes, offset, decoded.record, end);
    if (!reason.empty()) {
      BadRecord bad;
      bad.offset = offset;
      bad.reason = std::move(reason);
      search_valid_record_after(bytes, bad);
      scan.bad = std::move(bad);
      break;
    }
    DST_ASSERT_GT(end, offset);
    scan.records.push_back(std::move(decoded));
    offset = end;
    scan.valid_bytes = end;
  }
  return scan;
}

}  // namespace dst::wal
