#include "node/server/quota.h"

#include <algorithm>

namespace dst::node {

namespace {

uint64_t put_cost(const etcdserverpb::PutRequest& p) { return p.ByteSizeLong() + kQuotaKvOverhead; }

uint64_t ops_cost(const google::protobuf::RepeatedPtrField<etcdserverpb::RequestOp>& ops);

uint64_t txn_cost(const etcdserverpb::TxnRequest& t) {
  return std::max(ops_cost(t.success()), ops_cost(t.failure()));
}

uint64_t ops_cost(const google::protobuf::RepeatedPtrField<etcdserverpb::RequestOp>& ops) {
  uint64_t total = 0;
  for (const auto& op : ops) {
    if (op.has_request_put()) total += put_cost(op.request_put());
    if (op.has_request_txn()) total += txn_cost(op.request_txn());
  }
  return total;
}

bool ops_have_put(const google::protobuf::RepeatedPtrField<etcdserverpb::RequestOp>& ops) {
  for (const auto& op : ops)
    if (op.has_request_put() || (op.has_request_txn() && txn_has_put(op.request_txn()))) return true;
  return false;
}

}  // namespace

bool txn_has_put(const etcdserverpb::TxnRequest& t) { return ops_have_put(t.success()) || ops_have_put(t.failure()); }

bool grows_store(const etcdserverpb::InternalRequest& r) {
  switch (r.request_case()) {
    case etcdserverpb::InternalRequest::kPut:
    case etcdserverpb::InternalRequest::kLeaseGrant: return true;
    case etcdserverpb::InternalRequest::kTxn: return txn_has_put(r.txn());
    default: return false;
  }
}

uint64_t quota_cost(const etcdserverpb::InternalRequest& r) {
  switch (r.request_case()) {
    case etcdserverpb::InternalRequest::kPut: return put_cost(r.put());
    case etcdserverpb::InternalRequest::kLeaseGrant: return kQuotaLeaseOverhead;
    case etcdserverpb::InternalRequest::kTxn: return txn_cost(r.txn());
    default: return 0;
  }
}

}  // namespace dst::node
