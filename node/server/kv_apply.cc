#include "node/server/kv_apply.h"

#include <algorithm>
#include <set>

#include "base/assert.h"
#include "base/probes.h"

namespace dst::node {

namespace {

using etcdserverpb::Compare;
using etcdserverpb::RangeRequest;
using etcdserverpb::RequestOp;

Status invalid(const char* what) { return Status(StatusCode::kInvalidArgument, what); }

// etcd treats a one-byte "\0" range end as "every key >= key" (mkGteRange); so does the store.
std::string range_end(const std::string& end) { return end; }

// --- Range --------------------------------------------------------------------------------------

// etcd 3.4 (applierV3backend.Range) fetches every key only for an explicit sort order or a
// revision filter. A sort target without an order is fetched limit + 1 keys in key order and then
// sorted (ascending): `get --sort-by=VALUE --limit=2` pages by key first, then sorts that page.
bool needs_full_fetch(const RangeRequest& r) {
  return r.sort_order() != RangeRequest::NONE || r.min_mod_revision() != 0 || r.max_mod_revision() != 0 ||
         r.min_create_revision() != 0 || r.max_create_revision() != 0;
}

void sort_kvs(std::vector<mvccpb::KeyValue>& kvs, const RangeRequest& r) {
  RangeRequest::SortOrder order = r.sort_order();
  // etcd: a sort target without an order means ascending.
  if (order == RangeRequest::NONE && r.sort_target() != RangeRequest::KEY) order = RangeRequest::ASCEND;
  if (order == RangeRequest::NONE) return;
  auto key_of = [&](const mvccpb::KeyValue& kv) -> std::tuple<int64_t, std::string> {
    switch (r.sort_target()) {
      case RangeRequest::KEY: return {0, kv.key()};
      case RangeRequest::VERSION: return {kv.version(), ""};
      case RangeRequest::CREATE: return {kv.create_revision(), ""};
      case RangeRequest::MOD: return {kv.mod_revision(), ""};
      case RangeRequest::VALUE: return {0, kv.value()};
      default: return {0, kv.key()};
    }
  };
  std::stable_sort(kvs.begin(), kvs.end(), [&](const mvccpb::KeyValue& a, const mvccpb::KeyValue& b) {
    return order == RangeRequest::DESCEND ? key_of(b) < key_of(a) : key_of(a) < key_of(b);
  });
}

template <typename Reader>
Result<etcdserverpb::RangeResponse> range_with(Reader read, const RangeRequest& r) {
  mvcc::RangeOptions ro;
  ro.rev = r.revision();
  ro.count_only = r.count_only();
  bool full = needs_full_fetch(r);
  // One extra key tells whether there is `more` beyond the limit.
  if (!full && r.limit() > 0) ro.limit = r.limit() + 1;
  auto rr = read(r.key(), range_end(r.range_end()), ro);
  if (!rr.is_ok()) return rr.status();
  etcdserverpb::RangeResponse resp;
  resp.mutable_header()->set_revision(rr->rev);
  std::vector<mvccpb::KeyValue>& kvs = rr->kvs;
  auto prune = [&](auto pred) { kvs.erase(std::remove_if(kvs.begin(), kvs.end(), pred), kvs.end()); };
  if (r.max_mod_revision() != 0) prune([&](const auto& kv) { return kv.mod_revision() > r.max_mod_revision(); });
  if (r.min_mod_revision() != 0) prune([&](const auto& kv) { return kv.mod_revision() < r.min_mod_revision(); });
  if (r.max_create_revision() != 0)
    prune([&](const auto& kv) { return kv.create_revision() > r.max_create_revision(); });
  if (r.min_create_revision() != 0)
    prune([&](const auto& kv) { return kv.create_revision() < r.min_create_revision(); });
  sort_kvs(kvs, r);
  if (r.limit() > 0 && kvs.size() > static_cast<size_t>(r.limit())) {
    kvs.resize(static_cast<size_t>(r.limit()));
    resp.set_more(true);
  }
  resp.set_count(rr->count);
  for (mvccpb::KeyValue& kv : kvs) {
    if (r.keys_only()) kv.clear_value();
    *resp.add_kvs() = std::move(kv);
  }
  return resp;
}

// --- Put / Delete within a write transaction ---------------------------------------------------

Result<etcdserverpb::PutResponse> put_in(mvcc::WriteTxn& txn, const etcdserverpb::PutRequest& r) {
  std::string value = r.value();
  int64_t lease = r.lease();
  if (r.ignore_value() || r.ignore_lease()) {
    auto cur = txn.range(r.key(), "", {});
    if (!cur.is_ok()) return cur.status();
    if (cur->kvs.empty()) return Status(StatusCode::kNotFound, kErrKeyNotFound);
    if (r.ignore_value()) value = cur->kvs[0].value();
    if (r.ignore_lease()) lease = cur->kvs[0].lease();
  }
  auto prev = txn.put(r.key(), value, lease, r.prev_kv() ? mvcc::Prev::kRead : mvcc::Prev::kSkip);
  if (!prev.is_ok()) return prev.status();
  etcdserverpb::PutResponse resp;
  if (r.prev_kv() && prev->has_value()) *resp.mutable_prev_kv() = std::move(**prev);
  return resp;
}

Result<etcdserverpb::DeleteRangeResponse> delete_in(mvcc::WriteTxn& txn, const etcdserverpb::DeleteRangeRequest& r) {
  auto deleted = txn.delete_range(r.key(), range_end(r.range_end()), r.prev_kv() ? mvcc::Prev::kRead : mvcc::Prev::kSkip);
  if (!deleted.is_ok()) return deleted.status();
  etcdserverpb::DeleteRangeResponse resp;
  resp.set_deleted(static_cast<int64_t>(deleted->size()));
  if (r.prev_kv())
    for (mvccpb::KeyValue& kv : *deleted) *resp.add_prev_kvs() = std::move(kv);
  return resp;
}

// --- Txn ----------------------------------------------------------------------------------------

template <typename T>
int compare_values(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

bool compare_kv(const Compare& c, const mvccpb::KeyValue& kv) {
  int cmp = 0;
  switch (c.target()) {
    case Compare::VALUE: cmp = compare_values(kv.value(), c.value()); break;
    case Compare::CREATE: cmp = compare_values(kv.create_revision(), c.create_revision()); break;
    case Compare::MOD: cmp = compare_values(kv.mod_revision(), c.mod_revision()); break;
    case Compare::VERSION: cmp = compare_values(kv.version(), c.version()); break;
    case Compare::LEASE: cmp = compare_values(kv.lease(), c.lease()); break;
    default: return false;
  }
  switch (c.result()) {
    case Compare::EQUAL: return cmp == 0;
    case Compare::NOT_EQUAL: return cmp != 0;
    case Compare::GREATER: return cmp > 0;
    case Compare::LESS: return cmp < 0;
    default: return false;
  }
}

Result<bool> evaluate(mvcc::WriteTxn& txn, const Compare& c) {
  auto rr = txn.range(c.key(), range_end(c.range_end()), {});
  if (!rr.is_ok()) return rr.status();
  // A missing key compares as all zeroes, except that no value equals a missing one (etcd).
  if (rr->kvs.empty()) return c.target() != Compare::VALUE && compare_kv(c, mvccpb::KeyValue());
  for (const mvccpb::KeyValue& kv : rr->kvs)
    if (!compare_kv(c, kv)) return false;
  return true;
}

// The branch every txn on the executed path takes (etcd's compareToPath): decided on the state
// before the txn writes anything, nested txns included, in depth-first order of the ops.
Status txn_path(mvcc::WriteTxn& txn, const etcdserverpb::TxnRequest& r, std::vector<bool>& path) {
  bool ok = true;
  for (const Compare& c : r.compare()) {
    auto e = evaluate(txn, c);
    if (!e.is_ok()) return e.status();
    ok = ok && *e;
  }
  path.push_back(ok);
  for (const RequestOp& op : ok ? r.success() : r.failure()) {
    if (!op.has_request_txn()) continue;
    Status s = txn_path(txn, op.request_txn(), path);
    if (!s.is_ok()) return s;
  }
  return Status::ok();
}

// Refuses before anything is written (etcd's checkRequests over the whole path): a put that keeps
// the old value or lease needs its key to exist, and a put's lease must exist; a refusal half-way
// would leave half a transaction applied.
Status check_path(mvcc::WriteTxn& txn, const etcdserverpb::TxnRequest& r, const std::vector<bool>& path,
                  size_t& at, const LeaseExists& leases) {
  DST_ASSERT_LT(at, path.size());
  for (const RequestOp& op : path[at++] ? r.success() : r.failure()) {
    if (op.has_request_txn()) {
      Status s = check_path(txn, op.request_txn(), path, at, leases);
      if (!s.is_ok()) return s;
      continue;
    }
    if (!op.has_request_put()) continue;
    const auto& put = op.request_put();
    if (put.lease() != 0 && leases && !leases(put.lease())) return Status(StatusCode::kNotFound, kErrLeaseNotFound);
    if (!put.ignore_value() && !put.ignore_lease()) continue;
    auto cur = txn.range(put.key(), "", {.count_only = true});
    if (!cur.is_ok()) return cur.status();
    if (cur->count == 0) return Status(StatusCode::kNotFound, kErrKeyNotFound);
  }
  return Status::ok();
}

Result<etcdserverpb::TxnResponse> txn_run(mvcc::WriteTxn& txn, const etcdserverpb::TxnRequest& r,
                                          const std::vector<bool>& path, size_t& at);

// A whole txn: its path on the state before it, the checks along the path, then the writes.
Result<etcdserverpb::TxnResponse> txn_in(mvcc::WriteTxn& txn, const etcdserverpb::TxnRequest& r,
                                         const LeaseExists& leases) {
  std::vector<bool> path;
  Status s = txn_path(txn, r, path);
  if (!s.is_ok()) return s;
  size_t at = 0;
  s = check_path(txn, r, path, at, leases);
  if (!s.is_ok()) return s;
  at = 0;
  auto resp = txn_run(txn, r, path, at);
  DST_ASSERT(!resp.is_ok() || at == path.size());
  return resp;
}

// Executes the txn along `path` (from txn_path), `at` being this txn's position in it.
Result<etcdserverpb::TxnResponse> txn_run(mvcc::WriteTxn& txn, const etcdserverpb::TxnRequest& r,
                                          const std::vector<bool>& path, size_t& at) {
  DST_ASSERT_LT(at, path.size());
  const bool ok = path[at++];
  if (!ok) DST_PROBE(kMvccTxnFailureBranch);
  const auto& branch = ok ? r.success() : r.failure();
  etcdserverpb::TxnResponse resp;
  resp.set_succeeded(ok);
  for (const RequestOp& op : branch) {
    etcdserverpb::ResponseOp* out = resp.add_responses();
    switch (op.request_case()) {
      case RequestOp::kRequestRange: {
        auto rr = range_with([&](const std::string& k, const std::string& e, const mvcc::RangeOptions& o) {
          return txn.range(k, e, o);
        }, op.request_range());
        if (!rr.is_ok()) return rr.status();
        *out->mutable_response_range() = std::move(rr).value();
        out->mutable_response_range()->mutable_header()->set_revision(txn.rev());
        break;
      }
      case RequestOp::kRequestPut: {
        auto p = put_in(txn, op.request_put());
        if (!p.is_ok()) return p.status();
        *out->mutable_response_put() = std::move(p).value();
        out->mutable_response_put()->mutable_header()->set_revision(txn.rev());
        break;
      }
      case RequestOp::kRequestDeleteRange: {
        auto d = delete_in(txn, op.request_delete_range());
        if (!d.is_ok()) return d.status();
        *out->mutable_response_delete_range() = std::move(d).value();
        out->mutable_response_delete_range()->mutable_header()->set_revision(txn.rev());
        break;
      }
      case RequestOp::kRequestTxn: {
        auto t = txn_run(txn, op.request_txn(), path, at);
        if (!t.is_ok()) return t.status();
        *out->mutable_response_txn() = std::move(t).value();
        out->mutable_response_txn()->mutable_header()->set_revision(txn.rev());
        break;
      }
      default: return invalid("etcdserver: empty request op in txn");
    }
  }
  return resp;
}

// Keys (and ranges) written by a txn's ops, for etcd's duplicate check: a key may be put or deleted
// at most once across one branch, and nested branches count.
Status check_writes(const google::protobuf::RepeatedPtrField<RequestOp>& ops, std::set<std::string>& puts,
                    std::vector<std::pair<std::string, std::string>>& deletes) {
  for (const RequestOp& op : ops) {
    if (op.has_request_put()) {
      if (!puts.insert(op.request_put().key()).second) return invalid(kErrDuplicateKey);
    } else if (op.has_request_delete_range()) {
      deletes.emplace_back(op.request_delete_range().key(), op.request_delete_range().range_end());
    } else if (op.has_request_txn()) {
      // Each nested branch may write what the other branch writes; check them separately.
      for (const auto* branch : {&op.request_txn().success(), &op.request_txn().failure()}) {
        std::set<std::string> p = puts;
        std::vector<std::pair<std::string, std::string>> d = deletes;
        Status s = check_writes(*branch, p, d);
        if (!s.is_ok()) return s;
      }
    }
  }
  for (const std::string& k : puts)
    for (const auto& [key, end] : deletes)
      if (mvcc::in_range(k, key, end)) return invalid(kErrDuplicateKey);
  return Status::ok();
}

size_t count_ops(const etcdserverpb::TxnRequest& r) {
  return std::max(r.success_size(), r.failure_size());
}

}  // namespace

Status validate_range(const etcdserverpb::RangeRequest& r) {
  if (r.key().empty()) return invalid(kErrKeyNotProvided);
  return Status::ok();
}

Status validate_put(const etcdserverpb::PutRequest& r) {
  if (r.key().empty()) return invalid(kErrKeyNotProvided);
  if (r.ignore_value() && !r.value().empty()) return invalid("etcdserver: value is provided");
  if (r.ignore_lease() && r.lease() != 0) return invalid("etcdserver: lease is provided");
  return Status::ok();
}

Status validate_delete_range(const etcdserverpb::DeleteRangeRequest& r) {
  if (r.key().empty()) return invalid(kErrKeyNotProvided);
  return Status::ok();
}

Status validate_txn(const etcdserverpb::TxnRequest& r, const KvLimits& limits) {
  if (count_ops(r) > limits.max_txn_ops || static_cast<size_t>(r.compare_size()) > limits.max_txn_ops)
    return invalid(kErrTooManyOps);
  for (const Compare& c : r.compare())
    if (c.key().empty()) return invalid(kErrKeyNotProvided);
  for (const auto* branch : {&r.success(), &r.failure()}) {
    for (const RequestOp& op : *branch) {
      Status s;
      switch (op.request_case()) {
        case RequestOp::kRequestRange: s = validate_range(op.request_range()); break;
        case RequestOp::kRequestPut: s = validate_put(op.request_put()); break;
        case RequestOp::kRequestDeleteRange: s = validate_delete_range(op.request_delete_range()); break;
        case RequestOp::kRequestTxn: s = validate_txn(op.request_txn(), limits); break;
        default: s = invalid("etcdserver: empty request op in txn");
      }
      if (!s.is_ok()) return s;
    }
    std::set<std::string> puts;
    std::vector<std::pair<std::string, std::string>> deletes;
    Status s = check_writes(*branch, puts, deletes);
    if (!s.is_ok()) return s;
  }
  return Status::ok();
}

Result<etcdserverpb::RangeResponse> apply_range(mvcc::KvStore& store, const etcdserverpb::RangeRequest& r) {
  return range_with([&](const std::string& k, const std::string& e, const mvcc::RangeOptions& o) {
    return store.range(k, e, o);
  }, r);
}

Result<etcdserverpb::PutResponse> apply_put(mvcc::KvStore& store, const etcdserverpb::PutRequest& r,
                                            const LeaseExists& leases) {
  if (r.lease() != 0 && leases && !leases(r.lease())) return Status(StatusCode::kNotFound, kErrLeaseNotFound);
  mvcc::WriteTxn txn = store.write();
  auto resp = put_in(txn, r);
  int64_t rev = txn.end();
  if (resp.is_ok()) resp->mutable_header()->set_revision(rev);
  return resp;
}

Result<etcdserverpb::DeleteRangeResponse> apply_delete_range(mvcc::KvStore& store,
                                                            const etcdserverpb::DeleteRangeRequest& r) {
  mvcc::WriteTxn txn = store.write();
  auto resp = delete_in(txn, r);
  int64_t rev = txn.end();
  if (resp.is_ok()) resp->mutable_header()->set_revision(rev);
  return resp;
}

Result<etcdserverpb::TxnResponse> apply_txn(mvcc::KvStore& store, const etcdserverpb::TxnRequest& r,
                                            const LeaseExists& leases) {
  mvcc::WriteTxn txn = store.write();
  auto resp = txn_in(txn, r, leases);
  int64_t rev = txn.end();
  if (resp.is_ok()) resp->mutable_header()->set_revision(rev);
  return resp;
}

Result<etcdserverpb::CompactionResponse> apply_compaction(mvcc::KvStore& store,
                                                          const etcdserverpb::CompactionRequest& r) {
  Status s = store.compact(r.revision());
  if (!s.is_ok()) return s;
  etcdserverpb::CompactionResponse resp;
  resp.mutable_header()->set_revision(store.rev());
  return resp;
}

std::string client_error(const Status& s) {
  // mvcc's errors are bare ("mvcc: ..."); etcd's gRPC layer names them "etcdserver: mvcc: ...".
  // The lessor's already carry that prefix (lease/errors.h): never twice.
  if (s.code() == StatusCode::kOutOfRange && !s.message().starts_with("etcdserver: ")) return "etcdserver: " + s.message();
  return s.message();
}

}  // namespace dst::node
