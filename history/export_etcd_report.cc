// See export_etcd_report.h. `E:` below is etcd's tests/robustness/ (etcd-io/etcd at c34dc7e); its
// structs' fields are written in declaration order, embedded structs flattened, as encoding/json
// does; `omitempty` only where E:model/types.go, watch.go and replay.go tag it.
#include "history/export_etcd_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

#include "base/assert.h"
#include "history/etcd_report_format.h"
#include "history/go_json_writer.h"
#include "history/request_text.h"

namespace dst::history {

namespace {

using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;
using etcdserverpb::Compare;
using etcdserverpb::RangeRequest;
using etcdserverpb::RequestOp;
using etcdserverpb::ResponseOp;
using google::protobuf::RepeatedPtrField;

// What a failed request's error says when the member's answer had no text (clientv3's timeout).
constexpr char kUnknownErrorDefault[] = "context deadline exceeded";
// etcd's mvcc errors (server/storage/mvcc/kvstore.go:38-39), which E:model/history.go:290-297
// records for a refused compaction.
constexpr char kErrCompacted[] = "mvcc: required revision has been compacted";
constexpr char kErrFutureRev[] = "mvcc: required revision is a future revision";
// clientv3's WatchResponse.Err() for a compaction: rpctypes.ErrCompacted (api/v3rpc/rpctypes/error.go:32).
constexpr char kWatchErrCompacted[] = "etcdserver: mvcc: required revision has been compacted";
// E:model/types.go:30: the Revision of compact and defragment responses.
constexpr int64_t kRevisionForNonLinearizableResponse = -1;

Status refuse(const Operation& op, const std::string& why) {
  return Status(StatusCode::kInvalidArgument, "operation " + std::to_string(op.id) + " (client " +
                                                  std::to_string(op.client) + "): " + why +
                                                  "; etcd's robustness report cannot express it");
}

// ---- Which operations go in, and how --------------------------------------------------------

enum class Fate : uint8_t { kWrite, kClientError, kLeaveOutOp, kLeaveOutRead };

struct Plan {
  Fate fate = Fate::kWrite;
  bool read = false;     // E:model/types.go:53 IsRead: a range, or a txn of ranges only
  bool swapped = false;  // txn: its one "key exists" compare written as "key absent", branches swapped
  std::string client_error;
};

// Why etcd's model (E:model/deterministic.go:159-171, :287-325) cannot serve `r` as a member
// does, or "" when it can. In a txn a range also has no revision (E:model/types.go:106-111).
std::string range_inexpressible(const RangeRequest& r, bool in_txn) {
  const bool by_key_ascending = r.sort_target() == RangeRequest::KEY &&
                                (r.sort_order() == RangeRequest::NONE || r.sort_order() == RangeRequest::ASCEND);
  if (r.serializable()) return "a serializable range";
  if (!by_key_ascending) return "a range sorted other than by key ascending";
  if (r.count_only()) return "a count-only range";
  if (r.min_mod_revision() != 0 || r.max_mod_revision() != 0 || r.min_create_revision() != 0 ||
      r.max_create_revision() != 0)
    return "a range with revision filters";
  // The model compares keys with End as a plain string, so "\0" (from the key on) selects nothing.
  if (r.range_end() == std::string(1, '\0')) return "a from-key range";
  // The model drops values for keys-only on a key range only (deterministic.go:300 vs :315).
  if (r.keys_only() && r.range_end().empty()) return "a keys-only range of one key";
  if (r.limit() < 0 || r.revision() < 0) return "a range with a negative limit or revision";
  if (in_txn && r.revision() != 0) return "a range at a revision inside a txn";
  return "";
}

// A compare as etcd's EtcdCondition {ExpectedRevision, ExpectedVersion}, which the model checks
// as: version == ExpectedVersion when that is > 0, else mod_revision == ExpectedRevision
// (E:model/deterministic.go:177-191; an absent key has both 0).
std::optional<std::pair<int64_t, int64_t>> condition_of(const Compare& c) {
  if (!c.range_end().empty() || c.result() != Compare::EQUAL) return std::nullopt;
  switch (c.target()) {
    case Compare::MOD:
      if (c.mod_revision() < 0) return std::nullopt;
      return std::make_pair(c.mod_revision(), int64_t{0});
    case Compare::VERSION:  // version == 0: the key is absent, which is mod == 0
      if (c.version() < 0) return std::nullopt;
      return std::make_pair(int64_t{0}, c.version());
    case Compare::CREATE:  // create == 0: absent too; another create revision is not kept by the model
      if (c.create_revision() != 0) return std::nullopt;
      return std::make_pair(int64_t{0}, int64_t{0});
    default: return std::nullopt;
  }
}

// `version|create|mod(key) > 0` or `!= 0`: the key exists, the negation of "mod == 0".
bool key_exists_compare(const Compare& c) {
  if (!c.range_end().empty() || (c.result() != Compare::GREATER && c.result() != Compare::NOT_EQUAL)) return false;
  switch (c.target()) {
    case Compare::VERSION: return c.version() == 0;
    case Compare::CREATE: return c.create_revision() == 0;
    case Compare::MOD: return c.mod_revision() == 0;
    default: return false;
  }
}

Status check_txn_op(const Operation& op, const RequestOp& o) {
  switch (o.request_case()) {
    case RequestOp::kRequestRange: {
      const std::string why = range_inexpressible(o.request_range(), true);
      return why.empty() ? Status::ok() : refuse(op, why + " inside a txn");
    }
    case RequestOp::kRequestPut:
      if (o.request_put().ignore_value() || o.request_put().ignore_lease())
        return refuse(op, "a txn put with ignore_value or ignore_lease");
      return Status::ok();
    case RequestOp::kRequestDeleteRange:
      if (!o.request_delete_range().range_end().empty()) return refuse(op, "a txn delete of a range");
      return Status::ok();
    case RequestOp::kRequestTxn: return refuse(op, "a nested txn");
    default: return refuse(op, "an empty txn operation");
  }
}

bool response_answers(const RequestOp& req, const ResponseOp& resp) {
  switch (req.request_case()) {
    case RequestOp::kRequestRange: return resp.has_response_range();
    case RequestOp::kRequestPut: return resp.has_response_put();
    case RequestOp::kRequestDeleteRange: return resp.has_response_delete_range();
    default: return false;
  }
}

// A txn as etcd's report says it, or why it cannot.
Result<Plan> plan_txn_as_written(const Operation& op) {
  const etcdserverpb::TxnRequest& t = op.request.txn();
  Plan p;
  p.swapped = t.compare_size() == 1 && key_exists_compare(t.compare(0));
  for (const Compare& c : t.compare())
    if (!p.swapped && !condition_of(c))
      return refuse(op, "the compare `" + compare_text(c) +
                            "` (etcd's conditions: mod == r, version == v, key absent)");
  p.read = true;
  for (const auto* branch : {&t.success(), &t.failure()}) {
    for (const RequestOp& o : *branch) {
      Status s = check_txn_op(op, o);
      if (!s.is_ok()) return s;
      p.read = p.read && o.has_request_range();
    }
  }
  if (op.outcome != Outcome::kOk) return p;
  const etcdserverpb::TxnResponse& r = op.response.txn();
  const auto& executed = r.succeeded() ? t.success() : t.failure();
  bool answers = op.response.has_txn() && r.responses_size() == executed.size();
  for (int i = 0; answers && i < executed.size(); ++i) answers = response_answers(executed[i], r.responses(i));
  if (!answers) return refuse(op, "a txn response that does not answer its request");
  return p;
}

// Whether a txn only reads (ranges in both branches, nested txns of ranges too): leaving it out
// of the report only weakens what the report says, as leaving out a read does.
bool reads_only(const etcdserverpb::TxnRequest& t) {
  for (const auto* branch : {&t.success(), &t.failure()})
    for (const RequestOp& o : *branch)
      if (!o.has_request_range() && !(o.has_request_txn() && reads_only(o.request_txn()))) return false;
  return true;
}

Result<Plan> plan_txn(const Operation& op) {
  Result<Plan> p = plan_txn_as_written(op);
  if (p.is_ok() || !reads_only(op.request.txn())) return p;
  Plan left_out;  // a read-only txn etcd's report cannot say: left out as such reads are
  left_out.fate = Fate::kLeaveOutRead;
  left_out.read = true;
  return left_out;
}

// The response case that answers a request of each written kind.
ApiResponse::ResponseCase answer_case(ApiRequest::RequestCase c) {
  switch (c) {
    case ApiRequest::kRange: return ApiResponse::kRange;
    case ApiRequest::kPut: return ApiResponse::kPut;
    case ApiRequest::kDeleteRange: return ApiResponse::kDeleteRange;
    case ApiRequest::kTxn: return ApiResponse::kTxn;
    case ApiRequest::kCompaction: return ApiResponse::kCompaction;
    case ApiRequest::kLeaseGrant: return ApiResponse::kLeaseGrant;
    case ApiRequest::kLeaseRevoke: return ApiResponse::kLeaseRevoke;
    case ApiRequest::kDefragment: return ApiResponse::kDefragment;
    default: return ApiResponse::RESPONSE_NOT_SET;
  }
}

// A refused compaction as E:model/history.go:287-302 records it: ClientError, else left out.
Plan plan_failed(const Operation& op) {
  Plan p;
  p.fate = Fate::kLeaveOutOp;
  if (!op.request.has_compaction() || !op.response.has_error()) return p;
  const std::string& message = op.response.error().message();
  for (const char* e : {kErrCompacted, kErrFutureRev}) {
    if (message.find(e) != std::string::npos) {
      p.fate = Fate::kClientError;
      p.client_error = e;
      return p;
    }
  }
  return p;
}

Result<Plan> plan_of(const Operation& op) {
  if (op.outcome == Outcome::kFailed) return plan_failed(op);
  Plan p;
  const ApiRequest& r = op.request;
  switch (r.request_case()) {
    case ApiRequest::kRange:
      if (!range_inexpressible(r.range(), false).empty()) p.fate = Fate::kLeaveOutRead;
      p.read = true;
      break;
    case ApiRequest::kPut:
      if (r.put().ignore_value() || r.put().ignore_lease())
        return refuse(op, "a put with ignore_value or ignore_lease");
      break;
    case ApiRequest::kDeleteRange:
      if (!r.delete_range().range_end().empty()) return refuse(op, "a delete of a range");
      break;
    case ApiRequest::kTxn: {
      Result<Plan> t = plan_txn(op);
      if (!t.is_ok()) return t.status();
      p = *t;
      break;
    }
    case ApiRequest::kCompaction:
    case ApiRequest::kLeaseGrant:
    case ApiRequest::kLeaseRevoke:
    case ApiRequest::kDefragment: break;
    default: p.fate = Fate::kLeaveOutOp;
  }
  if (p.fate != Fate::kWrite) return p;
  if (op.outcome == Outcome::kOk && op.response.response_case() != answer_case(r.request_case()))
    return refuse(op, "an ok response that does not answer its request");
  return p;
}

// ---- Requests (E:model/types.go EtcdRequest) ------------------------------------------------

// ValueOrHash (E:model/types.go:230-245), both fields omitempty: {} for the empty value.
void write_value(GoJsonWriter& w, const std::string& value) {
  uint32_t hash = 0;
  const bool token = etcd_report::parse_hash_token(value, &hash);
  const bool hashed = token || value.size() >= etcd_report::kValueHashBytesMin;
  if (!token && hashed) hash = etcd_report::fnv32a(value);
  w.begin_object();
  if (hashed && hash != 0) {
    w.member_unsigned("Hash", hash);
  } else if (!hashed && !value.empty()) {
    w.member_string("Value", value);
  }
  w.end_object();
}

// RangeOptions {Start, End, Limit, KeysOnly}: all zero for a txn operation of another type.
void write_range_options(GoJsonWriter& w, const RangeRequest& r) {
  w.member_string("Start", r.key());
  w.member_string("End", r.range_end());
  w.member_number("Limit", r.limit());
  w.member_bool("KeysOnly", r.keys_only());
}

// EtcdOperation {Type, Range, Put, Delete}: every member always written. etcd's recorder keeps a
// txn put's value raw (E:model/history.go:233) but hashes every value a read returns (:388), so
// its model would see a long txn value differ from its own read; hashing here too keeps them equal.
void write_etcd_operation(GoJsonWriter& w, const RequestOp& o) {
  w.begin_object();
  w.member_string("Type", o.has_request_range() ? "range-operation"
                          : o.has_request_put() ? "put-operation"
                                                : "delete-operation");
  w.key("Range");
  w.begin_object();
  write_range_options(w, o.request_range());
  w.end_object();
  w.key("Put");
  w.begin_object();
  w.member_string("Key", o.request_put().key());
  w.key("Value");
  write_value(w, o.request_put().value());
  w.member_number("LeaseID", o.request_put().lease());
  w.end_object();
  w.key("Delete");
  w.begin_object();
  w.member_string("Key", o.request_delete_range().key());
  w.end_object();
  w.end_object();
}

void write_etcd_operations(GoJsonWriter& w, const RepeatedPtrField<RequestOp>& ops) {
  w.begin_array();
  for (const RequestOp& o : ops) write_etcd_operation(w, o);
  w.end_array();
}

// TxnRequest. A plain put or delete has null Conditions and OperationsOnFailure
// (E:model/history.go:405-419); a txn has lists, [] when empty (:158-170).
void write_txn_request(GoJsonWriter& w, const Operation& op, const Plan& p) {
  const ApiRequest& r = op.request;
  w.begin_object();
  w.key("Conditions");
  if (!r.has_txn()) {
    DST_ASSERT(r.has_put() || r.has_delete_range());
    w.null();
    w.key("OperationsOnSuccess");
    RepeatedPtrField<RequestOp> one;
    if (r.has_put()) *one.Add()->mutable_request_put() = r.put();
    else *one.Add()->mutable_request_delete_range() = r.delete_range();
    write_etcd_operations(w, one);
    w.key("OperationsOnFailure");
    w.null();
    w.end_object();
    return;
  }
  w.begin_array();
  for (const Compare& c : r.txn().compare()) {
    const auto cond = p.swapped ? std::make_pair(int64_t{0}, int64_t{0}) : *condition_of(c);
    w.begin_object();
    w.member_string("Key", c.key());
    w.member_number("ExpectedRevision", cond.first);
    w.member_number("ExpectedVersion", cond.second);
    w.end_object();
  }
  w.end_array();
  w.key("OperationsOnSuccess");
  write_etcd_operations(w, p.swapped ? r.txn().failure() : r.txn().success());
  w.key("OperationsOnFailure");
  write_etcd_operations(w, p.swapped ? r.txn().success() : r.txn().failure());
  w.end_object();
}

const char* request_type(ApiRequest::RequestCase c) {
  switch (c) {
    case ApiRequest::kRange: return "range";
    case ApiRequest::kLeaseGrant: return "leaseGrant";
    case ApiRequest::kLeaseRevoke: return "leaseRevoke";
    case ApiRequest::kDefragment: return "defragment";
    case ApiRequest::kCompaction: return "compact";
    default: return "txn";  // put, delete, txn
  }
}

// A member holding a one-field object, or null when `present` is false.
void write_one_field(GoJsonWriter& w, const char* member, bool present, const char* field, int64_t v) {
  w.key(member);
  if (!present) return w.null();
  w.begin_object();
  w.member_number(field, v);
  w.end_object();
}

// EtcdRequest {Type, LeaseGrant, LeaseRevoke, Range, Txn, Defragment, Compact}.
void write_request(GoJsonWriter& w, const Operation& op, const Plan& p) {
  const ApiRequest& r = op.request;
  const ApiRequest::RequestCase c = r.request_case();
  w.begin_object();
  w.member_string("Type", request_type(c));
  // A grant's LeaseID is the granted one (E:model/history.go:106-111); unknown: the one asked for.
  const int64_t lease = op.outcome == Outcome::kOk && r.has_lease_grant() ? op.response.lease_grant().id()
                                                                          : r.lease_grant().id();
  write_one_field(w, "LeaseGrant", c == ApiRequest::kLeaseGrant, "LeaseID", lease);
  write_one_field(w, "LeaseRevoke", c == ApiRequest::kLeaseRevoke, "LeaseID", r.lease_revoke().id());
  w.key("Range");
  if (c == ApiRequest::kRange) {
    w.begin_object();
    write_range_options(w, r.range());
    w.member_number("Revision", r.range().revision());
    w.end_object();
  } else {
    w.null();
  }
  w.key("Txn");
  if (c == ApiRequest::kPut || c == ApiRequest::kDeleteRange || c == ApiRequest::kTxn) write_txn_request(w, op, p);
  else w.null();
  w.key("Defragment");
  if (c == ApiRequest::kDefragment) {
    w.begin_object();
    w.end_object();
  } else {
    w.null();
  }
  write_one_field(w, "Compact", c == ApiRequest::kCompaction, "Revision", r.compaction().revision());
  w.end_object();
}

// ---- Responses (E:model/types.go MaybeEtcdResponse) -----------------------------------------

// []KeyValue {Key, Value, ModRevision omitempty, Version omitempty}; [] when empty
// (E:model/history.go:381-395).
void write_kvs(GoJsonWriter& w, const RepeatedPtrField<mvccpb::KeyValue>& kvs) {
  w.begin_array();
  for (const mvccpb::KeyValue& kv : kvs) {
    w.begin_object();
    w.member_string("Key", kv.key());
    w.key("Value");
    write_value(w, kv.value());
    if (kv.mod_revision() != 0) w.member_number("ModRevision", kv.mod_revision());
    if (kv.version() != 0) {
      w.member_number("Version", kv.version());
    }
    w.end_object();
  }
  w.end_array();
}

// EtcdOperationResult {KVs, Count, Deleted} (E:model/history.go:246-276): a put's is all zero.
void write_result(GoJsonWriter& w, const ResponseOp* r, int64_t deleted) {
  w.begin_object();
  w.key("KVs");
  if (r != nullptr && r->has_response_range()) write_kvs(w, r->response_range().kvs());
  else w.null();
  w.member_number("Count", r != nullptr && r->has_response_range() ? r->response_range().count() : 0);
  const bool delete_result = r != nullptr && r->has_response_delete_range();
  w.member_number("Deleted", delete_result ? r->response_delete_range().deleted() : deleted);
  w.end_object();
}

void write_txn_response(GoJsonWriter& w, const Operation& op, const Plan& p) {
  const ApiResponse& r = op.response;
  w.begin_object();
  w.member_bool("Failure", r.has_txn() && (p.swapped ? r.txn().succeeded() : !r.txn().succeeded()));
  w.key("Results");
  w.begin_array();
  if (r.has_txn()) {
    for (const ResponseOp& o : r.txn().responses()) write_result(w, &o, 0);
  } else {
    write_result(w, nullptr, r.has_delete_range() ? r.delete_range().deleted() : 0);
  }
  w.end_array();
  w.end_object();
}

const etcdserverpb::ResponseHeader* header_of(const ApiResponse& r) {
  switch (r.response_case()) {
    case ApiResponse::kRange: return &r.range().header();
    case ApiResponse::kPut: return &r.put().header();
    case ApiResponse::kDeleteRange: return &r.delete_range().header();
    case ApiResponse::kTxn: return &r.txn().header();
    case ApiResponse::kLeaseGrant: return &r.lease_grant().header();
    case ApiResponse::kLeaseRevoke: return &r.lease_revoke().header();
    default: return nullptr;  // compact and defragment: etcd records no header (history.go:512-526)
  }
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

// The tail of MaybeEtcdResponse: ClientError, Revision, member-id (omitempty; a hex string,
// E:model/types.go:146-150), Persisted, PersistedRevision, Error.
void write_response_tail(GoJsonWriter& w, const Operation& op, const Plan& p, bool ok) {
  const ApiRequest::RequestCase c = op.request.request_case();
  const etcdserverpb::ResponseHeader* header = ok ? header_of(op.response) : nullptr;
  w.member_string("ClientError", p.client_error);
  w.key("Revision");
  const bool non_linearizable = c == ApiRequest::kCompaction || c == ApiRequest::kDefragment;
  if (ok && non_linearizable) w.number(kRevisionForNonLinearizableResponse);
  else w.number(header != nullptr ? header->revision() : 0);
  if (header != nullptr && header->member_id() != 0) w.member_string("member-id", hex(header->member_id()));
  w.member_bool("Persisted", false);
  w.member_number("PersistedRevision", 0);
  w.key("Error");
  if (op.outcome != Outcome::kUnknown) return w.string("");
  const bool has_text = op.response.has_error() && !op.response.error().message().empty();
  w.string(has_text ? op.response.error().message() : kUnknownErrorDefault);
}

void write_response(GoJsonWriter& w, const Operation& op, const Plan& p) {
  const bool ok = p.fate == Fate::kWrite && op.outcome == Outcome::kOk;
  const ApiRequest::RequestCase c = ok ? op.request.request_case() : ApiRequest::REQUEST_NOT_SET;
  w.begin_object();
  w.key("Txn");
  if (c == ApiRequest::kPut || c == ApiRequest::kDeleteRange || c == ApiRequest::kTxn) write_txn_response(w, op, p);
  else w.null();
  w.key("Range");
  if (c == ApiRequest::kRange) {
    w.begin_object();
    w.key("KVs");
    write_kvs(w, op.response.range().kvs());
    w.member_number("Count", op.response.range().count());
    w.end_object();
  } else {
    w.null();
  }
  // etcd records a grant's LeaseID in the request only (E:model/history.go:496-498).
  write_one_field(w, "LeaseGrant", c == ApiRequest::kLeaseGrant, "LeaseID", 0);
  for (const auto& [member, kind] : {std::make_pair("LeaseRevoke", ApiRequest::kLeaseRevoke),
                                     std::make_pair("Defragment", ApiRequest::kDefragment),
                                     std::make_pair("Compact", ApiRequest::kCompaction)}) {
    w.key(member);
    if (c != kind) {
      w.null();
      continue;
    }
    w.begin_object();
    w.end_object();
  }
  write_response_tail(w, op, p, ok);
  w.end_object();
}

// porcupine.Operation {ClientId, Input, Call, Output, Return, Metadata}; Metadata = Output
// (E:model/history.go:194-204, report/client.go).
std::string operation_record(const Operation& op, const Plan& p, uint64_t stream, int64_t return_ns) {
  DST_ASSERT(p.fate == Fate::kWrite || p.fate == Fate::kClientError);
  DST_ASSERT_LE(op.invoke_ns, return_ns);
  GoJsonWriter w;
  w.begin_object();
  w.member_unsigned("ClientId", stream);
  w.key("Input");
  write_request(w, op, p);
  w.member_number("Call", op.invoke_ns);
  w.key("Output");
  write_response(w, op, p);
  w.member_number("Return", return_ns);
  w.key("Metadata");
  write_response(w, op, p);
  w.end_object();
  return w.take() + "\n";
}

// ---- Watches (E:model/watch.go, replay.go; client/client.go ToWatchResponse) -------------------

// A watch of every key ("" or "\0" to "\0"): clientv3's WithPrefix of the empty key.
bool watches_every_key(const etcdserverpb::WatchCreateRequest& q) {
  return q.range_end() == std::string(1, '\0') && (q.key().empty() || q.key() == std::string(1, '\0'));
}

// One clientv3 watch: every segment watches the same keys the same way (a resume moves only the
// start revision), without filters or fragments, over one key or a prefix.
bool watch_expressible(const Watch& w) {
  if (w.segments.empty()) return false;
  const etcdserverpb::WatchCreateRequest& first = w.segments[0].request;
  for (const WatchSegment& s : w.segments) {
    const etcdserverpb::WatchCreateRequest& r = s.request;
    if (r.filters_size() != 0 || r.fragment()) return false;
    if (r.key() != first.key() || r.range_end() != first.range_end() || r.prev_kv() != first.prev_kv() ||
        r.progress_notify() != first.progress_notify())
      return false;
  }
  return first.range_end().empty() || first.range_end() == etcd_report::prefix_end(first.key()) ||
         watches_every_key(first);
}

// The responses clientv3 hands the application (client/v3/watch.go run() and serveSubstream()),
// each with whether it is a failed creation: `created` acks are swallowed (no WithCreatedNotify,
// :846, :875) unless the creation failed, which clientv3 reports as a closing error (:468-472,
// :495); a cancellation without a compaction just closes the channel (:620-628); after a response
// with an error nothing more comes (:827).
std::vector<std::pair<const WatchResponse*, bool>> delivered(const Watch& w) {
  std::vector<std::pair<const WatchResponse*, bool>> out;
  for (const WatchSegment& s : w.segments) {
    for (const WatchResponse& wr : s.responses) {
      const etcdserverpb::WatchResponse& r = wr.response;
      if (r.created()) {
        if (r.watch_id() != -1 && !(r.canceled() && !r.cancel_reason().empty())) continue;
        out.emplace_back(&wr, true);
        return out;
      }
      if (r.canceled() && r.compact_revision() == 0) return out;
      out.emplace_back(&wr, false);
      if (r.compact_revision() != 0) return out;
    }
  }
  return out;
}

// WatchEvent: Type, Key, Value, Revision, IsCreate, PrevValue, all omitempty (replay.go:140-155);
// Value is a struct, so always written.
void write_event(GoJsonWriter& w, const mvccpb::Event& e) {
  w.begin_object();
  w.member_string("Type", e.type() == mvccpb::Event::DELETE ? "delete-operation" : "put-operation");
  if (!e.kv().key().empty()) w.member_string("Key", e.kv().key());
  w.key("Value");
  write_value(w, e.kv().value());
  if (e.kv().mod_revision() != 0) w.member_number("Revision", e.kv().mod_revision());
  // clientv3's Event.IsCreate: a put whose create revision is its mod revision.
  if (e.type() == mvccpb::Event::PUT && e.kv().create_revision() == e.kv().mod_revision())
    w.member_bool("IsCreate", true);
  if (e.has_prev_kv()) {
    w.key("PrevValue");
    w.begin_object();
    w.key("Value");
    write_value(w, e.prev_kv().value());
    if (e.prev_kv().mod_revision() != 0) w.member_number("ModRevision", e.prev_kv().mod_revision());
    if (e.prev_kv().version() != 0) {
      w.member_number("Version", e.prev_kv().version());
    }
    w.end_object();
  }
  w.end_object();
}

// WatchResponse {Events, IsProgressNotify, Revision, Time, Error}, all omitempty. A failed
// creation comes with an empty header and the cancel reason as its error (watch.go:495).
void write_watch_response(GoJsonWriter& w, const WatchResponse& wr, bool failed_creation) {
  const etcdserverpb::WatchResponse& r = wr.response;
  w.begin_object();
  if (!failed_creation && r.events_size() > 0) {
    w.key("Events");
    w.begin_array();
    for (const mvccpb::Event& e : r.events()) write_event(w, e);
    w.end_array();
  }
  // clientv3's IsProgressNotify (watch.go:139-141); created acks never get here.
  if (!failed_creation && r.events_size() == 0 && !r.canceled() && r.compact_revision() == 0 &&
      r.header().revision() != 0) {
    w.member_bool("IsProgressNotify", true);
  }
  if (!failed_creation && r.header().revision() != 0) w.member_number("Revision", r.header().revision());
  if (wr.at_ns != 0) {
    w.member_number("Time", wr.at_ns);
  }
  // clientv3's Err() (watch.go:123-136): a compaction first, whatever else the response says.
  const std::string error = failed_creation ? r.cancel_reason() : r.compact_revision() != 0 ? kWatchErrCompacted : "";
  if (!error.empty()) w.member_string("Error", error);
  w.end_object();
}

// WatchOperation {Request, Responses omitempty}; WatchRequest has no omitempty tags.
std::string watch_record(const Watch& watch) {
  const etcdserverpb::WatchCreateRequest& q = watch.segments[0].request;
  GoJsonWriter w;
  w.begin_object();
  w.key("Request");
  w.begin_object();
  w.member_string("Key", watches_every_key(q) ? std::string() : q.key());
  w.member_number("Revision", q.start_revision());
  w.member_bool("WithPrefix", !q.range_end().empty());
  w.member_bool("WithProgressNotify", q.progress_notify());
  w.member_bool("WithPrevKV", q.prev_kv());
  w.end_object();
  const auto responses = delivered(watch);
  if (!responses.empty()) {
    w.key("Responses");
    w.begin_array();
    for (const auto& [wr, failed_creation] : responses) write_watch_response(w, *wr, failed_creation);
    w.end_array();
  }
  w.end_object();
  return w.take() + "\n";
}

// ---- The report --------------------------------------------------------------------------------

// The latest time the history knows: where operations that never returned end.
int64_t latest_time(const History& h) {
  int64_t t = 0;
  for (const Operation& op : h.operations) {
    t = std::max(t, op.invoke_ns);
    if (op.return_ns != kNeverReturned) t = std::max(t, op.return_ns);
  }
  for (const Watch& w : h.watches) {
    for (const WatchSegment& s : w.segments) {
      t = std::max(t, s.created_ns);
      for (const WatchResponse& r : s.responses) t = std::max(t, r.at_ns);
    }
  }
  return t;
}

// Porcupine's stream ids (E:model/history.go:304-321, identity/id.go:38-40): one counter; a
// client's stream is taken at its first operation and again after a write with unknown outcome.
class Streams {
 public:
  uint64_t of(uint32_t client) {
    auto [it, fresh] = current_.try_emplace(client, next_);
    if (fresh) ++next_;
    return it->second;
  }
  void renew(uint32_t client) { current_[client] = next_++; }

 private:
  std::map<uint32_t, uint64_t> current_;
  uint64_t next_ = 0;
};

Status write_operations(const History& h, std::map<uint32_t, EtcdReportClient>& clients, EtcdReport& report) {
  std::vector<const Operation*> order;
  order.reserve(h.operations.size());
  for (const Operation& op : h.operations) order.push_back(&op);
  std::stable_sort(order.begin(), order.end(), [](const Operation* a, const Operation* b) {
    return std::make_pair(a->invoke_ns, a->id) < std::make_pair(b->invoke_ns, b->id);
  });
  const int64_t latest = latest_time(h);
  Streams streams;
  std::map<uint32_t, bool> renew;  // client -> its last written operation was an unknown write
  for (const Operation* op : order) {
    Result<Plan> plan = plan_of(*op);
    if (!plan.is_ok()) return plan.status();
    if (plan->fate == Fate::kLeaveOutOp || plan->fate == Fate::kLeaveOutRead) {
      ++(plan->fate == Fate::kLeaveOutOp ? report.ops_left_out : report.reads_left_out);
      continue;
    }
    if (op->client == UINT32_MAX) return refuse(*op, "a client number without a client-N");
    if (renew[op->client]) streams.renew(op->client);
    const bool unknown = op->outcome == Outcome::kUnknown;
    renew[op->client] = unknown && !plan->read;
    int64_t ret = op->return_ns;
    if (unknown && ret == kNeverReturned) ret = std::max(latest, op->invoke_ns);
    if (ret < op->invoke_ns) return refuse(*op, "a return before its invocation");
    EtcdReportClient& c = clients[op->client];
    c.operations += operation_record(*op, *plan, streams.of(op->client), ret);
    ++c.operations_written;
  }
  return Status::ok();
}

}  // namespace

Result<EtcdReport> export_etcd_report(const History& h) {
  EtcdReport report;
  std::map<uint32_t, EtcdReportClient> clients;
  Status s = write_operations(h, clients, report);
  if (!s.is_ok()) return s;
  for (const Watch& w : h.watches) {
    if (!watch_expressible(w)) {
      ++report.watches_left_out;
      continue;
    }
    if (w.client == UINT32_MAX)
      return Status(StatusCode::kInvalidArgument,
                    "watch " + std::to_string(w.id) + ": a client number without a client-N");
    EtcdReportClient& c = clients[w.client];
    c.watch += watch_record(w);
    ++c.watches_written;
  }
  for (auto& [client, c] : clients) {
    c.id = client + 1;
    report.clients.push_back(std::move(c));
  }
  return report;
}

}  // namespace dst::history
