// The member's side of etcd's Cluster service (MemberAdd, MemberRemove) and the apply of conf
// changes (etcd's configure() and applyConfChange()); the rules are in membership.h.
#include <algorithm>

#include "base/assert.h"
#include "base/probes.h"
#include "node/raft/describe.h"
#include "node/server/server.h"

namespace dst::node {

Result<uint64_t> Server::add_member(const std::vector<std::string>& peer_urls, bool learner) {
  if (Status st = check_peer_urls_bounds(peer_urls); !st.is_ok()) return st;
  Result<uint64_t> id = member_id_from_peer_url(peer_urls.front());
  if (!id.is_ok()) return id.status();
  const raftpb::ConfState cs = raft_->conf_state();
  // The same URL as a member's: etcd checks the URLs before anything else.
  if (names_member(cs, *id) || member_urls_.taken(peer_urls, cs, 0))
    return Status(StatusCode::kFailedPrecondition, kErrPeerUrlExists);
  if (Status st = may_add_member(cs, options_.id, learner, peer_activity_, env_.now()); !st.is_ok()) return st;
  raftpb::ConfChange cc;
  cc.set_type(learner ? raftpb::CONF_CHANGE_ADD_LEARNER_NODE : raftpb::CONF_CHANGE_ADD_NODE);
  cc.set_node_id(*id);
  const uint64_t request = next_id();
  cc.set_context(conf_change_context(request, false, peer_urls));
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

Status Server::update_member(uint64_t id, const std::vector<std::string>& peer_urls) {
  if (Status st = check_peer_urls_bounds(peer_urls); !st.is_ok()) return st;
  raftpb::ConfChange cc;
  cc.set_type(raftpb::CONF_CHANGE_UPDATE_NODE);
  cc.set_node_id(id);
  const uint64_t request = next_id();
  cc.set_context(conf_change_context(request, false, peer_urls));
  Result<ApplyResult> r = submit_and_wait(request, ConfChangeProposal{std::move(cc)});
  if (!r.is_ok()) return r.status();
  if (r->error.is_ok()) DST_PROBE(kServerMemberUpdated);
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
  if (Status st = may_promote_member(raft_->conf_state(), options_.id, peer_activity_); !st.is_ok()) return st;
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

void Server::apply_valid_conf_change(const raftpb::ConfChange& cc) {
  DST_PROBE(kRaftConfChangeApplied);
  const std::vector<std::string> urls = conf_change_peer_urls(cc);
  switch (cc.type()) {
    case raftpb::CONF_CHANGE_UPDATE_NODE: member_urls_.set(cc.node_id(), urls); return;  // not Raft's business
    case raftpb::CONF_CHANGE_REMOVE_NODE:
      DST_ASSERT_LE(removed_.size(), size_t{1'000'000});
      removed_.insert(cc.node_id());
      member_urls_.erase(cc.node_id());
      break;
    default:
      // An addition carries its URLs (a promotion none: the learner keeps its own).
      if (!urls.empty()) member_urls_.set(cc.node_id(), urls);
      break;
  }
  raft_->apply_conf_change(cc);
}

void Server::apply_conf_change(const raftpb::Entry& e) {
  raftpb::ConfChange cc;
  DST_ASSERT_MSG(cc.ParseFromString(e.data()), "unparsable conf change at " + raft::describe_entry(e));
  ApplyResult result;
  result.error = validate_conf_change(cc, raft_->conf_state(), removed_, member_urls_);
  // An invalid change is applied as a no-op (etcd sets its NodeID to None); Raft needs nothing
  // from it: its pending-change guard is an index, passed by applying the entry.
  if (result.error.is_ok()) apply_valid_conf_change(cc);
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
