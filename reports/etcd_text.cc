// See etcd_text.h.
#include "reports/etcd_text.h"

#include "history/request_text.h"

namespace dst::reports {

namespace {

using history::compare_text;
using history::range_request_text;
using history::range_text;

using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;
using etcdserverpb::Compare;
using etcdserverpb::RequestOp;

std::string op_text(const RequestOp& op) {
  if (op.has_request_range()) return range_request_text(op.request_range());
  if (op.has_request_put()) return "put " + op.request_put().key() + "=" + op.request_put().value();
  if (op.has_request_delete_range())
    return "del " + range_text(op.request_delete_range().key(), op.request_delete_range().range_end());
  if (op.has_request_txn()) return "txn ...";
  return "?";
}

std::string ops_text(const google::protobuf::RepeatedPtrField<RequestOp>& ops) {
  std::string s;
  for (int i = 0; i < ops.size(); ++i) s += (i ? "; " : "") + op_text(ops[i]);
  return s;
}

std::string txn_text(const etcdserverpb::TxnRequest& t) {
  std::string s = "txn";
  if (t.compare_size() > 0) {
    s += " if ";
    for (int i = 0; i < t.compare_size(); ++i) s += (i ? " && " : "") + compare_text(t.compare(i));
  }
  if (t.success_size() > 0) s += " then " + ops_text(t.success());
  if (t.failure_size() > 0) s += " else " + ops_text(t.failure());
  return s;
}

std::string kvs_text(const etcdserverpb::RangeResponse& r, bool count_only) {
  if (count_only) return "count " + std::to_string(r.count());
  if (r.kvs_size() == 0) return "(none)";
  if (r.kvs_size() == 1) return r.kvs(0).value();
  return std::to_string(r.kvs_size()) + " kvs" + (r.more() ? " (more)" : "");
}

}  // namespace

std::string short_request(const ApiRequest& r) {
  switch (r.request_case()) {
    case ApiRequest::kRange: return range_request_text(r.range());
    case ApiRequest::kPut:
      return "put " + r.put().key() + "=" + r.put().value() + (r.put().lease() ? " lease " + std::to_string(r.put().lease()) : "");
    case ApiRequest::kDeleteRange: return "del " + range_text(r.delete_range().key(), r.delete_range().range_end());
    case ApiRequest::kTxn: return txn_text(r.txn());
    default: return history::other_request_text(r);
  }
}

std::string short_response(const history::Operation& op) {
  const ApiResponse& r = op.response;
  if (r.response_case() == ApiResponse::kError) return "error \"" + r.error().message() + "\"";
  if (op.outcome == history::Outcome::kUnknown && r.response_case() == ApiResponse::RESPONSE_NOT_SET) return "?";
  switch (r.response_case()) {
    case ApiResponse::kRange:
      return kvs_text(r.range(), op.request.has_range() && op.request.range().count_only()) + " @" +
             std::to_string(r.range().header().revision());
    case ApiResponse::kPut: return "rev " + std::to_string(r.put().header().revision());
    case ApiResponse::kDeleteRange:
      return "deleted " + std::to_string(r.delete_range().deleted()) + " @" +
             std::to_string(r.delete_range().header().revision());
    case ApiResponse::kTxn:
      return std::string(r.txn().succeeded() ? "succeeded" : "failed") + " @" + std::to_string(r.txn().header().revision());
    case ApiResponse::kCompaction: return "ok @" + std::to_string(r.compaction().header().revision());
    case ApiResponse::kLeaseGrant: return "lease " + std::to_string(r.lease_grant().id());
    case ApiResponse::kLeaseRevoke: return "rev " + std::to_string(r.lease_revoke().header().revision());
    default: return "?";
  }
}

std::string short_operation(const history::Operation& op) { return short_request(op.request) + " -> " + short_response(op); }

std::string watch_response_label(const etcdserverpb::WatchResponse& r) {
  if (r.canceled())
    return r.compact_revision() ? "canceled compact r" + std::to_string(r.compact_revision()) : "canceled";
  if (r.events_size() == 0) {
    if (r.created()) return "created";
    return "progress r" + std::to_string(r.header().revision());
  }
  const int64_t lo = r.events(0).kv().mod_revision(), hi = r.events(r.events_size() - 1).kv().mod_revision();
  std::string s = "r" + std::to_string(lo);
  if (hi != lo) s += ".." + std::to_string(hi);
  if (r.events_size() > 1) s += " (" + std::to_string(r.events_size()) + ")";
  return s;
}

std::string watch_response_events(const etcdserverpb::WatchResponse& r) {
  std::string s;
  for (int i = 0; i < r.events_size(); ++i) {
    const mvccpb::Event& e = r.events(i);
    s += i ? "; " : "";
    s += e.type() == mvccpb::Event::PUT ? "PUT " + e.kv().key() + "=" + e.kv().value() : "DELETE " + e.kv().key();
    s += " @" + std::to_string(e.kv().mod_revision());
  }
  if (r.canceled()) s += (s.empty() ? "" : "; ") + std::string("canceled ") + r.cancel_reason();
  if (s.empty()) s = r.created() ? "created" : "progress @" + std::to_string(r.header().revision());
  return s;
}

std::string watch_request_text(const etcdserverpb::WatchCreateRequest& w) {
  std::string s = range_text(w.key(), w.range_end());
  if (w.start_revision()) s += " from r" + std::to_string(w.start_revision());
  if (w.prev_kv()) s += " prev_kv";
  if (w.progress_notify()) s += " progress_notify";
  for (int f : w.filters()) s += f == 0 ? " noput" : " nodelete";
  return s;
}

}  // namespace dst::reports
