// etcdctl 3.4's `-w fields` output for the KV responses: one `"Name" : value` line per field, the
// header first, strings in Go's %q quoting, nested txn responses flattened in order.
#pragma once

#include <string>

#include "proto/etcd_rpc.pb.h"

namespace dst::etcdctl {

std::string fields_text(const etcdserverpb::RangeResponse& r);
std::string fields_text(const etcdserverpb::PutResponse& r);
std::string fields_text(const etcdserverpb::DeleteRangeResponse& r);
std::string fields_text(const etcdserverpb::TxnResponse& r);

}  // namespace dst::etcdctl
