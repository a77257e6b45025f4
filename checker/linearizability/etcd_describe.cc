// Short, readable renderings of operations, verdicts and violations for the etcd checker.
#include <cstdio>

#include "checker/linearizability/etcd_checker.h"
#include "history/request_text.h"

namespace dst::checker::etcd {

namespace {

using history::compare_text;
using history::range_request_text;
using history::range_text;

using etcdserverpb::ApiRequest;
using etcdserverpb::Compare;
using etcdserverpb::RequestOp;
using etcdserverpb::ResponseOp;

std::string seconds(int64_t ns) {
  if (ns == history::kNeverReturned) return "never";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6fs", static_cast<double>(ns) / 1e9);
  return buf;
}

std::string kv_text(const mvccpb::KeyValue& kv) {
  return kv.key() + "=" + kv.value() + "@" + std::to_string(kv.mod_revision()) + "/v" + std::to_string(kv.version()) +
         (kv.lease() ? "/l" + std::to_string(kv.lease()) : "");
}

std::string op_text(const RequestOp& op);

std::string txn_text(const etcdserverpb::TxnRequest& t) {
  std::string s = "txn if(";
  for (int i = 0; i < t.compare_size(); ++i) s += (i ? ", " : "") + compare_text(t.compare(i));
  s += ") then(";
  for (int i = 0; i < t.success_size(); ++i) s += (i ? "; " : "") + op_text(t.success(i));
  s += ") else(";
  for (int i = 0; i < t.failure_size(); ++i) s += (i ? "; " : "") + op_text(t.failure(i));
  return s + ")";
}

std::string put_text(const etcdserverpb::PutRequest& p) {
  return "put " + p.key() + "=" + p.value() + (p.lease() ? " lease " + std::to_string(p.lease()) : "") +
         (p.prev_kv() ? " prev_kv" : "");
}

std::string del_text(const etcdserverpb::DeleteRangeRequest& d) {
  return "del " + range_text(d.key(), d.range_end()) + (d.prev_kv() ? " prev_kv" : "");
}

std::string op_text(const RequestOp& op) {
  if (op.has_request_range()) return range_request_text(op.request_range());
  if (op.has_request_put()) return put_text(op.request_put());
  if (op.has_request_delete_range()) return del_text(op.request_delete_range());
  if (op.has_request_txn()) return txn_text(op.request_txn());
  return "?";
}

std::string request_text(const ApiRequest& r) {
  switch (r.request_case()) {
    case ApiRequest::kRange: return range_request_text(r.range());
    case ApiRequest::kPut: return put_text(r.put());
    case ApiRequest::kDeleteRange: return del_text(r.delete_range());
    case ApiRequest::kTxn: return txn_text(r.txn());
    default: return history::other_request_text(r);
  }
}

std::string range_resp_text(const etcdserverpb::RangeResponse& r) {
  std::string s = "[";
  for (int i = 0; i < r.kvs_size() && i < 6; ++i) s += (i ? " " : "") + kv_text(r.kvs(i));
  if (r.kvs_size() > 6) s += " ...";
  s += "] count " + std::to_string(r.count());
  if (r.more()) s += " more";
  return s;
}

std::string response_op_text(const ResponseOp& r) {
  if (r.has_response_range()) return range_resp_text(r.response_range());
  if (r.has_response_put()) return r.response_put().has_prev_kv() ? "prev " + kv_text(r.response_put().prev_kv()) : "put";
  if (r.has_response_delete_range()) return "deleted " + std::to_string(r.response_delete_range().deleted());
  if (r.has_response_txn()) return r.response_txn().succeeded() ? "then" : "else";
  return "?";
}

std::string response_text(const etcdserverpb::ApiResponse& r) {
  switch (r.response_case()) {
    case etcdserverpb::ApiResponse::kError: return "error \"" + r.error().message() + "\"";
    case etcdserverpb::ApiResponse::kRange:
      return "rev " + std::to_string(r.range().header().revision()) + " " + range_resp_text(r.range());
    case etcdserverpb::ApiResponse::kPut:
      return "rev " + std::to_string(r.put().header().revision()) +
             (r.put().has_prev_kv() ? " prev " + kv_text(r.put().prev_kv()) : "");
    case etcdserverpb::ApiResponse::kDeleteRange:
      return "rev " + std::to_string(r.delete_range().header().revision()) + " deleted " +
             std::to_string(r.delete_range().deleted());
    case etcdserverpb::ApiResponse::kTxn: {
      std::string s = "rev " + std::to_string(r.txn().header().revision()) +
                      (r.txn().succeeded() ? " succeeded [" : " failed [");
      for (int i = 0; i < r.txn().responses_size(); ++i) s += (i ? "; " : "") + response_op_text(r.txn().responses(i));
      return s + "]";
    }
    case etcdserverpb::ApiResponse::kCompaction: return "rev " + std::to_string(r.compaction().header().revision());
    case etcdserverpb::ApiResponse::kLeaseGrant:
      return "rev " + std::to_string(r.lease_grant().header().revision()) + " lease " +
             std::to_string(r.lease_grant().id());
    case etcdserverpb::ApiResponse::kLeaseRevoke: return "rev " + std::to_string(r.lease_revoke().header().revision());
    default: return "(no response)";
  }
}

}  // namespace

std::string describe_response(const etcdserverpb::ApiResponse& response) { return response_text(response); }

std::string describe_operation(const history::Operation& op) {
  std::string s = "op " + std::to_string(op.id) + " c" + std::to_string(op.client) + " n" + std::to_string(op.member) +
                  " [" + seconds(op.invoke_ns) + ", " + seconds(op.return_ns) + "] " +
                  history::outcome_name(op.outcome) + " " + request_text(op.request);
  if (op.outcome != history::Outcome::kUnknown || op.response.response_case() != etcdserverpb::ApiResponse::RESPONSE_NOT_SET)
    s += " -> " + response_text(op.response);
  return s;
}

std::string EtcdViolation::to_string() const {
  std::string s = rule + ": " + message;
  if (revision) s += " (revision " + std::to_string(revision) + ")";
  for (const std::string& l : lines) s += "\n  " + l;
  return s;
}

std::string EtcdVerdict::summary() const {
  std::string s = std::string("etcd model: ") + verdict_name(verdict) + "; " + std::to_string(stats.operations) +
                  " operations, revisions 2.." + std::to_string(stats.revisions) + " (" +
                  std::to_string(stats.revisions_by_ok_write) + " by acknowledged writes, " +
                  std::to_string(stats.revisions_by_unknown_write) + " by unknown-outcome writes, " +
                  std::to_string(stats.revisions_by_lease) + " by lease revokes/expiries), " +
                  std::to_string(stats.gaps) + " gaps (" + std::to_string(stats.gaps_explained) + " explained), " +
                  (stats.combinations_tried > 0 ? std::to_string(stats.revisions_searched) +
                                                      " revisions searched (" +
                                                      std::to_string(stats.combinations_tried) + " combinations" +
                                                      (stats.choices_pruned > 0
                                                           ? ", " + std::to_string(stats.choices_pruned) + " repeats pruned"
                                                           : std::string()) +
                                                      "), "
                                                : std::string()) +
                  std::to_string(stats.uncertain_revisions) + " uncertain revisions, " + std::to_string(stats.checks) +
                  " checks (" + std::to_string(stats.checks_skipped) + " skipped), " + std::to_string(stats.steps) +
                  " steps";
  if (verdict == Verdict::kUnknown) s += "\nunknown: " + unknown_reason;
  if (!violations.empty()) s += "\n" + violations.front().to_string();
  return s;
}

int EtcdVerdict::exit_code() const {
  switch (verdict) {
    case Verdict::kLinearizable: return 0;
    case Verdict::kViolation: return 1;
    case Verdict::kUnknown: return 3;
  }
  return 3;
}

}  // namespace dst::checker::etcd
