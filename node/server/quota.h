// etcd's backend quota (etcdserver/quota.go): before a member proposes a request that can grow the
// store (a Put, a Txn containing a put, a LeaseGrant) it checks that the backend's size plus the
// request's estimated cost stays within --quota-backend-bytes. A request over the quota is refused
// with "etcdserver: mvcc: database space exceeded" and raises the NOSPACE alarm cluster-wide.
#pragma once

#include <cstdint>

#include "proto/etcd_internal.pb.h"

namespace dst::node {

// etcd's estimates of what storing one key's metadata and one lease costs beyond their bytes.
inline constexpr uint64_t kQuotaKvOverhead = 256;
inline constexpr uint64_t kQuotaLeaseOverhead = 64;

// Whether the request can grow the store: Put, Txn with a put in either branch (nested too),
// LeaseGrant. These are what the NOSPACE alarm refuses.
bool grows_store(const etcdserverpb::InternalRequest& r);
bool txn_has_put(const etcdserverpb::TxnRequest& t);
// Estimated bytes the request adds (0 for requests that do not grow the store). A txn costs its
// larger branch: only one of them runs.
uint64_t quota_cost(const etcdserverpb::InternalRequest& r);

}  // namespace dst::node
