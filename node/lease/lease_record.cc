#include "node/lease/lease_record.h"

#include "base/big_endian.h"

#include "base/limits.h"

namespace dst::lease {

std::string encode_lease_key(int64_t id) {
  return be64(static_cast<uint64_t>(id));
}

namespace {

int64_t decode_lease_key(std::string_view key) {
  DST_ASSERT_EQ(key.size(), 8u);
  return static_cast<int64_t>(read_be(key));
}

}  // namespace

Status put_lease_record(backend::Backend& backend, const leasepb::Lease& record) {
  DST_ASSERT_NE(record.id(), 0);
  return backend.put(kLeaseBucket, encode_lease_key(record.id()), record.SerializeAsString());
}

Status delete_lease_record(backend::Backend& backend, int64_t id) {
  return backend.del(kLeaseBucket, encode_lease_key(id));
}

Result<std::vector<leasepb::Lease>> load_lease_records(backend::Backend& backend) {
  std::vector<leasepb::Lease> records;
  Status bad;
  // The visitor may not call the backend, so it only collects; it stops at the first bad record.
  Status s = backend.range(kLeaseBucket, "", "", 0, [&](std::string_view key, std::string_view value) {
    if (records.size() >= limits::kLeasesMax) {
      bad = Status(StatusCode::kResourceExhausted, "lease bucket holds more than kLeasesMax leases");
      return false;
    }
    leasepb::Lease record;
    if (key.size() != 8 || !record.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
      bad = Status(StatusCode::kCorruption, "unreadable lease record");
      return false;
    }
    if (record.id() == 0 || record.id() != decode_lease_key(key)) {
      bad = Status(StatusCode::kCorruption,
                   "lease record id " + std::to_string(record.id()) + " does not match its key");
      return false;
    }
    records.push_back(std::move(record));
    return true;
  });
  if (!s.is_ok()) return s;
  if (!bad.is_ok()) return bad;
  return records;
}

}  // namespace dst::lease
