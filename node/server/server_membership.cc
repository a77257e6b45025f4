// The member's side of etcd's Cluster service (MemberAdd, MemberRemove) and the apply of conf
// changes (etcd's configure() and applyConfChange()); the rules are in membership.h.
#include <algorithm>

#include "base/assert.h"
#include "base/probes.h"
#include "node/raft/describe.h"
#include "node/server/server.h"

namespace dst::node {

Result<uint64_t> Server::add_member(const std::string& peer_url, bool learner) {
  Result<uint64_t> id = member_id_from_peer_url(peer_url);
  if (!id.is_ok()) return id.status();
  const raftpb::ConfState cs = raft_->conf_state();
  // The same URL as a member's: etcd checks the URLs before anything else.
  if (names_member(cs, *id)) return Status(StatusCode::kFailedPrecondition, kErrPeerUrlExists);
  if (Status st = may_add_member(cs, options_.id, learner, peer_activity_, env_.now()); !st.is_ok()) return st;
  raftpb::ConfChange cc;
  cc.set_type(learner ? raftpb::CONF_CHANGE_ADD_LEARNER_NODE : raftpb::CONF_CHANGE_ADD_NODE);
  cc.set_node_id(*id);
  const uint64_t request = next_id();
  cc.set_context(conf_change_context(request));
  Result<ApplyResult> r = submit_and_wait(request, ConfChangeProposal{std::move(cc)});
  if (!r.is_ok()) return r.status();
  if (!r->error.is_ok()) return r->error;
  return *id;
}

Status Server::remove_member(uint64_t id) {
  if (Status st = may_remove_member(raft_->conf_state(), options_.id, id, peer_activity_, env_.now()); !st.is_ok())
    return st;
  raftpb::ConfChange cc;
  cc.set_type(raftpb::CONF_CHANGE_REMOVE_NODE);
  cc.set_node_id(id);
  const uint64_t request = next_id();
  cc.set_context(conf_change_context(request));
  Result<ApplyResult> r = submit_and_wait(request, ConfChangeProposal{std::move(cc)});
  if (!r.is_ok()) return r.status();
  return r->error;
}

Status Server::promote_member(uint64_t id) {
  if (raft_->role() != raft::Role::kLeader) return Status(StatusCode::kUnavailable, kErrNotLeader);
  // etcd's isLearnerReady: an unknown id passes here and is refused by the apply.
  const auto& progress = raft_->progress();
  if (auto it = progress.find(id); it != progress.end()) {
    const double leader_match = static_cast<double>(progress.at(options_.id).match);
    if (static_cast<double>(it->second.match) < leader_match * kLearnerReadyFraction)
      return Status(StatusCode::kFailedPrecondition, kErrLearnerNotReady);
  }
  raftpb::ConfChange cc;
  cc.set_type(raftpb::CONF_CHANGE_ADD_NODE);
  cc.set_node_id(id);
  const uint64_t request = next_id();
  cc.set_context(conf_change_context(request, true));
  Result<ApplyResult> r = submit_and_wait(request, ConfChangeProposal{std::move(cc)});
  if (!r.is_ok()) return r.status();
  if (r->error.is_ok()) DST_PROBE(kServerLearnerPromoted);
  return r->error;
}

Status Server::move_leader(uint64_t transferee) {
  const raftpb::ConfState cs = raft_->conf_state();
  if (std::find(cs.voters().begin(), cs.voters().end(), transferee) == cs.voters().end())
    return Status(StatusCode::kFailedPrecondition, kErrBadLeaderTransferee);
  const sim::TimeNs deadline = env_.now() + options_.api.request_timeout;
  if (inbox_.send(LeaderTransfer{transferee}) != sim::WaitResult::kOk)
    return Status(StatusCode::kUnavailable, "etcdserver: server stopped");
  while (raft_->lead() != transferee) {
    if (env_.now() >= deadline) return Status(StatusCode::kTimeout, kErrTimeoutLeaderTransfer);
    if (env_.sleep(options_.tick) != sim::WaitResult::kOk) return Status(StatusCode::kUnavailable, "etcdserver: server stopped");
  }
  if (transferee != options_.id) DST_PROBE(kServerLeadershipMoved);
  return Status::ok();
}

void Server::apply_conf_change(const raftpb::Entry& e) {
  raftpb::ConfChange cc;
  DST_ASSERT_MSG(cc.ParseFromString(e.data()), "unparsable conf change at " + raft::describe_entry(e));
  ApplyResult result;
  result.error = validate_conf_change(cc, raft_->conf_state(), removed_);
  // An invalid change is applied as a no-op (etcd sets its NodeID to None); Raft needs nothing
  // from it: its pending-change guard is an index, passed by applying the entry.
  if (result.error.is_ok()) {
    DST_PROBE(kRaftConfChangeApplied);
    raft_->apply_conf_change(cc);
    if (cc.type() == raftpb::CONF_CHANGE_REMOVE_NODE) {
      DST_ASSERT_LE(removed_.size(), size_t{1'000'000});
      removed_.insert(cc.node_id());
    }
  }
  if (std::optional<uint64_t> request = conf_change_request_id(cc)) on_applied(*request, result);
  const bool self_removed = result.error.is_ok() && cc.type() == raftpb::CONF_CHANGE_REMOVE_NODE &&
                            cc.node_id() == options_.id;
  if (!self_removed || stopping_) return;
  // etcd stops 10 ticks later (stopWithDelay), so that the answer to the removal can go out.
  stopping_ = true;
  if (hooks_.observer) hooks_.observer->removed();
  env_.spawn("removed", [this] {
    if (env_.sleep(10 * options_.tick) != sim::WaitResult::kOk) return;
    exit(kErrRemovedFromCluster);
  });
}

}  // namespace dst::node
