// The Lease service: grant and revoke go through Raft; keep-alive and time-to-live are the
// leader's (only its lessor keeps expiry times), so a follower forwards them to the leader.
#include "base/probes.h"
#include "node/lease/errors.h"
#include "node/server/api_server.h"

namespace dst::node {

namespace {

using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;

// etcd's error when no leader is known for work only the leader can do.
// etcd's ErrGRPCNotLeader: this member cannot confirm it leads.

}  // namespace

void ApiServer::lease_grant(const etcdserverpb::LeaseGrantRequest& r, ApiResponse& out) {
  etcdserverpb::InternalRequest ir;
  // etcd picks the id on the member that received the request, from its request-id generator
  // (member-prefixed, positive).
  const int64_t id = r.id() != 0 ? r.id() : static_cast<int64_t>(server_.next_id() & ((uint64_t{1} << 63) - 1));
  ir.mutable_lease_grant()->set_id(id);
  ir.mutable_lease_grant()->set_ttl(r.ttl());
  auto applied = write(std::move(ir));
  if (!applied.is_ok()) return fail_with(out, applied.status());
  if (!applied->error.is_ok()) return fail_with(out, applied->error);
  auto* g = out.mutable_lease_grant();
  g->set_id(id);
  g->set_ttl(applied->lease_ttl);
  fill_header(g->mutable_header(), applied->revision);
}

void ApiServer::lease_revoke(const etcdserverpb::LeaseRevokeRequest& r, ApiResponse& out) {
  etcdserverpb::InternalRequest ir;
  *ir.mutable_lease_revoke() = r;
  auto applied = write(std::move(ir));
  if (!applied.is_ok()) return fail_with(out, applied.status());
  if (!applied->error.is_ok()) return fail_with(out, applied->error);
  fill_header(out.mutable_lease_revoke()->mutable_header(), applied->revision);
}

void ApiServer::lease_on_leader(const ApiRequest& req, ApiResponse& out) {
  if (server_.raft().role() == raft::Role::kLeader) {
    if (req.has_lease_keep_alive()) {
      // etcd's LeaseRenew: a leader stuck on its disk or cut off says so, and the client moves to
      // another member, instead of renewing a lease the real leader never hears of (etcd #15247).
      if (!server_.ensure_leadership()) return fail_with(out, Status(StatusCode::kUnavailable, kErrNotLeader));
      return lease_keep_alive(req.lease_keep_alive(), out);
    }
    return lease_time_to_live(req.lease_time_to_live(), out);
  }
  // A connection of its own per forwarded request: simple, and keep-alives are seconds apart.
  // etcd's LeaseRenew / LeaseTimeToLive forwarding: done on an answer or "lease not found".
  auto final = [](const ApiResponse& a) { return !a.has_error() || a.error().message() == lease::kErrLeaseNotFound; };
  if (!forward_to_leader(req, out, final)) return;
  DST_PROBE(kServerLeaseKeepAliveForwarded);
  // etcd's lease service fills every header with the local member's identity and term, also for
  // answers that came from the leader (the revision stays the leader's).
  const int64_t rev = server_.kv()->store().rev();
  if (out.has_lease_keep_alive()) fill_header(out.mutable_lease_keep_alive()->mutable_header(), rev);
  if (out.has_lease_time_to_live()) fill_header(out.mutable_lease_time_to_live()->mutable_header(), rev);
}

void ApiServer::lease_keep_alive(const etcdserverpb::LeaseKeepAliveRequest& r, ApiResponse& out) {
  lease::Lessor& lessor = server_.kv()->lessor();
  auto* k = out.mutable_lease_keep_alive();
  k->set_id(r.id());
  const sim::TimeNs deadline = env_.deadline_after(server_.options().api.request_timeout);
  for (;;) {
    auto ttl = lessor.renew(r.id(), server_.local_now());
    if (ttl.is_ok()) {
      k->set_ttl(*ttl);
      break;
    }
    const std::string& why = ttl.status().message();
    if (why == lease::kErrLeaseNotFound) {
      DST_PROBE(kLeaseKeepAliveUnknown);
      k->set_ttl(0);  // etcd answers a keep-alive of an unknown lease with TTL 0
      break;
    }
    // Expired, revoke pending (or leadership just moved): wait as etcd's Renew does, then look
    // again; the revoke's apply turns it into "not found".
    if (why == lease::kErrNotPrimary) return fail_with(out, Status(StatusCode::kUnavailable, kErrNoLeader));
    if (env_.now() >= deadline) return fail_with(out, Status(StatusCode::kTimeout, "etcdserver: request timed out"));
    if (env_.sleep(sim::milliseconds(50)) != sim::WaitResult::kOk) return;
  }
  fill_header(k->mutable_header(), server_.kv()->store().rev());
}

void ApiServer::lease_time_to_live(const etcdserverpb::LeaseTimeToLiveRequest& r, ApiResponse& out) {
  lease::TimeToLive t = server_.kv()->lessor().time_to_live(r.id(), server_.local_now(), r.keys());
  auto* o = out.mutable_lease_time_to_live();
  o->set_id(r.id());
  o->set_ttl(t.ttl_seconds);
  o->set_grantedttl(t.granted_ttl_seconds);
  for (std::string& k : t.keys) o->add_keys(std::move(k));
  fill_header(o->mutable_header(), server_.kv()->store().rev());
}

void ApiServer::lease_leases(ApiResponse& out) {
  auto* l = out.mutable_lease_leases();
  for (int64_t id : server_.kv()->lessor().leases()) l->add_leases()->set_id(id);
  fill_header(l->mutable_header(), server_.kv()->store().rev());
}

}  // namespace dst::node
