// etcdctl 3.4's `-w fields` output (printer_fields.go): one `"Name" : value` line per field, the
// header first, strings in Go's %q quoting, nested txn responses flattened in order; a blank line
// after each member, alarm and endpoint. etcdctl's fields printer has nothing for member add,
// remove, update, promote and move-leader ("fields not supported as output format").
#pragma once

#include <string>
#include <vector>

#include "client/etcdctl/etcdctl_results.h"
#include "proto/etcd_rpc.pb.h"

namespace dst::etcdctl {

std::string fields_text(const etcdserverpb::RangeResponse& r);
std::string fields_text(const etcdserverpb::PutResponse& r);
std::string fields_text(const etcdserverpb::DeleteRangeResponse& r);
std::string fields_text(const etcdserverpb::TxnResponse& r);
std::string fields_text(const etcdserverpb::WatchResponse& r);
std::string fields_text(const etcdserverpb::LeaseGrantResponse& r);
std::string fields_text(const etcdserverpb::LeaseRevokeResponse& r);
std::string fields_text(const etcdserverpb::LeaseKeepAliveResponse& r);
std::string fields_text(const etcdserverpb::LeaseTimeToLiveResponse& r);
std::string fields_text(const etcdserverpb::LeaseLeasesResponse& r);
std::string fields_text(const etcdserverpb::MemberListResponse& r);
std::string fields_text(const etcdserverpb::AlarmResponse& r);
std::string fields_text(const std::vector<EndpointStatus>& statuses);
std::string fields_text(const std::vector<EndpointHashKV>& hashes);

}  // namespace dst::etcdctl
