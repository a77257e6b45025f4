#include "client/kv_client.h"

#include "base/probes.h"

namespace dst::client {

namespace {
// gRPC's Unavailable: etcd's "request timed out", "no leader", a stopped server. A write answered
// so may still be applied.
constexpr int32_t kGrpcUnavailable = 14;
}  // namespace

bool is_write(const etcdserverpb::ApiRequest& req) {
  switch (req.request_case()) {
    case etcdserverpb::ApiRequest::kPut:
    case etcdserverpb::ApiRequest::kDeleteRange:
    case etcdserverpb::ApiRequest::kCompaction:
    case etcdserverpb::ApiRequest::kLeaseGrant:
    case etcdserverpb::ApiRequest::kLeaseRevoke: return true;
    case etcdserverpb::ApiRequest::kTxn: {
      for (const auto* branch : {&req.txn().success(), &req.txn().failure()})
        for (const auto& op : *branch)
          if (!op.has_request_range()) return true;
      return false;
    }
    default: return false;
  }
}

history::Outcome classify(const etcdserverpb::ApiRequest& req, const etcdserverpb::ApiResponse& resp) {
  if (!resp.has_error()) return history::Outcome::kOk;
  if (is_write(req) && resp.error().code() == kGrpcUnavailable) return history::Outcome::kUnknown;
  return history::Outcome::kFailed;
}

KvClient::KvClient(sim::Simulator& sim, KvClientOptions options, history::Recorder& recorder)
    : sim_(sim), options_(std::move(options)), recorder_(recorder), member_(options_.pinned_member) {
  DST_ASSERT_LT(member_, options_.members.size());
  DST_ASSERT_LE(options_.backoff_base, options_.backoff_max);
  conns_.resize(options_.members.size());
}

rpc::Connection* KvClient::connection() {
  // Bounded: one attempt per member (a pinned client has one).
  const size_t attempts = pinned() ? 1 : options_.members.size();
  for (size_t i = 0; i < attempts; ++i) {
    std::unique_ptr<rpc::Connection>& conn = conns_[member_];
    if (conn && conn->broken()) conn.reset();
    if (!conn) {
      auto c = rpc::Connection::open(sim_.current_env(), options_.members[member_]);
      if (c.is_ok()) conn = std::move(c).value();
    }
    if (conn) return conn.get();
    if (!pinned()) {
      DST_PROBE(kClientFailover);
      next_member();
    }
  }
  return nullptr;
}

void KvClient::wait_out_stall() {
  if (options_.stalled_until == nullptr) return;
  // A stall that a fault extends while this one sleeps is slept out too (bounded: each is <= 60 s
  // and the workload clamps them to the client's end).
  for (int i = 0; i < 64 && *options_.stalled_until > sim_.now(); ++i) {
    DST_PROBE(kClientStalled);
    if (sim_.sleep(*options_.stalled_until - sim_.now()) != sim::WaitResult::kOk) return;
  }
}

history::Operation KvClient::execute(etcdserverpb::ApiRequest req) {
  wait_out_stall();
  if (backoff_ > 0) (void)sim_.sleep(backoff_);  // the last request found no member
  if (options_.balance == Balance::kRoundRobin && !options_.pinned) next_member();
  history::Operation op;
  op.client = options_.id;
  op.request = req;
  rpc::Connection* c = connection();
  backoff_ = c != nullptr ? 0 : std::min(options_.backoff_max, std::max(options_.backoff_base, 2 * backoff_));
  op.member = static_cast<uint32_t>(member_ + 1);
  op.invoke_ns = sim_.now();
  op.id = recorder_.invoke(op);
  if (c == nullptr) {
    // Nothing was sent: certainly no effect.
    op.outcome = history::Outcome::kFailed;
    op.response.mutable_error()->set_code(kGrpcUnavailable);
    op.response.mutable_error()->set_message("connection refused or unreachable");
    op.return_ns = sim_.now();
    recorder_.complete(op.id, op.outcome, op.response, op.return_ns);
    return op;
  }
  auto r = c->call(std::move(req), options_.timeout);
  wait_out_stall();  // paused with the answer (or the timeout) waiting: it completes late
  op.return_ns = sim_.now();
  if (r.is_ok()) {
    op.response = std::move(r).value();
    op.outcome = classify(op.request, op.response);
  } else {
    // Sent, and no answer: a write may or may not happen; a read had no effect either way.
    op.outcome = is_write(op.request) ? history::Outcome::kUnknown : history::Outcome::kFailed;
    op.response.mutable_error()->set_code(kGrpcUnavailable);
    op.response.mutable_error()->set_message(r.status().message());
    if (!pinned() && r.status().code() == StatusCode::kUnavailable) {
      DST_PROBE(kClientFailover);
      next_member();  // that member is gone: try another next time
    }
    if (r.status().code() == StatusCode::kTimeout) conns_[member_].reset();  // a fresh connection next time
  }
  if (op.outcome == history::Outcome::kUnknown) DST_PROBE(kClientWriteUnknown);
  if (op.response.has_snapshot() && !op.response.snapshot().blob().empty()) {
    // The history keeps the snapshot's header (its revision), not a copy of the whole backend;
    // the caller gets the file.
    etcdserverpb::ApiResponse recorded = op.response;
    recorded.mutable_snapshot()->clear_blob();
    recorder_.complete(op.id, op.outcome, recorded, op.return_ns);
    return op;
  }
  recorder_.complete(op.id, op.outcome, op.response, op.return_ns);
  return op;
}

}  // namespace dst::client
