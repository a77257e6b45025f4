// The JSON etcdctl 3.4 prints for `-w json` (Go's encoding/json over the gogo-protobuf structs):
// snake_case field names in proto order, base64 keys and values, zero values omitted, uint64 ids
// as exact integers, and txn responses wrapped as {"Response":{"ResponsePut":{...}}}. `dst shell`
// prints these so its answers can be compared with ../shared/reference/etcd-3.4.md byte for byte.
#pragma once

#include <string>
#include <string_view>

#include "proto/etcd_rpc.pb.h"

namespace dst::etcdctl {

std::string base64(std::string_view bytes);

std::string to_json(const etcdserverpb::ResponseHeader& h);
std::string to_json(const mvccpb::KeyValue& kv);
std::string to_json(const etcdserverpb::RangeResponse& r);
std::string to_json(const etcdserverpb::PutResponse& r);
std::string to_json(const etcdserverpb::DeleteRangeResponse& r);
std::string to_json(const etcdserverpb::TxnResponse& r);

}  // namespace dst::etcdctl
