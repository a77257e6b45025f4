#include "node/server/api_server.h"

#include "base/limits.h"
#include "base/probes.h"
#include "node/server/quota.h"
#include "node/server/snapshot_file.h"
#include "rpc/etcd_connection.h"

namespace dst::node {

namespace {

using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;
using etcdserverpb::InternalRequest;

constexpr char kErrRequestTooLarge[] = "etcdserver: request is too large";

}  // namespace

void fail_with(ApiResponse& out, const Status& s) {
  out.mutable_error()->set_code(static_cast<int32_t>(grpc_code(s)));
  out.mutable_error()->set_message(client_error(s));
}

GrpcCode grpc_code(const Status& s) {
  switch (s.code()) {
    case StatusCode::kInvalidArgument: return GrpcCode::kInvalidArgument;
    case StatusCode::kOutOfRange: return GrpcCode::kOutOfRange;
    case StatusCode::kResourceExhausted: return GrpcCode::kResourceExhausted;
    case StatusCode::kNotFound: return GrpcCode::kNotFound;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition: return GrpcCode::kFailedPrecondition;
    // etcd's ErrGRPCTimeout and friends are Unavailable: the client may retry elsewhere.
    case StatusCode::kTimeout:
    case StatusCode::kUnavailable: return GrpcCode::kUnavailable;
    default: return GrpcCode::kUnknown;
  }
}

void ApiServer::run(sim::Env& env, Server& server) {
  ApiServer api(env, server);
  if (server.options().api.auto_compaction.enabled()) {
    // Lives as long as the process, like `api` (this fiber never returns while it does).
    env.spawn("auto-compactor", [&env, &server, &api] {
      AutoCompactorHooks hooks;
      hooks.leads = [&server] { return server.raft().role() == raft::Role::kLeader; };
      hooks.revision = [&server] { return server.kv()->store().rev(); };
      hooks.handle = [&api](const ApiRequest& req) { return api.handle(req); };
      if (ServerObserver* o = server.observer()) hooks.observe = [o](const AutoCompactionEvent& e) { o->auto_compaction(e); };
      run_auto_compactor(env, server.options().api.auto_compaction, hooks);
    });
  }
  auto listener = env.sockets().listen(server.options().api.port);
  DST_ASSERT_MSG(listener.is_ok(), "client port taken: " + listener.status().to_string());
  api.accept_loop(*listener);
}

void ApiServer::accept_loop(sim::ListenerId listener) {
  for (;;) {
    auto conn = env_.sockets().accept(listener);
    if (!conn.is_ok()) return;  // the process is going away
    if (connections_.size() >= limits::kApiConnectionsMax) {
      env_.sockets().close_stream(*conn);  // refused, like a server at its connection limit
      continue;
    }
    sim::StreamId c = *conn;
    auto state = std::make_shared<ConnectionState>();
    state->stream = c;
    connections_.emplace(c, state);
    env_.spawn("api-conn", [this, state] {
      serve_connection(state->stream);
      connections_.erase(state->stream);
    });
  }
}

void ApiServer::reply(sim::StreamId conn, const ApiResponse& resp) {
  // A broken connection loses the answer; the client sees the break and does not know the outcome.
  Status s = env_.sockets().send(conn, resp.SerializeAsString());
  (void)s;
}

void ApiServer::serve_connection(sim::StreamId stream) {
  const ApiOptions& opts = server_.options().api;
  std::shared_ptr<ConnectionState> conn = connections_.at(stream);
  for (;;) {
    auto frame = env_.sockets().recv(stream);
    if (!frame.is_ok()) break;  // broken or closed by the client
    ApiRequest req;
    const size_t grpc_max = opts.max_request_bytes + opts.grpc_overhead_bytes;
    if (frame->size() > grpc_max) {
      // gRPC's own receive limit: the message is refused before etcd sees it. The call id is the
      // frame's first field, so the refusal still reaches the right call.
      ApiRequest head;
      (void)head.ParseFromString(*frame);
      ApiResponse out;
      out.set_call(head.call());
      out.mutable_error()->set_code(static_cast<int32_t>(GrpcCode::kResourceExhausted));
      out.mutable_error()->set_message("grpc: received message larger than max (" + std::to_string(frame->size()) +
                                       " vs. " + std::to_string(grpc_max) + ")");
      reply(stream, out);
      continue;
    }
    if (!req.ParseFromString(*frame)) break;  // a client speaking garbage: drop the connection
    if (req.has_watch()) {
      watch_request(*conn, req.call(), req.watch());
      continue;
    }
    if (conn->in_flight >= limits::kApiCallsPerConnectionMax) {
      ApiResponse out;
      out.set_call(req.call());
      fail_with(out, Status(StatusCode::kResourceExhausted, "etcdserver: too many requests"));
      reply(stream, out);
      continue;
    }
    ++conn->in_flight;
    env_.spawn("api-call", [this, conn, req = std::move(req)] {
      ApiResponse out = handle(req);
      reply(conn->stream, out);
      --conn->in_flight;
    });
  }
  close_watches(*conn);
  env_.sockets().close_stream(stream);
}

void ApiServer::fill_header(etcdserverpb::ResponseHeader* h, int64_t revision) const {
  h->set_cluster_id(server_.options().cluster_id);
  h->set_member_id(server_.id());
  if (h->revision() == 0) h->set_revision(revision);
  h->set_raft_term(server_.raft().term());
}

ApiResponse ApiServer::handle(const ApiRequest& req) {
  ApiResponse out;
  out.set_call(req.call());
  DST_ASSERT_MSG(server_.kv() != nullptr, "the client API runs only on KV members");
  auto write_and = [&](InternalRequest ir, auto take) {
    auto r = write(std::move(ir));
    if (!r.is_ok()) return fail_with(out, r.status());
    if (!r->error.is_ok()) return fail_with(out, r->error);
    take(*r);
  };
  switch (req.request_case()) {
    case ApiRequest::kRange: range(req.range(), out); break;
    case ApiRequest::kPut: {
      Status v = validate_put(req.put());
      if (!v.is_ok()) return fail_with(out, v), out;
      InternalRequest ir;
      *ir.mutable_put() = req.put();
      write_and(std::move(ir), [&](ApplyResult& r) {
        *out.mutable_put() = std::move(*r.response.mutable_response_put());
        fill_header(out.mutable_put()->mutable_header(), r.revision);
      });
      break;
    }
    case ApiRequest::kDeleteRange: {
      Status v = validate_delete_range(req.delete_range());
      if (!v.is_ok()) return fail_with(out, v), out;
      InternalRequest ir;
      *ir.mutable_delete_range() = req.delete_range();
      write_and(std::move(ir), [&](ApplyResult& r) {
        *out.mutable_delete_range() = std::move(*r.response.mutable_response_delete_range());
        fill_header(out.mutable_delete_range()->mutable_header(), r.revision);
      });
      break;
    }
    case ApiRequest::kTxn: {
      Status v = validate_txn(req.txn(), KvLimits{server_.options().api.max_txn_ops});
      if (!v.is_ok()) return fail_with(out, v), out;
      InternalRequest ir;
      *ir.mutable_txn() = req.txn();
      write_and(std::move(ir), [&](ApplyResult& r) {
        *out.mutable_txn() = std::move(*r.response.mutable_response_txn());
        fill_header(out.mutable_txn()->mutable_header(), r.revision);
      });
      break;
    }
    case ApiRequest::kCompaction: {
      InternalRequest ir;
      *ir.mutable_compaction() = req.compaction();
      write_and(std::move(ir), [&](ApplyResult& r) { fill_header(out.mutable_compaction()->mutable_header(), r.revision); });
    } break;
    case ApiRequest::kAlarm: alarm(req.alarm(), out); break;
    case ApiRequest::kStatus: status(out); break;
    case ApiRequest::kDefragment: defragment(out); break;
    case ApiRequest::kHashKv: hash_kv(req.hash_kv(), out); break;
    case ApiRequest::kSnapshot: snapshot(out); break;
    case ApiRequest::kMemberList: case ApiRequest::kMemberAdd: case ApiRequest::kMemberRemove:
    case ApiRequest::kMemberPromote: case ApiRequest::kMoveLeader: case ApiRequest::kMemberUpdate:
      cluster_request(req, out);
      break;
    case ApiRequest::kLeaseGrant: lease_grant(req.lease_grant(), out); break;
    case ApiRequest::kLeaseRevoke: lease_revoke(req.lease_revoke(), out); break;
    case ApiRequest::kLeaseKeepAlive:
    case ApiRequest::kLeaseTimeToLive: lease_on_leader(req, out); break;
    case ApiRequest::kLeaseLeases: lease_leases(out); break;
    default:
      fail_with(out, Status(StatusCode::kInvalidArgument, "etcdserver: request not served by this member: case " +
                                                         std::to_string(static_cast<int>(req.request_case()))));
  }
  return out;
}

void ApiServer::range(const etcdserverpb::RangeRequest& r, ApiResponse& out) {
  Status v = validate_range(r);
  if (!v.is_ok()) return fail_with(out, v);
  // The stale-read bug skips ReadIndex on a member that believes it leads (base/bugs.h).
  const bool bug_local_read =
      server_.options().bugs.on(Bug::kStaleRead) && server_.raft().role() == raft::Role::kLeader;
  if (!r.serializable() && !bug_local_read) {
    Status b = server_.linearizable_barrier();
    if (!b.is_ok()) return fail_with(out, b);
  }
  // The read may block in the backend while a snapshot replaces the store: read again then
  // (bounded: a snapshot install takes at least an fsync, reads do not wait for one).
  KvStateMachine& kv = *server_.kv();
  Result<etcdserverpb::RangeResponse> resp = Status(StatusCode::kUnavailable, "not read");
  for (int attempt = 0; attempt < 4; ++attempt) {
    const uint64_t generation = kv.store_generation();
    resp = apply_range(kv.store(), r);
    if (generation == kv.store_generation()) break;
  }
  if (!resp.is_ok()) return fail_with(out, resp.status());
  *out.mutable_range() = std::move(resp).value();
  fill_header(out.mutable_range()->mutable_header(), server_.kv()->store().rev());
}

Result<ApplyResult> ApiServer::write(InternalRequest req) {
  KvStateMachine& kv = *server_.kv();
  if (req.ByteSizeLong() > server_.options().api.max_request_bytes)
    return Status(StatusCode::kInvalidArgument, kErrRequestTooLarge);
  if (grows_store(req)) {
    auto size = kv.backend().size_bytes();
    if (!size.is_ok()) return size.status();
    if (*size + quota_cost(req) > server_.options().api.quota_bytes) {
      // etcd raises the alarm for the whole cluster (through Raft), then refuses the request.
      InternalRequest raise;
      raise.mutable_alarm()->set_action(etcdserverpb::AlarmRequest::ACTIVATE);
      raise.mutable_alarm()->set_memberid(server_.id());
      raise.mutable_alarm()->set_alarm(etcdserverpb::NOSPACE);
      auto raised = server_.propose_and_wait(std::move(raise));
      (void)raised;  // refused either way; a timeout here only delays the alarm
      return Status(StatusCode::kResourceExhausted, kErrNoSpace);
    }
  }
  return server_.propose_and_wait(std::move(req));
}

// Every action, GET included, is applied through Raft, and the answer has no header: etcd 3.4's
// applier builds the AlarmResponse without one (`alarm list -w json` prints {} when none is raised).
void ApiServer::alarm(const etcdserverpb::AlarmRequest& r, ApiResponse& out) {
  InternalRequest ir;
  *ir.mutable_alarm() = r;
  auto applied = server_.propose_and_wait(std::move(ir));
  if (!applied.is_ok()) return fail_with(out, applied.status());
  if (!applied->error.is_ok()) return fail_with(out, applied->error);
  *out.mutable_alarm() = std::move(applied->alarm);
}

void ApiServer::status(ApiResponse& out) {
  KvStateMachine& kv = *server_.kv();
  auto* s = out.mutable_status();
  auto size = kv.backend().size_bytes();
  auto in_use = kv.backend().size_in_use();
  if (!size.is_ok()) return fail_with(out, size.status());
  if (!in_use.is_ok()) return fail_with(out, in_use.status());
  s->set_version(kEtcdVersion);
  s->set_dbsize(static_cast<int64_t>(*size));
  s->set_dbsizeinuse(static_cast<int64_t>(*in_use));
  s->set_leader(server_.raft().lead());
  s->set_raftindex(server_.raft().log().committed());
  s->set_raftterm(server_.raft().term());
  s->set_raftappliedindex(server_.raft().log().applied());
  for (const auto& m : kv.alarms().list()) s->add_errors(alarm_text(m));
  s->set_islearner(!server_.raft().is_voter(server_.id()));
  fill_header(s->mutable_header(), kv.store().rev());
}

void ApiServer::defragment(ApiResponse& out) {
  Status s = server_.kv()->backend().defragment();
  if (!s.is_ok()) return fail_with(out, s);
  fill_header(out.mutable_defragment()->mutable_header(), server_.kv()->store().rev());
}

void ApiServer::hash_kv(const etcdserverpb::HashKVRequest& r, ApiResponse& out) {
  KvStateMachine& kv = *server_.kv();
  Result<uint32_t> h = Status(StatusCode::kUnavailable, "not read");
  for (int attempt = 0; attempt < 4; ++attempt) {  // as in range(): a snapshot may replace the store
    const uint64_t generation = kv.store_generation();
    h = kv.store().etcd_hash_kv(r.revision());
    if (generation == kv.store_generation()) break;
  }
  if (!h.is_ok()) return fail_with(out, h.status());
  mvcc::KvStore& store = kv.store();
  // etcd's own CRC-32C, so the numbers match a real etcd's; member agreement uses hash_at().
  out.mutable_hash_kv()->set_hash(*h);
  out.mutable_hash_kv()->set_compact_revision(store.compact_rev());
  fill_header(out.mutable_hash_kv()->mutable_header(), store.rev());
}

void ApiServer::snapshot(ApiResponse& out) {
  KvStateMachine& kv = *server_.kv();
  // etcd reads the snapshot in one bbolt read transaction. Reading the buckets here may block in
  // the backend while the apply fiber moves on, so the image is kept only if it was read between
  // two entries (none half applied) and nothing was applied (and no snapshot installed) while it
  // was read; a busy member is read again a moment later.
  for (int attempt = 0; attempt < limits::kSnapshotReadAttempts; ++attempt) {
    if (attempt > 0 && env_.sleep(sim::milliseconds(1)) != sim::WaitResult::kOk) break;
    const uint64_t generation = kv.store_generation();
    const uint64_t sequence = kv.apply_sequence();
    const int64_t revision = kv.store().rev();
    if (sequence % 2 != 0) continue;
    Result<std::string> image = kv.snapshot();
    if (!image.is_ok()) return fail_with(out, image.status());
    if (generation != kv.store_generation() || sequence != kv.apply_sequence()) continue;
    out.mutable_snapshot()->set_blob(encode_snapshot_file(*image));
    out.mutable_snapshot()->set_remaining_bytes(0);
    fill_header(out.mutable_snapshot()->mutable_header(), revision);
    DST_PROBE(kServerSnapshotStreamed);
    return;
  }
  fail_with(out, Status(StatusCode::kUnavailable, "etcdserver: snapshot: the member applied entries during every read; try again"));
}

namespace {

void fill_member(etcdserverpb::Member* m, uint64_t id, bool learner, const Server& server) {
  m->set_id(id);
  m->set_name("n" + std::to_string(id));
  for (const std::string& url : server.member_peer_urls(id)) m->add_peerurls(url);
  m->add_clienturls(member_client_url(id, server.options().api.port));
  m->set_islearner(learner);
}

// The members as this member's Raft knows them: voters, then learners.
void fill_members(google::protobuf::RepeatedPtrField<etcdserverpb::Member>* out, const Server& server) {
  const raftpb::ConfState cs = server.raft().conf_state();
  for (uint64_t id : cs.voters()) fill_member(out->Add(), id, false, server);
  for (uint64_t id : cs.learners()) fill_member(out->Add(), id, true, server);
}

std::vector<std::string> urls_of(const google::protobuf::RepeatedPtrField<std::string>& urls) {
  return std::vector<std::string>(urls.begin(), urls.end());
}

}  // namespace

void ApiServer::member_list(ApiResponse& out) {
  fill_members(out.mutable_member_list()->mutable_members(), server_);
  fill_header(out.mutable_member_list()->mutable_header(), 0);
  out.mutable_member_list()->mutable_header()->clear_revision();  // etcd's member list has none
}

void ApiServer::member_add(const etcdserverpb::MemberAddRequest& r, ApiResponse& out) {
  // etcd takes the first URL as the member's identity; one is required.
  if (r.peerurls_size() == 0) return fail_with(out, Status(StatusCode::kInvalidArgument, kErrMemberBadUrls));
  Result<uint64_t> id = server_.add_member(urls_of(r.peerurls()), r.islearner());
  if (!id.is_ok()) return fail_with(out, id.status());
  etcdserverpb::MemberAddResponse* resp = out.mutable_member_add();
  fill_member(resp->mutable_member(), *id, r.islearner(), server_);
  resp->mutable_member()->clear_name();  // not started yet: etcd lists it without a name
  resp->mutable_member()->clear_clienturls();
  fill_members(resp->mutable_members(), server_);
  fill_header(resp->mutable_header(), 0);
  resp->mutable_header()->clear_revision();
}

void ApiServer::member_remove(const etcdserverpb::MemberRemoveRequest& r, ApiResponse& out) {
  if (Status st = server_.remove_member(r.id()); !st.is_ok()) return fail_with(out, st);
  etcdserverpb::MemberRemoveResponse* resp = out.mutable_member_remove();
  fill_members(resp->mutable_members(), server_);
  fill_header(resp->mutable_header(), 0);
  resp->mutable_header()->clear_revision();
}

void ApiServer::member_update(const etcdserverpb::MemberUpdateRequest& r, ApiResponse& out) {
  if (Status st = server_.update_member(r.id(), urls_of(r.peerurls())); !st.is_ok()) return fail_with(out, st);
  etcdserverpb::MemberUpdateResponse* resp = out.mutable_member_update();
  fill_members(resp->mutable_members(), server_);
  fill_header(resp->mutable_header(), 0);
  resp->mutable_header()->clear_revision();
}

void ApiServer::cluster_request(const ApiRequest& req, ApiResponse& out) {
  switch (req.request_case()) {
    case ApiRequest::kMemberList: return member_list(out);
    case ApiRequest::kMemberAdd: return member_add(req.member_add(), out);
    case ApiRequest::kMemberRemove: return member_remove(req.member_remove(), out);
    case ApiRequest::kMemberUpdate: return member_update(req.member_update(), out);
    case ApiRequest::kMemberPromote: return member_promote(req, out);
    case ApiRequest::kMoveLeader: return move_leader(req.move_leader(), out);
    default: DST_UNREACHABLE("not a request of the Cluster service or MoveLeader");
  }
}

// etcd's PromoteMember: only the leader knows whether the learner caught up, so a follower forwards
// the request to it (etcd over its peer HTTP endpoint); the header is the answering member's.
void ApiServer::member_promote(const ApiRequest& req, ApiResponse& out) {
  Status st = server_.promote_member(req.member_promote().id());
  if (!st.is_ok() && st.message() == kErrNotLeader) {
    // etcd's PromoteMember gives up early only on these; anything else is asked again.
    auto final = [](const ApiResponse& a) {
      const std::string& why = a.error().message();
      return !a.has_error() || why == kErrLearnerNotReady || why == kErrMemberNotFound || why == kErrMemberNotLearner;
    };
    if (!forward_to_leader(req, out, final) || !out.has_member_promote()) return;
    st = Status::ok();
  }
  if (!st.is_ok()) return fail_with(out, st);
  etcdserverpb::MemberPromoteResponse* resp = out.mutable_member_promote();
  resp->clear_members();
  fill_members(resp->mutable_members(), server_);
  fill_header(resp->mutable_header(), 0);
  resp->mutable_header()->clear_revision();
}

bool ApiServer::forward_to_leader(const ApiRequest& req, ApiResponse& out,
                                  const std::function<bool(const ApiResponse&)>& final) {
  const sim::TimeNs deadline = env_.now() + server_.options().api.request_timeout;
  const uint64_t call = out.call();
  for (int attempt = 0; env_.now() < deadline; ++attempt) {
    DST_ASSERT_LT(attempt, 1'000'000);
    if (std::optional<sim::Address> leader = server_.leader_api_address()) {
      if (auto conn = rpc::Connection::open(env_, *leader); conn.is_ok()) {
        auto answer = (*conn)->call(req, deadline - env_.now());
        if (answer.is_ok() && final(*answer)) {
          out = std::move(answer).value();
          out.set_call(call);
          return true;
        }
      }
    }
    // etcd waits an election for a leader, and throttles a failed attempt by 50 ms.
    const ServerOptions& o = server_.options();
    const sim::DurationNs pause = server_.leader_api_address() ? sim::milliseconds(50) : o.raft.election_tick * o.tick;
    if (env_.sleep(std::min(pause, std::max<sim::DurationNs>(deadline - env_.now(), 1))) != sim::WaitResult::kOk) break;
  }
  return fail_with(out, Status(StatusCode::kTimeout, "etcdserver: request timed out")), false;
}

// etcd 3.4's maintenance server: only the leader moves leadership; its answer has no header.
void ApiServer::move_leader(const etcdserverpb::MoveLeaderRequest& r, ApiResponse& out) {
  if (server_.raft().lead() != server_.id()) return fail_with(out, Status(StatusCode::kFailedPrecondition, kErrNotLeader));
  if (Status st = server_.move_leader(r.targetid()); !st.is_ok()) return fail_with(out, st);
  out.mutable_move_leader();
}

}  // namespace dst::node
