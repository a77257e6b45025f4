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

// etcdctl's epHealth: one endpoint's answer to `endpoint health`. `took` is Go's Duration text of
// the get's round trip ("6.328624ms"); `error` is empty when healthy.
struct EndpointHealth {
  std::string endpoint;
  bool health = false;
  std::string took;
  std::string error;
};

}  // namespace dst::etcdctl
