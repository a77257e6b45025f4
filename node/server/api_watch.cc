// The Watch service: every watch call of a connection is one stream of the member's watchable
// store (etcd's serverWatchStream). Requests on the call create, cancel or ask for progress; a
// sender fiber per call forwards the store's responses, in order, with the member's header.
#include <memory>

#include "base/limits.h"
#include "node/server/api_server.h"
#include "sim/sync.h"

namespace dst::node {

void ApiServer::watch_request(ConnectionState& conn, uint64_t call_id, const etcdserverpb::WatchRequest& req) {
  watch::WatchableStore& store = server_.kv()->watches();
  auto it = conn.watches.find(call_id);
  if (it == conn.watches.end()) {
    if (conn.watches.size() >= limits::kApiCallsPerConnectionMax) return;  // refused: too many calls
    auto call = std::make_shared<WatchCall>(env_);
    WatchCall* raw = call.get();
    call->call_id = call_id;
    if (server_.options().bugs.on(Bug::kWatchDuplicateEvent)) call->repeat_bug = std::make_unique<RepeatLastTxnEvent>();
    call->stream = store.open_stream([raw] { raw->ready.set(); });
    it = conn.watches.emplace(call_id, call).first;
    std::shared_ptr<ConnectionState> owner = connections_.at(conn.stream);
    env_.spawn("api-watch", [this, owner, call] { watch_sender(owner, call); });
  }
  WatchCall& call = *it->second;
  switch (req.request_union_case()) {
    case etcdserverpb::WatchRequest::kCreateRequest: {
      auto created = store.watch(call.stream, req.create_request());
      if (!created.is_ok()) {
        // etcd 3.4 answers a create it cannot serve with created+canceled and the reason.
        etcdserverpb::ApiResponse out;
        out.set_call(call_id);
        auto* w = out.mutable_watch();
        w->set_watch_id(req.create_request().watch_id());
        w->set_created(true);
        w->set_canceled(true);
        w->set_cancel_reason(created.status().message());
        fill_header(w->mutable_header(), server_.kv()->store().rev());
        reply(conn.stream, out);
      }
      break;
    }
    case etcdserverpb::WatchRequest::kCancelRequest: {
      Status s = store.cancel(call.stream, req.cancel_request().watch_id());
      (void)s;  // etcd ignores a cancel of an unknown watch id
      break;
    }
    case etcdserverpb::WatchRequest::kProgressRequest: {
      Status s = store.request_progress(call.stream);
      (void)s;
      break;
    }
    default: break;
  }
}

void ApiServer::watch_sender(std::shared_ptr<ConnectionState> conn, std::shared_ptr<WatchCall> call) {
  watch::WatchableStore& store = server_.kv()->watches();
  for (;;) {
    if (call->closed) return;
    call->ready.reset();
    bool sent = false;
    bool window_full = false;
    for (;;) {
      // Flow control: stop taking responses while the client has not read what we sent.
      if (env_.sockets().unread_bytes(conn->stream) > limits::kApiConnectionWindowBytes) {
        window_full = true;
        break;
      }
      std::optional<etcdserverpb::WatchResponse> resp = store.pop(call->stream);
      if (!resp) break;
      if (call->repeat_bug) call->repeat_bug->pass(*resp);
      etcdserverpb::ApiResponse out;
      out.set_call(call->call_id);
      etcdserverpb::WatchResponse& w = *out.mutable_watch() = std::move(*resp);
      // The store sets header.revision where etcd sends one (not on a compaction cancel).
      w.mutable_header()->set_cluster_id(server_.options().cluster_id);
      w.mutable_header()->set_member_id(server_.id());
      w.mutable_header()->set_raft_term(server_.raft().term());
      reply(conn->stream, out);
      sent = true;
    }
    // Room freed in the queue: a watcher that fell behind may catch up now rather than at the
    // next periodic sync.
    if (sent && store.counters().watchers_unsynced > 0) {
      for (int i = 0; i < 4 && store.sync_step(); ++i) {
      }
      if (store.queued(call->stream) > 0) continue;
    }
    if (window_full) {
      if (env_.sleep(sim::milliseconds(1)) != sim::WaitResult::kOk) return;
      continue;
    }
    if (call->ready.wait() != sim::WaitResult::kOk) return;
  }
}

void ApiServer::close_watches(ConnectionState& conn) {
  watch::WatchableStore& store = server_.kv()->watches();
  for (auto& [id, call] : conn.watches) {
    store.close_stream(call->stream);
    call->closed = true;
    call->ready.set();
  }
  conn.watches.clear();
}

}  // namespace dst::node
