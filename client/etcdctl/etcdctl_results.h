// The per-endpoint wrappers etcdctl's endpoint commands print (epStatus, epHashKV): the endpoint
// name the caller chose and the response that endpoint gave.
#pragma once

#include <string>

#include "proto/etcd_rpc.pb.h"

namespace dst::etcdctl {

// etcdctl's epStatus: JSON {"Endpoint":..., "Status":{...}}.
struct EndpointStatus {
  std::string endpoint;
  etcdserverpb::StatusResponse status;
};

// etcdctl's epHashKV: JSON {"Endpoint":..., "HashKV":{...}}.
struct EndpointHashKV {
  std::string endpoint;
  etcdserverpb::HashKVResponse hash_kv;
};

}  // namespace dst::etcdctl
