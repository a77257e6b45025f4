// Applying the KV requests of the etcd v3 API to the MVCC store, with etcd 3.4's semantics and
// error strings (etcdserver/apply.go): request validation, Range with sorting, filters, limit and
// `more`; Put with prev_kv and ignore_value/ignore_lease; DeleteRange with prev_kv; Txn with
// compares and nested transactions, all in one revision; Compaction.
//
// The same functions serve reads outside raft (serializable and ReadIndex reads) and the apply of
// committed writes, so both give byte-identical answers.
#pragma once

#include <functional>
#include <string>

#include "base/status.h"
#include "node/mvcc/kv_store.h"
#include "proto/etcd_rpc.pb.h"

namespace dst::node {

// etcd's request errors (rpctypes), as clients see them.
inline constexpr char kErrKeyNotProvided[] = "etcdserver: key is not provided";
inline constexpr char kErrTooManyOps[] = "etcdserver: too many operations in txn request";
inline constexpr char kErrDuplicateKey[] = "etcdserver: duplicate key given in txn request";
inline constexpr char kErrKeyNotFound[] = "etcdserver: key not found";
inline constexpr char kErrLeaseNotFound[] = "etcdserver: requested lease not found";

// Whether a lease exists (the lessor's answer), for puts that attach keys to one; an empty
// function accepts every lease (stores without a lessor, tests).
using LeaseExists = std::function<bool(int64_t)>;

struct KvLimits {
  size_t max_txn_ops = 128;  // etcd's --max-txn-ops default
};
// The largest --max-txn-ops a member accepts. The member's own limit is checked by its API before
// proposing, as in etcd (members may be configured differently); applying checks only this.
inline constexpr size_t kMaxTxnOpsCeiling = 100'000;

// Checks a request before it is proposed (etcd's checkXXXRequest): kInvalidArgument with etcd's
// error string.
Status validate_range(const etcdserverpb::RangeRequest& r);
Status validate_put(const etcdserverpb::PutRequest& r);
Status validate_delete_range(const etcdserverpb::DeleteRangeRequest& r);
Status validate_txn(const etcdserverpb::TxnRequest& r, const KvLimits& limits);

// A read outside a write (serializable or after ReadIndex).
Result<etcdserverpb::RangeResponse> apply_range(mvcc::KvStore& store, const etcdserverpb::RangeRequest& r);
// Writes: each runs in its own WriteTxn (one new revision if anything changed).
// A put or txn naming a lease that does not exist fails whole with kErrLeaseNotFound.
Result<etcdserverpb::PutResponse> apply_put(mvcc::KvStore& store, const etcdserverpb::PutRequest& r,
                                            const LeaseExists& leases = {});
Result<etcdserverpb::DeleteRangeResponse> apply_delete_range(mvcc::KvStore& store,
                                                            const etcdserverpb::DeleteRangeRequest& r);
Result<etcdserverpb::TxnResponse> apply_txn(mvcc::KvStore& store, const etcdserverpb::TxnRequest& r,
                                            const LeaseExists& leases = {});
Result<etcdserverpb::CompactionResponse> apply_compaction(mvcc::KvStore& store,
                                                          const etcdserverpb::CompactionRequest& r);

// Error messages as the server sends them: mvcc errors get etcd's "etcdserver: " prefix.
std::string client_error(const Status& s);

}  // namespace dst::node
