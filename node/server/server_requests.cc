// The member's side of client requests: proposals that wait for their apply, and ReadIndex
// barriers for linearizable reads (etcd's processInternalRaftRequest and linearizableReadLoop).
#include "base/limits.h"
#include "base/probes.h"
#include "node/server/server.h"

namespace dst::node {

namespace {
constexpr char kErrTimeout[] = "etcdserver: request timed out";
constexpr char kErrTimeoutLeaderFail[] = "etcdserver: request timed out, possibly due to previous leader failure";
constexpr char kErrTooManyRequests[] = "etcdserver: too many requests";
constexpr char kErrStopped[] = "etcdserver: server stopped";
}  // namespace

void Server::on_applied(uint64_t id, ApplyResult result) {
  auto it = proposals_.find(id);
  if (it == proposals_.end()) return;  // proposed by another member, or its client gave up
  it->second.set(std::move(result));
  proposals_.erase(it);
}

uint64_t Server::next_id() {
  // Unique across members and incarnations: the member id in the top byte, then a counter that
  // starts at the incarnation's start time in ns (a restart starts past every id used before,
  // since no incarnation asks for more than one id per virtual nanosecond).
  if (next_request_id_ == 0) next_request_id_ = static_cast<uint64_t>(env_.now()) & ((uint64_t{1} << 56) - 1);
  return (options_.id << 56) | (next_request_id_++ & ((uint64_t{1} << 56) - 1));
}

int64_t Server::local_now() const {
  return lessor_env_.monotonic_now();
}

std::optional<sim::Address> Server::leader_api_address() const {
  const std::optional<sim::HostId> host = peer_host(raft_->lead());
  if (raft_->lead() == 0 || !host) return std::nullopt;
  return sim::Address{*host, options_.api.port};
}

std::optional<sim::HostId> Server::peer_host(uint64_t id) const {
  const std::map<uint64_t, sim::HostId>& book = hooks_.directory != nullptr ? *hooks_.directory : options_.peers;
  auto it = book.find(id);
  if (it == book.end()) return std::nullopt;
  return it->second;
}

void Server::track_leadership() {
  if (kv_ == nullptr) return;
  const bool leader = raft_->role() == raft::Role::kLeader;
  if (leader == lessor_primary_) return;
  lessor_primary_ = leader;
  // A new leader gives every lease its full TTL plus an election timeout (etcd's Promote), so a
  // leader change never expires a lease whose keep-alives were in flight.
  if (leader) kv_->lessor().promote(local_now(), options_.raft.election_tick * options_.tick);
  else kv_->lessor().demote();
}

void Server::lease_expiry_loop() {
  // etcd's revokeExpiredLeases runs every 500 ms and revokes at most leaseRevokeRate per second.
  const sim::DurationNs every = sim::milliseconds(500);
  const size_t per_round = std::max<size_t>(1, limits::kLeaseRevokesPerSecond / 2);
  for (;;) {
    if (env_.sleep(every) != sim::WaitResult::kOk) return;
    if (!lessor_primary_) continue;
    const uint64_t term = raft_->term();
    const std::vector<int64_t> expired = kv_->lessor().expired(local_now(), per_round);
    // etcd's revokeExpiredLeases: an old leader must not revoke (etcd #12528); the lessor offers
    // the leases again after its retry interval. A new term while it confirmed may have been a
    // lost and regained leadership, whose promote gave these leases a fresh TTL.
    if (expired.empty() || !ensure_leadership() || raft_->term() != term) continue;
    for (int64_t id : expired) {
      DST_PROBE(kLeaseExpiredRevoked);
      etcdserverpb::InternalRequest req;
      req.set_id(next_id());
      req.mutable_lease_revoke()->set_id(id);
      // Not waited for: a revoke lost with a leader change is retried by expired() later.
      if (!inbox_.try_send(Proposal{req.SerializeAsString()})) break;
    }
  }
}

void Server::watch_sync_loop() {
  for (;;) {
    if (env_.sleep(options_.api.watch_sync_interval) != sim::WaitResult::kOk) return;
    // Bounded: each step moves at most kWatchSyncRevisionsMax revisions; a few per interval.
    for (int i = 0; i < 8 && kv_->watches().sync_step(); ++i) {
    }
  }
}

void Server::progress_notify_loop() {
  for (;;) {
    if (env_.sleep(options_.api.progress_notify_interval) != sim::WaitResult::kOk) return;
    kv_->watches().progress_notify_tick();
  }
}

Result<ApplyResult> Server::propose_and_wait(etcdserverpb::InternalRequest req) {
  DST_ASSERT_MSG(kv_ != nullptr, "client proposals need the KV state machine");
  const uint64_t id = next_id();
  req.set_id(id);
  return submit_and_wait(id, Proposal{req.SerializeAsString()});
}

Result<ApplyResult> Server::submit_and_wait(uint64_t id, Input input) {
  if (proposals_.size() >= limits::kApiPendingProposalsMax)
    return Status(StatusCode::kResourceExhausted, kErrTooManyRequests);
  sim::Future<ApplyResult> done = proposals_.emplace(id, sim::Promise<ApplyResult>(env_)).first->second.future();
  const uint64_t term_at_start = raft_->term();
  if (inbox_.send(std::move(input), options_.api.request_timeout) != sim::WaitResult::kOk) {
    proposals_.erase(id);
    return Status(StatusCode::kUnavailable, kErrStopped);
  }
  auto [r, result] = done.get(options_.api.request_timeout);
  if (r == sim::WaitResult::kOk) return std::move(*result);
  proposals_.erase(id);
  if (r == sim::WaitResult::kTimeout) {
    DST_PROBE(kServerRequestTimedOut);
    // etcd says "possibly due to previous leader failure" when the term moved meanwhile.
    return Status(StatusCode::kTimeout, raft_->term() != term_at_start ? kErrTimeoutLeaderFail : kErrTimeout);
  }
  return Status(StatusCode::kUnavailable, kErrStopped);
}

bool Server::ensure_leadership() {
  if (options_.bugs.on(Bug::kLeaseRenewOnStaleLeader)) return true;  // the caller's belief is enough
  if (raft_->role() != raft::Role::kLeader) return false;
  if (!linearizable_barrier().is_ok()) {
    DST_PROBE(kServerLeadershipUnconfirmed);
    return false;
  }
  if (raft_->role() != raft::Role::kLeader) {
    DST_PROBE(kServerLeadershipUnconfirmed);
    return false;
  }
  return true;
}

Status Server::linearizable_barrier() {
  if (reads_waiting_ >= limits::kApiPendingReadsMax) return Status(StatusCode::kResourceExhausted, kErrTooManyRequests);
  // The round that starts after this read arrived (a round already asking may hold an index
  // from before it): etcd's linearizableReadNotify.
  sim::Future<Status> round = next_read_round_.future();
  read_wanted_.set();
  ++reads_waiting_;
  auto [r, status] = round.get(options_.api.request_timeout);
  --reads_waiting_;
  if (r == sim::WaitResult::kOk) return *status;
  if (r == sim::WaitResult::kTimeout) {
    DST_PROBE(kServerRequestTimedOut);
    return Status(StatusCode::kTimeout, kErrTimeout);
  }
  return Status(StatusCode::kUnavailable, kErrStopped);
}

void Server::read_loop() {
  for (;;) {
    if (read_wanted_.wait() != sim::WaitResult::kOk) return;
    read_wanted_.reset();
    sim::Promise<Status> round = std::exchange(next_read_round_, sim::Promise<Status>(env_));
    Status s = read_index_round();
    if (s.code() == StatusCode::kCancelled) {
      // The process is going away (only that cancels these waits): its readers are told so.
      round.set(Status(StatusCode::kUnavailable, kErrStopped));
      return;
    }
    round.set(std::move(s));
  }
}

Status Server::read_index_round() {
  const sim::TimeNs deadline = env_.deadline_after(options_.api.request_timeout);
  std::optional<uint64_t> index;
  // Ask, and ask again while no answer comes (no leader yet, a lost message), until the deadline.
  // Every attempt has its own context (unique per member incarnation): the read-safety invariant
  // checks each answer against the commit index at the time of its own request.
  for (int attempt = 0; !index && env_.now() < deadline; ++attempt) {
    if (attempt > 0) DST_PROBE(kServerReadIndexRetried);
    std::string context = "api" + std::to_string(options_.id) + "." + std::to_string(env_.now()) + "." +
                          std::to_string(next_read_++);
    sim::Future<uint64_t> answer = reads_.emplace(context, sim::Promise<uint64_t>(env_)).first->second.future();
    sim::WaitResult r = inbox_.send(ReadRequest{context}, deadline - env_.now());
    if (r == sim::WaitResult::kOk) {
      const sim::DurationNs wait = std::min<sim::DurationNs>(options_.api.read_index_retry, deadline - env_.now());
      auto [got, value] = answer.get(wait);
      r = got;
      if (got == sim::WaitResult::kOk) index = value;
    }
    reads_.erase(context);
    if (r != sim::WaitResult::kOk && r != sim::WaitResult::kTimeout) return Status(StatusCode::kCancelled, kErrStopped);
  }
  if (!index) {
    DST_PROBE(kServerRequestTimedOut);
    return Status(StatusCode::kTimeout, kErrTimeout);
  }
  while (kv_->applied_index() < *index) {
    if (env_.now() >= deadline) {
      DST_PROBE(kServerRequestTimedOut);
      return Status(StatusCode::kTimeout, kErrTimeout);
    }
    if (applied_.wait_until(deadline) == sim::WaitResult::kCancelled) return Status(StatusCode::kCancelled, kErrStopped);
  }
  return Status::ok();
}

}  // namespace dst::node
