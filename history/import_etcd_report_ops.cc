// One operations.json record of an etcd robustness report as a dst operation (import_etcd_report.h).
// Field names are those of etcd's tests/robustness/model types (Go field names: no json tags).
#include <cstdint>
#include <limits>
#include <string>

#include "history/import_etcd_report_reader.h"

namespace dst::history::report_import {

namespace {

using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;

// A report's key-value: Key, Value (or its hash), ModRevision, Version. create_revision is not
// recorded; version 1 means the key was created at its mod revision.
void read_kv(Reader& r, const Value& v, mvccpb::KeyValue* kv) {
  kv->set_key(r.string(v, "Key"));
  kv->set_value(r.value(v, "Value"));
  kv->set_mod_revision(r.int64(v, "ModRevision"));
  kv->set_version(r.int64(v, "Version"));
  if (kv->version() == 1) kv->set_create_revision(kv->mod_revision());
  if (kv->mod_revision() < 1 || kv->version() < 1)
    r.fail(r.at(v, kv->mod_revision() < 1 ? "ModRevision" : "Version"),
           "a key-value: expected ModRevision and Version >= 1 for a key that exists");
}

// RangeOptions {Start, End, Limit, KeysOnly} (a Range request adds Revision).
void read_range_options(Reader& r, const Value& v, etcdserverpb::RangeRequest* q) {
  q->set_key(r.string(v, "Start"));
  q->set_range_end(r.string(v, "End"));
  q->set_limit(r.int64(v, "Limit"));
  q->set_keys_only(r.boolean(v, "KeysOnly"));
  if (q->limit() < 0) r.fail(r.at(v, "Limit"), "Limit: expected a number >= 0");
}

void read_range_response(Reader& r, const Value& v, etcdserverpb::RangeResponse* out) {
  if (const Value* kvs = r.array(v, "KVs"))
    for (const Value& kv : kvs->items()) read_kv(r, kv, out->add_kvs());
  out->set_count(r.int64(v, "Count"));
}

// An EtcdOperation of a txn branch: range-operation, put-operation or delete-operation.
void read_request_op(Reader& r, const Value& v, etcdserverpb::RequestOp* op) {
  const std::string type = r.string(v, "Type");
  if (type == "range-operation") {
    if (const Value* range = r.object(v, "Range")) read_range_options(r, *range, op->mutable_request_range());
  } else if (type == "put-operation") {
    const Value* put = r.object(v, "Put");
    if (put == nullptr) return r.fail(v, "Put: expected the put of a put-operation");
    auto* p = op->mutable_request_put();
    p->set_key(r.string(*put, "Key"));
    p->set_value(r.value(*put, "Value"));
    p->set_lease(r.int64(*put, "LeaseID"));
  } else if (type == "delete-operation") {
    const Value* del = r.object(v, "Delete");
    if (del == nullptr) return r.fail(v, "Delete: expected the delete of a delete-operation");
    op->mutable_request_delete_range()->set_key(r.string(*del, "Key"));
  } else {
    r.fail(v, "Type: expected range-operation, put-operation or delete-operation, got '" + type + "'");
  }
}

// Conditions [{Key, ExpectedRevision, ExpectedVersion}]: etcd's model compares the version when
// ExpectedVersion > 0, else the mod revision (0: the key does not exist).
void read_condition(Reader& r, const Value& v, etcdserverpb::Compare* c) {
  c->set_key(r.string(v, "Key"));
  c->set_result(etcdserverpb::Compare::EQUAL);
  const int64_t version = r.int64(v, "ExpectedVersion"), revision = r.int64(v, "ExpectedRevision");
  if (version < 0 || revision < 0)
    r.fail(r.at(v, version < 0 ? "ExpectedVersion" : "ExpectedRevision"),
           "a condition: expected ExpectedRevision and ExpectedVersion >= 0");
  if (version > 0) {
    c->set_target(etcdserverpb::Compare::VERSION);
    c->set_version(version);
  } else {
    c->set_target(etcdserverpb::Compare::MOD);
    c->set_mod_revision(revision);
  }
}

void read_txn_request(Reader& r, const Value& v, etcdserverpb::TxnRequest* t) {
  if (const Value* conds = r.array(v, "Conditions"))
    for (const Value& c : conds->items()) read_condition(r, c, t->add_compare());
  if (const Value* ops = r.array(v, "OperationsOnSuccess"))
    for (const Value& op : ops->items()) read_request_op(r, op, t->add_success());
  if (const Value* ops = r.array(v, "OperationsOnFailure"))
    for (const Value& op : ops->items()) read_request_op(r, op, t->add_failure());
}

// Results [{KVs, Count, Deleted}], one per operation of the branch that ran.
void read_txn_response(Reader& r, const Value& v, const etcdserverpb::TxnRequest& q, etcdserverpb::TxnResponse* out) {
  out->set_succeeded(!r.boolean(v, "Failure"));
  const auto& branch = out->succeeded() ? q.success() : q.failure();
  const Value* results = r.array(v, "Results");
  const size_t n = results == nullptr ? 0 : results->items().size();
  if (n != static_cast<size_t>(branch.size()))
    return r.fail(v, "Results: expected one result per operation of the branch that ran (" +
                         std::to_string(branch.size()) + "), got " + std::to_string(n));
  for (size_t i = 0; i < n; ++i) {
    const Value& res = results->items()[i];
    auto* op = out->add_responses();
    const auto& req = branch[static_cast<int>(i)];
    if (req.has_request_range()) read_range_response(r, res, op->mutable_response_range());
    if (req.has_request_put()) op->mutable_response_put();
    if (req.has_request_delete_range()) op->mutable_response_delete_range()->set_deleted(r.int64(res, "Deleted"));
  }
}

// Input {Type, Range, Txn, LeaseGrant, LeaseRevoke, Defragment, Compact}: the request of `type`.
// False for a defragmentation (no effect on any key).
bool read_request(Reader& r, const Value& in, const std::string& type, ApiRequest* q) {
  auto part = [&](const char* name) -> const Value* {
    const Value* v = r.object(in, name);
    if (v == nullptr) r.fail(in, std::string(name) + ": expected the request of a " + type + " operation");
    return v;
  };
  if (type == "range") {
    if (const Value* v = part("Range")) {
      read_range_options(r, *v, q->mutable_range());
      q->mutable_range()->set_revision(r.int64(*v, "Revision"));
    }
  } else if (type == "txn") {
    if (const Value* v = part("Txn")) read_txn_request(r, *v, q->mutable_txn());
  } else if (type == "leaseGrant") {
    if (const Value* v = part("LeaseGrant")) q->mutable_lease_grant()->set_id(r.int64(*v, "LeaseID"));
  } else if (type == "leaseRevoke") {
    if (const Value* v = part("LeaseRevoke")) q->mutable_lease_revoke()->set_id(r.int64(*v, "LeaseID"));
  } else if (type == "compact") {
    if (const Value* v = part("Compact")) q->mutable_compaction()->set_revision(r.int64(*v, "Revision"));
  } else if (type == "defragment") {
    return false;
  } else {
    r.fail(in, "Type: expected range, txn, leaseGrant, leaseRevoke, defragment or compact, got '" + type + "'");
  }
  return true;
}

// An answered request's response (Output with neither Error nor ClientError). Revision is the
// header's; a compaction's is -1 in a report (not a linearizable answer) and is left unset.
void read_response(Reader& r, const Value& out, const ApiRequest& q, ApiResponse* resp) {
  const int64_t revision = r.int64(out, "Revision");
  auto part = [&](const char* name) -> const Value* {
    const Value* v = r.object(out, name);
    if (v == nullptr) r.fail(out, std::string(name) + ": expected the response of an answered request");
    return v;
  };
  etcdserverpb::ResponseHeader* header = nullptr;
  if (q.has_range()) {
    if (const Value* v = part("Range")) read_range_response(r, *v, resp->mutable_range());
    header = resp->mutable_range()->mutable_header();
  } else if (q.has_txn()) {
    if (const Value* v = part("Txn")) read_txn_response(r, *v, q.txn(), resp->mutable_txn());
    header = resp->mutable_txn()->mutable_header();
  } else if (q.has_lease_grant()) {
    // etcd's robustness client records the granted id in the request only (the response's is 0).
    if (const Value* v = part("LeaseGrant")) resp->mutable_lease_grant()->set_id(r.int64(*v, "LeaseID"));
    if (resp->lease_grant().id() == 0) resp->mutable_lease_grant()->set_id(q.lease_grant().id());
    header = resp->mutable_lease_grant()->mutable_header();
  } else if (q.has_lease_revoke()) {
    header = resp->mutable_lease_revoke()->mutable_header();
  } else if (q.has_compaction()) {
    resp->mutable_compaction();
    return;
  }
  if (header == nullptr) return;
  if (revision < 1) r.fail(r.at(out, "Revision"), "Revision: expected the store revision (>= 1) of an answered request, got " +
                                    std::to_string(revision));
  header->set_revision(revision);
}

}  // namespace

bool read_operation(Reader& r, const Value& record, Operation* op, std::string* member_id) {
  const Value* in = r.object(record, "Input");
  const Value* out = r.object(record, "Output");
  if (in == nullptr || out == nullptr) {
    r.fail(record, "expected a Porcupine operation with Input and Output (an operations.json record)");
    return false;
  }
  const int64_t stream = r.int64(record, "ClientId");
  if (stream < 0 || stream > std::numeric_limits<uint32_t>::max())
    r.fail(r.at(record, "ClientId"), "ClientId: expected a stream id from 0 to 2^32 - 1, got " + std::to_string(stream));
  op->client = static_cast<uint32_t>(stream);
  op->invoke_ns = r.int64(record, "Call");
  op->return_ns = r.int64(record, "Return");
  if (op->return_ns < op->invoke_ns) r.fail(r.at(record, "Return"), "Return: expected a time at or after Call");
  if (!read_request(r, *in, r.string(*in, "Type"), &op->request)) return false;
  *member_id = r.string(*out, "member-id");
  const std::string error = r.string(*out, "Error"), client_error = r.string(*out, "ClientError");
  if (!error.empty() || r.boolean(*out, "Persisted")) {
    // The client saw an error: the request may still have taken effect, at any later time.
    op->outcome = Outcome::kUnknown;
    op->response.mutable_error()->set_message(error.empty() ? "persisted, unanswered" : error);
  } else if (!client_error.empty()) {
    op->outcome = Outcome::kFailed;  // a compaction etcd refused (compacted, or a future revision)
    op->response.mutable_error()->set_message(client_error);
  } else {
    op->outcome = Outcome::kOk;
    read_response(r, *out, op->request, &op->response);
  }
  return true;
}

}  // namespace dst::history::report_import
