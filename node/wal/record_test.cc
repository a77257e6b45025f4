// Record framing and segment scanning (record.h): round trip, and how each kind of damage is
// described, including whether a valid record follows it.
#include "node/wal/record.h"

#include <gtest/gtest.h>

#include <string>

#include "base/limits.h"

namespace dst::wal {
namespace {

walpb::WalRecord entry_record(uint64_t index, std::string data = "payload") {
  walpb::WalRecord r;
  r.mutable_entry()->set_index(index);
  r.mutable_entry()->set_term(1);
  r.mutable_entry()->set_data(std::move(data));
  return r;
}

// Three framed entry records; `offsets` gets where each starts.
std::string three_records(std::vector<uint64_t>& offsets) {
  std::string out;
  for (uint64_t i = 1; i <= 3; ++i) {
    offsets.push_back(out.size());
    EXPECT_TRUE(append_record(entry_record(i), out).is_ok());
  }
  return out;
}

TEST(Record, RoundTrip) {
  std::vector<uint64_t> offsets;
  const std::string bytes = three_records(offsets);
  const SegmentScan scan = scan_records(bytes);
  ASSERT_FALSE(scan.bad.has_value());
  ASSERT_EQ(scan.records.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(scan.records[k].offset, offsets[k]);
    EXPECT_EQ(scan.records[k].record.entry().index(), k + 1);
  }
  EXPECT_EQ(scan.valid_bytes, bytes.size());
}

TEST(Record, HeaderIsLengthThenChecksumLittleEndian) {
  std::string out;
  const walpb::WalRecord r = entry_record(5);
  ASSERT_TRUE(append_record(r, out).is_ok());
  const std::string payload = r.SerializeAsString();
  ASSERT_EQ(out.size(), kRecordHeaderBytes + payload.size());
  EXPECT_EQ(static_cast<unsigned char>(out[0]), payload.size());
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out.substr(kRecordHeaderBytes), payload);
}

TEST(Record, EmptyAndOversizedRecordsAreRefused) {
  std::string out;
  EXPECT_EQ(append_record(walpb::WalRecord(), out).code(), StatusCode::kInvalidArgument);
  const std::string big(limits::kWalRecordBytesMax, 'x');
  EXPECT_EQ(append_record(entry_record(1, big), out).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(out.empty());
}

TEST(Record, IncompleteLastRecordHasNothingValidAfter) {
  std::vector<uint64_t> offsets;
  std::string bytes = three_records(offsets);
  bytes.resize(bytes.size() - 3);
  const SegmentScan scan = scan_records(bytes);
  ASSERT_TRUE(scan.bad.has_value());
  EXPECT_EQ(scan.bad->offset, offsets[2]);
  EXPECT_NE(scan.bad->reason.find("runs past the end"), std::string::npos) << scan.bad->reason;
  EXPECT_FALSE(scan.bad->valid_record_after.has_value());
  EXPECT_EQ(scan.records.size(), 2u);
  EXPECT_EQ(scan.valid_bytes, offsets[2]);
}

TEST(Record, IncompleteHeader) {
  std::vector<uint64_t> offsets;
  std::string bytes = three_records(offsets);
  bytes.resize(offsets[2] + 5);
  const SegmentScan scan = scan_records(bytes);
  ASSERT_TRUE(scan.bad.has_value());
  EXPECT_NE(scan.bad->reason.find("incomplete header (5 of 8"), std::string::npos)
      << scan.bad->reason;
}

TEST(Record, ZeroFilledTail) {
  std::vector<uint64_t> offsets;
  std::string bytes = three_records(offsets);
  const uint64_t end = bytes.size();
  bytes.append(1024, '\0');
  const SegmentScan scan = scan_records(bytes);
  ASSERT_TRUE(scan.bad.has_value());
  EXPECT_EQ(scan.bad->offset, end);
  EXPECT_NE(scan.bad->reason.find("zero length"), std::string::npos) << scan.bad->reason;
  EXPECT_FALSE(scan.bad->valid_record_after.has_value());
}

TEST(Record, ChecksumMismatchInTheMiddleFindsTheNextValidRecord) {
  std::vector<uint64_t> offsets;
  std::string bytes = three_records(offsets);
  bytes[offsets[1] + kRecordHeaderBytes + 3] ^= 0x10;
  const SegmentScan scan = scan_records(bytes);
  ASSERT_TRUE(scan.bad.has_value());
  EXPECT_EQ(scan.bad->offset, offsets[1]);
  EXPECT_NE(scan.bad->reason.find("checksum mismatch"), std::string::npos) << scan.bad->reason;
  ASSERT_TRUE(scan.bad->valid_record_after.has_value());
  EXPECT_EQ(*scan.bad->valid_record_after, offsets[2]);
}

TEST(Record, DamagedLengthInTheMiddleStillFindsTheNextValidRecord) {
  std::vector<uint64_t> offsets;
  std::string bytes = three_records(offsets);
  bytes[offsets[1] + 2] ^= 0x01;  // length becomes huge: past the end of the file
  const SegmentScan scan = scan_records(bytes);
  ASSERT_TRUE(scan.bad.has_value());
  EXPECT_EQ(scan.bad->offset, offsets[1]);
  ASSERT_TRUE(scan.bad->valid_record_after.has_value());
  EXPECT_EQ(*scan.bad->valid_record_after, offsets[2]);
}

}  // namespace
}  // namespace dst::wal
