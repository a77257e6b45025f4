// The JSON etcdctl 3.4 prints for `-w json` (Go's encoding/json over the gogo-protobuf structs):
// snake_case field names in proto order, base64 keys and values, zero values omitted, uint64 ids
// as exact integers, and txn responses wrapped as {"Response":{"ResponsePut":{...}}}. `dst shell`
// prints these so its answers can be compared with ../shared/reference/etcd-3.4.md byte for byte.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "client/etcdctl/etcdctl_results.h"
#include "proto/etcd_rpc.pb.h"

namespace dst::etcdctl {

std::string base64(std::string_view bytes);

std::string to_json(const etcdserverpb::ResponseHeader& h);
std::string to_json(const mvccpb::KeyValue& kv);
std::string to_json(const etcdserverpb::RangeResponse& r);
std::string to_json(const etcdserverpb::PutResponse& r);
std::string to_json(const etcdserverpb::DeleteRangeResponse& r);
std::string to_json(const etcdserverpb::TxnResponse& r);

// Go's encoding/json string: quotes, \" \\ \n \r \t, other control bytes and < > & as \u00XX,
// invalid UTF-8 as \ufffd.
std::string json_string(std::string_view text);

std::string to_json(const mvccpb::Event& e);  // "type" omitted for PUT, 1 for DELETE
// clientv3.WatchResponse as Go marshals it: {"Header":{...},"Events":[...],"CompactRevision":N,
// "Canceled":b,"Created":b}; Header and the last three are never omitted, Events is [] when empty.
std::string watch_response_json(const etcdserverpb::WatchResponse& r);

// The clientv3 lease structs embed *ResponseHeader, so its fields appear inline, followed by
// the struct's own fields (never omitted): Grant {..,"ID":N,"TTL":N,"Error":""}, KeepAlive
// {..,"ID":N,"TTL":N}, TimeToLive {..,"id":N,"ttl":N,"granted-ttl":N,"keys":null|[base64..]},
// Leases {..,"leases":[{"id":N}..]}. Revoke is the plain proto {"header":{...}}.
std::string lease_grant_json(const etcdserverpb::LeaseGrantResponse& r);
std::string lease_revoke_json(const etcdserverpb::LeaseRevokeResponse& r);
std::string lease_keep_alive_json(const etcdserverpb::LeaseKeepAliveResponse& r);
std::string lease_time_to_live_json(const etcdserverpb::LeaseTimeToLiveResponse& r);
std::string lease_leases_json(const etcdserverpb::LeaseLeasesResponse& r);

std::string to_json(const etcdserverpb::AlarmResponse& r);   // "alarm" as its enum number
std::string to_json(const etcdserverpb::StatusResponse& r);  // camelCase names, as in etcd's proto
std::string to_json(const etcdserverpb::HashKVResponse& r);
std::string to_json(const etcdserverpb::MemberListResponse& r);
std::string to_json(const etcdserverpb::MemberAddResponse& r);
std::string to_json(const etcdserverpb::MemberRemoveResponse& r);
std::string to_json(const etcdserverpb::MemberPromoteResponse& r);
std::string to_json(const etcdserverpb::MemberUpdateResponse& r);
// JSON arrays of etcdctl's epStatus / epHashKV.
std::string endpoint_status_json(const std::vector<EndpointStatus>& statuses);
std::string endpoint_hashkv_json(const std::vector<EndpointHashKV>& hashes);
// [{"endpoint":...,"health":true,"took":"..."}], "error" only when there is one (epHealth's tags).
std::string endpoint_health_json(const std::vector<EndpointHealth>& healths);

}  // namespace dst::etcdctl
