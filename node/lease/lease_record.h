// How a lease is stored in the backend's "lease" bucket, as etcd stores it in bbolt: key = the
// lease id as 8 bytes big-endian (so the bucket is in id order for non-negative ids), value = a
// serialized leasepb.Lease. Only the id and the granted TTL are persisted; which keys belong to a
// lease is not, it is rebuilt from the keys' own lease field (mvccpb.KeyValue.lease).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "node/backend/backend.h"
#include "proto/lease.pb.h"

namespace dst::lease {

inline constexpr std::string_view kLeaseBucket = "lease";

std::string encode_lease_key(int64_t id);

// Writes / deletes one lease record in the backend's open batch.
Status put_lease_record(backend::Backend& backend, const leasepb::Lease& record);
Status delete_lease_record(backend::Backend& backend, int64_t id);

// Every record of the bucket, in bucket (byte) order. kCorruption if a key is not 8 bytes, a
// value does not parse, or a record's ID differs from its key; kResourceExhausted past
// limits::kLeasesMax records.
Result<std::vector<leasepb::Lease>> load_lease_records(backend::Backend& backend);

}  // namespace dst::lease
