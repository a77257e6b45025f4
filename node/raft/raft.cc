#include "node/raft/raft.h"

#include <algorithm>

#include "base/assert.h"
#include "base/limits.h"
#include "base/probes.h"
#include "node/raft/describe.h"

namespace dst::raft {

namespace {
// Vote requests carry this context when a leader transfer started the campaign: voters then ignore
// their leader lease, because the current leader asked for the election (thesis §3.10).
constexpr char kTransferContext[] = "transfer";

bool is_vote_type(raftpb::MessageType t) {
  return t == raftpb::MSG_VOTE || t == raftpb::MSG_PRE_VOTE;
}
raftpb::MessageType vote_response_type(raftpb::MessageType t) {
  return t == raftpb::MSG_VOTE ? raftpb::MSG_VOTE_RESP : raftpb::MSG_PRE_VOTE_RESP;
}
}  // namespace

Raft::Raft(Config config, RandomSource& random, InitialState initial)
    : config_(std::move(config)),
      random_(random),
      log_(initial.snapshot.metadata(), std::move(initial.entries), initial.hard_state.commit(),
           initial.applied, config_.bugs.any_in(BugLayer::kRaft)) {
  Status valid = config_.validate();
  DST_ASSERT_MSG(valid.is_ok(), valid.to_string());
  snapshot_ = std::move(initial.snapshot);
  apply_membership(snapshot_.metadata().conf_state());
  term_ = initial.hard_state.term();
  vote_ = initial.hard_state.vote();
  if (log_.last_term() > term_) {
    // The WAL writes a Ready's entries before its hard state, so a torn write can keep entries of
    // a term whose hard state record was lost. No vote in that term was ever sent (a vote goes out
    // only after its own, earlier, synced Ready), so adopting the term without a vote is safe.
    term_ = log_.last_term();
    vote_ = 0;
  }
  // What is durable: a term raised above makes the first Ready persist it.
  prev_hard_state_ = initial.hard_state;
  prev_hard_state_.set_commit(log_.committed());
  become_follower(term_, 0);
  prev_soft_state_ = SoftState{lead_, role_};
}

// --- roles --------------------------------------------------------------------------------------

void Raft::reset(uint64_t term) {
  if (term != term_) {
    DST_ASSERT_GT(term, term_);
    term_ = term;
    vote_ = 0;
  }
  lead_ = 0;
  election_elapsed_ = 0;
  heartbeat_elapsed_ = 0;
  reset_randomized_election_timeout();
  abort_leader_transfer();
  votes_.clear();
  snapshot_wait_ticks_.clear();
  for (auto& [id, pr] : progress_) {
    bool learner = pr.is_learner;
    pr = Progress(config_.max_inflight_msgs);
    pr.is_learner = learner;
    pr.next = log_.last_index() + 1;
    // Our own copy counts only once it is durable (see the header comment).
    if (id == config_.id) pr.match = log_.stabled();
  }
  pending_conf_index_ = 0;
  uncommitted_bytes_ = 0;
  read_requests_.clear();
  reads_before_first_commit_.clear();
}

void Raft::reset_randomized_election_timeout() {
  randomized_election_timeout_ =
      config_.election_tick + static_cast<int>(random_.uniform(static_cast<uint64_t>(config_.election_tick)));
}

void Raft::become_follower(uint64_t term, uint64_t lead) {
  reset(term);
  lead_ = lead;
  role_ = Role::kFollower;
}

void Raft::become_pre_candidate() {
  DST_ASSERT_MSG(role_ != Role::kLeader, "a leader cannot become a pre-candidate");
  // Pre-vote changes neither the term nor the vote: a failed pre-election leaves no trace (§9.6).
  role_ = Role::kPreCandidate;
  votes_.clear();
  lead_ = 0;
}

void Raft::become_candidate() {
  DST_ASSERT_MSG(role_ != Role::kLeader, "a leader cannot become a candidate");
  reset(term_ + 1);
  vote_ = config_.id;
  role_ = Role::kCandidate;
}

void Raft::become_leader() {
  DST_ASSERT_MSG(role_ == Role::kCandidate, "only a candidate becomes leader");
  DST_PROBE(kRaftLeaderElected);
  reset(term_);
  lead_ = config_.id;
  role_ = Role::kLeader;
  auto self = progress_.find(config_.id);
  DST_ASSERT(self != progress_.end());
  self->second.become_replicate();
  self->second.match = log_.stabled();
  self->second.next = log_.last_index() + 1;
  // Entries of earlier terms in our log may not be committed yet; we must not serve a
  // configuration change until they are, so conservatively treat the whole log as pending.
  pending_conf_index_ = log_.last_index();
  // §5.4.2: a leader commits earlier-term entries only by committing one of its own; the empty
  // entry does that promptly (and §8: ReadIndex needs it before the commit index is trustworthy).
  raftpb::Entry empty;
  empty.set_type(raftpb::ENTRY_NORMAL);
  bool appended = append_entries({empty});
  DST_ASSERT(appended);
}

bool Raft::has_unapplied_conf_change() const {
  uint64_t lo = std::max(log_.applied() + 1, log_.first_index());
  for (uint64_t i = lo; i <= log_.committed(); ++i)
    if (log_.entry(i).type() == raftpb::ENTRY_CONF_CHANGE) return true;
  return false;
}

void Raft::campaign(CampaignKind kind) {
  DST_ASSERT(promotable());
  uint64_t term;
  raftpb::MessageType type;
  if (kind == CampaignKind::kPreElection) {
    become_pre_candidate();
    type = raftpb::MSG_PRE_VOTE;
    term = term_ + 1;  // the term we would campaign in; ours does not change yet
  } else {
    become_candidate();
    type = raftpb::MSG_VOTE;
    term = term_;
  }
  auto [granted, rejected] = poll(config_.id, true);
  if (granted >= quorum()) {
    // A single-voter cluster wins at once.
    if (kind == CampaignKind::kPreElection) {
      campaign(CampaignKind::kElection);
    } else {
      become_leader();
    }
    return;
  }
  for (uint64_t id : voters_) {
    if (id == config_.id) continue;
    raftpb::Message m;
    m.set_type(type);
    m.set_to(id);
    m.set_term(term);
    m.set_index(log_.last_index());
    m.set_log_term(log_.last_term());
    if (kind == CampaignKind::kTransfer) m.set_context(kTransferContext);
    send(std::move(m));
  }
}

std::pair<size_t, size_t> Raft::poll(uint64_t from, bool granted) {
  votes_.emplace(from, granted);  // the first answer from a voter counts
  size_t yes = 0, no = 0;
  for (auto [id, v] : votes_) {
    if (voters_.count(id) == 0) continue;
    (v ? yes : no)++;
  }
  return {yes, no};
}

// --- inputs -------------------------------------------------------------------------------------

void Raft::tick() {
  if (role_ != Role::kLeader) {
    ++election_elapsed_;
    if (promotable() && election_elapsed_ >= randomized_election_timeout_) {
      election_elapsed_ = 0;
      Status s = campaign();
      (void)s;  // "cannot campaign" is expected while conf changes wait to be applied
    }
    return;
  }

  ++heartbeat_elapsed_;
  ++election_elapsed_;
  // A snapshot whose answer never came (lost message, follower restarted) is given up after two
  // election timeouts, and the follower probed again.
  for (auto it = snapshot_wait_ticks_.begin(); it != snapshot_wait_ticks_.end();) {
    auto pr = progress_.find(it->first);
    if (pr == progress_.end() || pr->second.state != ProgressState::kSnapshot) {
      it = snapshot_wait_ticks_.erase(it);
      continue;
    }
    if (++it->second >= 2 * config_.election_tick) {
      pr->second.pending_snapshot = 0;  // treat it as failed: the follower may not have it
      pr->second.become_probe();
      it = snapshot_wait_ticks_.erase(it);
      continue;
    }
    ++it;
  }
  if (election_elapsed_ >= config_.election_tick) {
    election_elapsed_ = 0;
    if (config_.check_quorum) {
      // §6.2 (thesis): a leader that cannot reach a quorum for an election timeout steps down, so
      // clients stop waiting on it and a partitioned leader stops serving stale reads.
      size_t active = 0;
      for (auto& [id, pr] : progress_) {
        if (id == config_.id || pr.recent_active) {
          if (voters_.count(id)) ++active;
        }
        if (id != config_.id) pr.recent_active = false;
      }
      if (active < quorum()) {
        DST_PROBE(kRaftCheckQuorumStepDown);
        become_follower(term_, 0);
        return;
      }
    }
  }
  if (lead_transferee_ != 0 && ++transfer_elapsed_ >= config_.election_tick) abort_leader_transfer();
  if (heartbeat_elapsed_ >= config_.heartbeat_tick) {
    heartbeat_elapsed_ = 0;
    // Every heartbeat round carries the newest pending read, so a read whose own round was lost
    // is confirmed by the next one (an ack for it confirms every earlier read too).
    bcast_heartbeat(read_requests_.empty() ? std::string() : read_requests_.back().context);
  }
}

Status Raft::campaign() {
  if (role_ == Role::kLeader) return Status::ok();
  if (!promotable()) return Status(StatusCode::kUnavailable, "not a voter: cannot campaign");
  if (has_unapplied_conf_change())
    return Status(StatusCode::kUnavailable, "cannot campaign while committed conf changes are unapplied");
  campaign(config_.pre_vote ? CampaignKind::kPreElection : CampaignKind::kElection);
  return Status::ok();
}

Status Raft::drop_proposal(std::string why) const {
  return Status(StatusCode::kUnavailable, "proposal dropped: " + why);
}

Status Raft::propose(std::string data) {
  raftpb::Message m;
  m.set_type(raftpb::MSG_PROP);
  m.set_from(config_.id);
  raftpb::Entry* e = m.add_entries();
  e->set_type(raftpb::ENTRY_NORMAL);
  e->set_data(std::move(data));
  return step(m);
}

Status Raft::propose_conf_change(const raftpb::ConfChange& cc) {
  raftpb::Message m;
  m.set_type(raftpb::MSG_PROP);
  m.set_from(config_.id);
  raftpb::Entry* e = m.add_entries();
  e->set_type(raftpb::ENTRY_CONF_CHANGE);
  e->set_data(cc.SerializeAsString());
  return step(m);
}

Status Raft::read_index(std::string context) {
  raftpb::Message m;
  m.set_type(raftpb::MSG_READ_INDEX);
  m.set_from(config_.id);
  m.set_context(std::move(context));
  return step(m);
}

Status Raft::transfer_leader(uint64_t to) {
  if (role_ != Role::kLeader) return Status(StatusCode::kUnavailable, "not the leader: cannot transfer");
  if (to == config_.id) return Status::ok();
  auto it = progress_.find(to);
  if (it == progress_.end() || it->second.is_learner)
    return Status(StatusCode::kInvalidArgument, "transfer target " + std::to_string(to) + " is not a voter");
  if (lead_transferee_ == to) return Status::ok();
  abort_leader_transfer();
  lead_transferee_ = to;
  // The transfer must finish within one election timeout, or it is aborted in tick(). Its own
  // timer: resetting election_elapsed_ would also postpone the check-quorum step-down.
  transfer_elapsed_ = 0;
  if (it->second.match == log_.last_index()) {
    send_timeout_now(to);
  } else {
    send_append(to);
  }
  return Status::ok();
}

Status Raft::step(const raftpb::Message& m) {
  Status result;
  if (m.term() == 0) {
    // Forwarded proposals and reads carry no term; they are routed by role below.
    DST_ASSERT_MSG(m.type() == raftpb::MSG_PROP || m.type() == raftpb::MSG_READ_INDEX,
                   "only forwarded proposals and reads may have term 0: " + describe_message(m));
  } else if (m.term() > term_) {
    if (is_vote_type(m.type())) {
      bool force = m.context() == kTransferContext;
      bool in_lease = config_.check_quorum && lead_ != 0 && election_elapsed_ < config_.election_tick;
      // Leader stickiness (thesis §4.2.3): while we hear from a leader, a disruptive candidate
      // (say, one that was partitioned and kept incrementing its term) cannot depose it.
      if (!force && in_lease) return Status::ok();
    }
    if (m.type() == raftpb::MSG_PRE_VOTE) {
      // A pre-vote never changes our term.
    } else if (m.type() == raftpb::MSG_PRE_VOTE_RESP && !m.reject()) {
      // The term moves when the pre-candidate wins and campaigns for real.
    } else if (m.type() == raftpb::MSG_APP || m.type() == raftpb::MSG_HEARTBEAT ||
               m.type() == raftpb::MSG_SNAP) {
      become_follower(m.term(), m.from());
    } else {
      become_follower(m.term(), 0);
    }
  } else if (m.term() < term_) {
    if ((config_.check_quorum || config_.pre_vote) &&
        (m.type() == raftpb::MSG_HEARTBEAT || m.type() == raftpb::MSG_APP)) {
      // A deposed leader that missed the new term would otherwise never hear of it: with
      // check-quorum/pre-vote nobody sends it a higher-term vote request. Tell it.
      raftpb::Message r;
      r.set_type(raftpb::MSG_APP_RESP);
      r.set_to(m.from());
      send(std::move(r));
    } else if (m.type() == raftpb::MSG_PRE_VOTE) {
      // Reject with our term so the pre-candidate learns it is behind.
      raftpb::Message r;
      r.set_type(raftpb::MSG_PRE_VOTE_RESP);
      r.set_to(m.from());
      r.set_term(term_);
      r.set_reject(true);
      send(std::move(r));
    }
    return Status::ok();  // stale: ignore (§5.1)
  }

  if (is_vote_type(m.type())) {
    handle_vote_request(m);
    return Status::ok();
  }
  switch (role_) {
    case Role::kLeader: step_leader(m, result); break;
    case Role::kCandidate:
    case Role::kPreCandidate: step_candidate(m, result); break;
    case Role::kFollower: step_follower(m, result); break;
  }
  return result;
}

void Raft::handle_vote_request(const raftpb::Message& m) {
  // §5.2: one vote per term, first come first served; a pre-vote for a future term binds nothing.
  bool can_vote = vote_ == m.from() || (vote_ == 0 && lead_ == 0) ||
                  (m.type() == raftpb::MSG_PRE_VOTE && m.term() > term_);
  // §5.4.1: only for a candidate whose log is at least as up-to-date as ours.
  bool log_ok = config_.bugs.on(Bug::kVoteIgnoresLog) || log_.is_up_to_date(m.index(), m.log_term());
  raftpb::Message r;
  r.set_type(vote_response_type(m.type()));
  r.set_to(m.from());
  if (can_vote && log_ok) {
    // Answer in the candidate's term: a granted pre-vote is for a term we have not reached.
    r.set_term(m.term());
    if (m.type() == raftpb::MSG_VOTE) {
      election_elapsed_ = 0;
      vote_ = m.from();
    }
  } else {
    r.set_term(term_);
    r.set_reject(true);
    if (m.type() == raftpb::MSG_PRE_VOTE) DST_PROBE(kRaftPreVoteRefused);
    else if (!log_ok) DST_PROBE(kRaftVoteRefusedLogBehind);
    else if (vote_ != 0 && vote_ != m.from()) DST_PROBE(kRaftVoteRefusedVotedOther);
  }
  send(std::move(r));
}

void Raft::step_leader(const raftpb::Message& m, Status& result) {
  switch (m.type()) {
    case raftpb::MSG_PROP: {
      DST_ASSERT_MSG(m.entries_size() > 0, "empty proposal");
      if (progress_.count(config_.id) == 0) {
        result = drop_proposal("this node was removed from the cluster");
        return;
      }
      if (lead_transferee_ != 0) {
        result = drop_proposal("leadership is being transferred to " + std::to_string(lead_transferee_));
        return;
      }
      std::vector<raftpb::Entry> entries(m.entries().begin(), m.entries().end());
      uint64_t new_pending_conf = 0;
      for (size_t k = 0; k < entries.size(); ++k) {
        if (entries[k].type() != raftpb::ENTRY_CONF_CHANGE) continue;
        if (pending_conf_index_ > log_.applied() || new_pending_conf != 0) {
          result = Status(StatusCode::kUnavailable,
                          "proposal dropped: a configuration change is already pending (index " +
                              std::to_string(std::max(pending_conf_index_, new_pending_conf)) + ", applied " +
                              std::to_string(log_.applied()) + ")");
          return;
        }
        new_pending_conf = log_.last_index() + 1 + k;
      }
      if (!append_entries(std::move(entries))) {
        result = Status(StatusCode::kResourceExhausted,
                        "proposal dropped: too many uncommitted bytes on the leader");
        return;
      }
      // Only an appended conf change is pending; a dropped one must not block the next.
      if (new_pending_conf != 0) pending_conf_index_ = new_pending_conf;
      bcast_append();
      return;
    }
    case raftpb::MSG_READ_INDEX:
      result = leader_read_index(m);
      return;
    default: break;
  }
  auto it = progress_.find(m.from());
  if (it == progress_.end()) return;  // a removed member
  Progress& pr = it->second;
  switch (m.type()) {
    case raftpb::MSG_APP_RESP: handle_append_response(m, pr); break;
    case raftpb::MSG_HEARTBEAT_RESP: handle_heartbeat_response(m, pr); break;
    default: break;  // e.g. a late vote response from our own election
  }
}

void Raft::step_candidate(const raftpb::Message& m, Status& result) {
  raftpb::MessageType my_response =
      role_ == Role::kPreCandidate ? raftpb::MSG_PRE_VOTE_RESP : raftpb::MSG_VOTE_RESP;
  switch (m.type()) {
    case raftpb::MSG_PROP:
      DST_PROBE(kRaftProposalDroppedNoLeader);
      result = drop_proposal("no leader (election in progress)");
      return;
    case raftpb::MSG_READ_INDEX:
      result = Status(StatusCode::kUnavailable, "read index dropped: no leader");
      return;
    case raftpb::MSG_APP:
      become_follower(m.term(), m.from());
      handle_append(m);
      return;
    case raftpb::MSG_HEARTBEAT:
      become_follower(m.term(), m.from());
      handle_heartbeat(m);
      return;
    case raftpb::MSG_SNAP:
      become_follower(m.term(), m.from());
      handle_snapshot(m);
      return;
    default: break;
  }
  if (m.type() != my_response) return;
  auto [granted, rejected] = poll(m.from(), !m.reject());
  if (granted >= quorum()) {
    if (role_ == Role::kPreCandidate) {
      campaign(CampaignKind::kElection);
    } else {
      become_leader();
      bcast_append();
    }
  } else if (rejected >= quorum()) {
    // Lost: wait for the winner (or the next timeout). A pre-vote rejection may carry a higher term,
    // which the term check above already adopted.
    DST_PROBE(kRaftElectionLost);
    become_follower(term_, 0);
  }
}

void Raft::step_follower(const raftpb::Message& m, Status& result) {
  switch (m.type()) {
    case raftpb::MSG_PROP: {
      if (lead_ == 0) {
        DST_PROBE(kRaftProposalDroppedNoLeader);
        result = drop_proposal("no leader");
        return;
      }
      if (!config_.forward_proposals) {
        result = drop_proposal("not the leader (forwarding disabled)");
        return;
      }
      raftpb::Message fwd = m;
      fwd.set_to(lead_);
      DST_PROBE(kRaftProposalForwarded);
      send(std::move(fwd));
      return;
    }
    case raftpb::MSG_READ_INDEX: {
      if (lead_ == 0) {
        result = Status(StatusCode::kUnavailable, "read index dropped: no leader");
        return;
      }
      raftpb::Message fwd = m;
      fwd.set_to(lead_);
      send(std::move(fwd));
      return;
    }
    case raftpb::MSG_APP:
      election_elapsed_ = 0;
      lead_ = m.from();
      handle_append(m);
      return;
    case raftpb::MSG_HEARTBEAT:
      election_elapsed_ = 0;
      lead_ = m.from();
      handle_heartbeat(m);
      return;
    case raftpb::MSG_SNAP:
      election_elapsed_ = 0;
      lead_ = m.from();
      handle_snapshot(m);
      return;
    case raftpb::MSG_TIMEOUT_NOW:
      // The leader hands over: campaign at once, skipping pre-vote (thesis §3.10) but not the
      // other checks: with a committed, unapplied conf change we would ask the wrong voters.
      if (promotable() && !has_unapplied_conf_change()) campaign(CampaignKind::kTransfer);
      return;
    case raftpb::MSG_READ_INDEX_RESP:
      read_states_.push_back(ReadState{m.index(), m.context()});
      return;
    default: return;
  }
}

// --- replication --------------------------------------------------------------------------------

bool Raft::append_entries(std::vector<raftpb::Entry> entries) {
  uint64_t bytes = 0;
  for (const raftpb::Entry& e : entries) bytes += e.data().size();
  // Flow control: refuse when the uncommitted tail is too big (but never refuse the empty entry
  // of a new term, and always accept one proposal into an empty pipeline).
  if (bytes > 0 && uncommitted_bytes_ > 0 &&
      uncommitted_bytes_ + bytes > config_.max_uncommitted_entries_size)
    return false;
  uncommitted_bytes_ += bytes;
  uint64_t index = log_.last_index();
  for (raftpb::Entry& e : entries) {
    e.set_term(term_);
    e.set_index(++index);
  }
  log_.append(std::move(entries));
  // Our own progress moves when advance() reports the entries durable.
  return true;
}

void Raft::send(raftpb::Message m) {
  // A forwarded proposal or read keeps its origin, so the answer goes to whoever asked even if it
  // is forwarded twice (to a node that thought we led, then on to the real leader).
  bool forwarded = (m.type() == raftpb::MSG_PROP || m.type() == raftpb::MSG_READ_INDEX) && m.from() != 0;
  if (!forwarded) m.set_from(config_.id);
  if (is_vote_type(m.type()) || m.type() == raftpb::MSG_VOTE_RESP || m.type() == raftpb::MSG_PRE_VOTE_RESP) {
    DST_ASSERT_MSG(m.term() != 0, "vote traffic must name its term: " + describe_message(m));
  } else if (m.type() == raftpb::MSG_PROP || m.type() == raftpb::MSG_READ_INDEX) {
    // Forwarded as-is, without a term (the leader routes them by role, not by term).
  } else {
    DST_ASSERT_MSG(m.term() == 0, "term is set by send(): " + describe_message(m));
    m.set_term(term_);
  }
  DST_ASSERT_NE(m.to(), config_.id);
  msgs_.push_back(std::move(m));
}

bool Raft::send_append(uint64_t to, bool send_if_empty) {
  auto it = progress_.find(to);
  DST_ASSERT(it != progress_.end());
  Progress& pr = it->second;
  if (pr.is_paused()) return false;

  std::optional<uint64_t> prev_term = log_.term(pr.next - 1);
  if (!prev_term.has_value() || pr.next < log_.first_index()) {
    // §7: the entries it needs are compacted away; send the snapshot instead.
    if (!pr.recent_active) return false;  // don't ship a snapshot into the void
    DST_ASSERT_GE(snapshot_.metadata().index() + 1, log_.first_index());
    raftpb::Message m;
    m.set_type(raftpb::MSG_SNAP);
    m.set_to(to);
    *m.mutable_snapshot() = snapshot_;
    pr.become_snapshot(snapshot_.metadata().index());
    snapshot_wait_ticks_[to] = 0;
    DST_PROBE(kRaftSnapshotSent);
    send(std::move(m));
    return true;
  }

  std::vector<raftpb::Entry> entries;
  if (pr.next <= log_.last_index()) entries = log_.slice(pr.next, log_.last_index() + 1, config_.max_size_per_msg);
  if (entries.empty() && !send_if_empty) return false;

  raftpb::Message m;
  m.set_type(raftpb::MSG_APP);
  m.set_to(to);
  m.set_index(pr.next - 1);
  m.set_log_term(*prev_term);
  m.set_commit(log_.committed());
  if (!entries.empty()) {
    uint64_t last = entries.back().index();
    for (raftpb::Entry& e : entries) *m.add_entries() = std::move(e);
    if (pr.state == ProgressState::kReplicate) {
      // Optimistic: assume it arrives, keep streaming (bounded by the inflight window).
      pr.next = last + 1;
      pr.inflights.add(last);
    }
  }
  // One probe at a time: wait for its answer or the next heartbeat response.
  if (pr.state == ProgressState::kProbe) pr.probe_sent = true;
  send(std::move(m));
  return true;
}

void Raft::bcast_append() {
  for (auto& [id, pr] : progress_)
    if (id != config_.id) send_append(id);
}

void Raft::send_heartbeat(uint64_t to, const std::string& context) {
  const Progress& pr = progress_.at(to);
  raftpb::Message m;
  m.set_type(raftpb::MSG_HEARTBEAT);
  m.set_to(to);
  // The follower may not have our log up to our commit index yet; tell it no more than it is
  // known to match, so it never commits entries that might differ from ours.
  m.set_commit(config_.bugs.on(Bug::kHeartbeatCommitUnchecked) ? log_.committed()
                                                               : std::min(pr.match, log_.committed()));
  m.set_context(context);
  send(std::move(m));
}

void Raft::bcast_heartbeat(const std::string& context) {
  for (auto& [id, pr] : progress_)
    if (id != config_.id) send_heartbeat(id, context);
}

void Raft::send_timeout_now(uint64_t to) {
  DST_PROBE(kRaftLeaderTransfer);
  raftpb::Message m;
  m.set_type(raftpb::MSG_TIMEOUT_NOW);
  m.set_to(to);
  send(std::move(m));
}

bool Raft::maybe_commit() {
  if (voters_.empty()) return false;
  std::vector<uint64_t> matches;
  for (uint64_t id : voters_) {
    auto it = progress_.find(id);
    matches.push_back(it == progress_.end() ? 0 : it->second.match);
  }
  std::sort(matches.begin(), matches.end(), std::greater<>());
  uint64_t index = matches[quorum() - 1];
  if (index <= log_.committed()) return false;
  // §5.4.2 / Figure 8: replicas of an entry from an earlier term do not make it committed; only an
  // entry of the current term commits (and with it everything before it).
  if (!config_.bugs.on(Bug::kCommitOldTermEntries) && log_.term(index) != term_) return false;
  log_.commit_to(index);
  return true;
}

bool Raft::committed_entry_in_current_term() const {
  return log_.term(log_.committed()) == term_;
}

void Raft::handle_append(const raftpb::Message& m) {
  raftpb::Message r;
  r.set_type(raftpb::MSG_APP_RESP);
  r.set_to(m.from());
  if (m.index() < log_.committed()) {
    // Old news: everything up to our commit index matches already.
    r.set_index(log_.committed());
    send(std::move(r));
    return;
  }
  std::optional<uint64_t> last_new =
      log_.maybe_append(m.index(), m.log_term(), m.commit(), m.entries());
  if (last_new.has_value()) {
    r.set_index(*last_new);
    send(std::move(r));
    return;
  }
  // §5.3 with the fast back-off: tell the leader the last index whose term is <= the term it
  // probed with, so it can skip the whole conflicting term at once.
  DST_PROBE(kRaftAppendRejected);
  uint64_t hint = log_.find_conflict_by_term(std::min(m.index(), log_.last_index()), m.log_term());
  r.set_index(m.index());
  r.set_reject(true);
  r.set_reject_hint(hint);
  r.set_log_term(log_.term(hint).value_or(0));
  send(std::move(r));
}

void Raft::handle_heartbeat(const raftpb::Message& m) {
  uint64_t commit = m.commit();
  if (config_.bugs.on(Bug::kHeartbeatCommitUnchecked)) commit = std::min(commit, log_.last_index());
  log_.commit_to(commit);
  raftpb::Message r;
  r.set_type(raftpb::MSG_HEARTBEAT_RESP);
  r.set_to(m.from());
  r.set_context(m.context());
  send(std::move(r));
}

void Raft::handle_snapshot(const raftpb::Message& m) {
  raftpb::Message r;
  r.set_type(raftpb::MSG_APP_RESP);
  r.set_to(m.from());
  if (restore(m.snapshot())) {
    r.set_index(log_.last_index());
  } else {
    r.set_index(log_.committed());
  }
  send(std::move(r));
}

bool Raft::restore(const raftpb::Snapshot& snapshot) {
  const raftpb::SnapshotMetadata& meta = snapshot.metadata();
  if (meta.index() <= log_.committed()) return false;
  if (log_.match_term(meta.index(), meta.term())) {
    // We already have the entries; just learn that they are committed.
    log_.commit_to(meta.index());
    return false;
  }
  DST_PROBE(kRaftSnapshotRestored);
  log_.restore(meta);
  snapshot_ = snapshot;
  unstable_snapshot_ = snapshot;
  apply_membership(meta.conf_state());
  return true;
}

void Raft::handle_append_response(const raftpb::Message& m, Progress& pr) {
  pr.recent_active = true;
  if (m.reject()) {
    uint64_t next_probe = m.reject_hint();
    if (m.log_term() > 0) next_probe = log_.find_conflict_by_term(m.reject_hint(), m.log_term());
    if (pr.maybe_decr_to(m.index(), next_probe)) {
      if (pr.state == ProgressState::kReplicate) pr.become_probe();
      send_append(m.from());
    }
    return;
  }
  bool was_paused = pr.is_paused();
  if (!pr.maybe_update(m.index())) return;
  switch (pr.state) {
    case ProgressState::kProbe: pr.become_replicate(); break;
    case ProgressState::kSnapshot:
      if (pr.match >= pr.pending_snapshot) {
        pr.become_probe();
        pr.become_replicate();
      }
      break;
    case ProgressState::kReplicate: pr.inflights.free_le(m.index()); break;
  }
  if (maybe_commit()) {
    release_pending_reads();
    bcast_append();
  } else if (was_paused) {
    send_append(m.from());
  }
  // Stream whatever else fits in the window; bounded by the window and the log.
  for (size_t i = 0; i < config_.max_inflight_msgs && send_append(m.from(), false); ++i) {
  }
  if (m.from() == lead_transferee_ && pr.match == log_.last_index()) send_timeout_now(m.from());
}

void Raft::handle_heartbeat_response(const raftpb::Message& m, Progress& pr) {
  pr.recent_active = true;
  pr.probe_sent = false;
  // A full window whose messages were all lost would block replication to this follower forever;
  // the follower is alive (it answered), so let one more append through. If the window's messages
  // were lost, that append is rejected and the leader falls back to probing.
  if (pr.state == ProgressState::kReplicate && pr.inflights.full()) pr.inflights.free_first_one();
  if (pr.match < log_.last_index()) send_append(m.from());
  if (!m.context().empty()) read_index_ack(m.from(), m.context());
}

// --- ReadIndex ----------------------------------------------------------------------------------

Status Raft::leader_read_index(const raftpb::Message& m) {
  uint64_t from = m.from() == 0 ? config_.id : m.from();
  if (config_.bugs.on(Bug::kReadIndexWithoutQuorum)) {
    answer_read(from, log_.committed(), m.context());
    return Status::ok();
  }
  if (!committed_entry_in_current_term()) {
    // Our commit index may lag the true one until we commit an entry of our own term (§8).
    DST_PROBE(kRaftReadIndexWaitsForTermCommit);
    if (reads_before_first_commit_.size() >= limits::kRaftPendingReadIndexMax)
      return Status(StatusCode::kResourceExhausted, "read index dropped: too many pending reads");
    reads_before_first_commit_.push_back(m);
    return Status::ok();
  }
  // A single voter is its own quorum: the commit index is confirmed (it committed in its term).
  if (voters_.size() == 1 && promotable()) {
    answer_read(from, log_.committed(), m.context());
    return Status::ok();
  }
  for (const ReadRequest& r : read_requests_) {
    if (r.context != m.context()) continue;
    // Asked again (the client retried): confirm again; the first round may have been lost.
    bcast_heartbeat(read_requests_.back().context);
    return Status::ok();
  }
  if (read_requests_.size() >= limits::kRaftPendingReadIndexMax) {
    // Still try to drain what is waiting, so the queue cannot stay full forever.
    bcast_heartbeat(read_requests_.back().context);
    return Status(StatusCode::kResourceExhausted, "read index dropped: too many pending reads");
  }
  ReadRequest req;
  req.context = m.context();
  req.index = log_.committed();
  req.from = from;
  req.acks.insert(config_.id);
  read_requests_.push_back(std::move(req));
  // Confirm we are still the leader: a heartbeat round carrying the context.
  bcast_heartbeat(m.context());
  return Status::ok();
}

void Raft::read_index_ack(uint64_t from, const std::string& context) {
  auto it = std::find_if(read_requests_.begin(), read_requests_.end(),
                         [&](const ReadRequest& r) { return r.context == context; });
  if (it == read_requests_.end()) return;
  it->acks.insert(from);
  size_t voter_acks = 0;
  for (uint64_t id : it->acks) voter_acks += voters_.count(id);
  if (voter_acks < quorum()) return;
  // Confirmed at this point means every earlier request is confirmed too.
  size_t done = static_cast<size_t>(it - read_requests_.begin()) + 1;
  DST_PROBE(kRaftReadIndexAnswered);
  for (size_t k = 0; k < done; ++k) {
    ReadRequest r = std::move(read_requests_.front());
    read_requests_.pop_front();
    answer_read(r.from, r.index, r.context);
  }
}

void Raft::answer_read(uint64_t from, uint64_t index, const std::string& context) {
  if (from == config_.id) {
    read_states_.push_back(ReadState{index, context});
    return;
  }
  raftpb::Message r;
  r.set_type(raftpb::MSG_READ_INDEX_RESP);
  r.set_to(from);
  r.set_index(index);
  r.set_context(context);
  send(std::move(r));
}

void Raft::release_pending_reads() {
  if (reads_before_first_commit_.empty() || !committed_entry_in_current_term()) return;
  std::vector<raftpb::Message> waiting;
  waiting.swap(reads_before_first_commit_);
  for (const raftpb::Message& m : waiting) {
    Status s = leader_read_index(m);
    (void)s;  // a read dropped for space is retried by its client
  }
}

// --- membership ---------------------------------------------------------------------------------

void Raft::add_progress(uint64_t id, bool learner) {
  DST_ASSERT_LT(progress_.size(), limits::kRaftMembersMax);
  Progress pr(config_.max_inflight_msgs);
  pr.is_learner = learner;
  pr.next = log_.last_index() + 1;
  if (id == config_.id) pr.match = log_.stabled();
  // A new member counts as active so that it can be sent a snapshot right away.
  pr.recent_active = true;
  progress_.emplace(id, std::move(pr));
}

void Raft::apply_membership(const raftpb::ConfState& cs) {
  voters_.clear();
  learners_.clear();
  std::map<uint64_t, Progress> old;
  old.swap(progress_);
  for (uint64_t id : cs.voters()) voters_.insert(id);
  for (uint64_t id : cs.learners()) {
    DST_ASSERT_MSG(voters_.count(id) == 0, "a member cannot be both voter and learner");
    learners_.insert(id);
  }
  for (uint64_t id : voters_) add_progress(id, false);
  for (uint64_t id : learners_) add_progress(id, true);
}

raftpb::ConfState Raft::conf_state() const {
  raftpb::ConfState cs;
  for (uint64_t id : voters_) cs.add_voters(id);
  for (uint64_t id : learners_) cs.add_learners(id);
  return cs;
}

raftpb::ConfState Raft::apply_conf_change(const raftpb::ConfChange& cc) {
  uint64_t id = cc.node_id();
  DST_ASSERT_NE(id, 0u);
  switch (cc.type()) {
    case raftpb::CONF_CHANGE_ADD_NODE:
      if (learners_.erase(id)) {
        voters_.insert(id);
        progress_.at(id).is_learner = false;  // promotion keeps the replication state
      } else if (voters_.insert(id).second) {
        add_progress(id, false);
      }
      break;
    case raftpb::CONF_CHANGE_ADD_LEARNER_NODE:
      if (voters_.count(id) == 0 && learners_.insert(id).second) add_progress(id, true);
      break;
    case raftpb::CONF_CHANGE_REMOVE_NODE:
      voters_.erase(id);
      learners_.erase(id);
      progress_.erase(id);
      if (id == lead_transferee_) abort_leader_transfer();
      break;
    default: DST_UNREACHABLE("conf change type");
  }
  if (role_ == Role::kLeader) {
    if (!promotable()) {
      // We removed ourselves: stop leading; the remaining members elect a new leader.
      become_follower(term_, 0);
    } else if (maybe_commit()) {
      // A smaller quorum may commit more now.
      release_pending_reads();
      bcast_append();
    }
  }
  return conf_state();
}

raftpb::Snapshot Raft::make_snapshot(std::string data) const {
  raftpb::Snapshot s;
  s.set_data(std::move(data));
  s.mutable_metadata()->set_index(log_.applied());
  s.mutable_metadata()->set_term(*log_.term(log_.applied()));
  *s.mutable_metadata()->mutable_conf_state() = conf_state();
  return s;
}

void Raft::compact(raftpb::Snapshot snapshot) {
  uint64_t index = snapshot.metadata().index();
  DST_ASSERT_LE(index, log_.applied());
  DST_ASSERT_MSG(log_.match_term(index, snapshot.metadata().term()) || index == log_.snapshot_metadata().index(),
                 "snapshot term does not match the log");
  if (index <= log_.snapshot_metadata().index()) return;
  log_.compact(index);
  snapshot_ = std::move(snapshot);
}

void Raft::report_unreachable(uint64_t id) {
  if (role_ != Role::kLeader) return;
  auto it = progress_.find(id);
  if (it == progress_.end()) return;
  // Streaming into a dead link is pointless; go back to one probe per heartbeat.
  if (it->second.state == ProgressState::kReplicate) it->second.become_probe();
}

void Raft::report_snapshot(uint64_t id, bool ok) {
  if (role_ != Role::kLeader) return;
  auto it = progress_.find(id);
  if (it == progress_.end() || it->second.state != ProgressState::kSnapshot) return;
  Progress& pr = it->second;
  if (!ok) pr.pending_snapshot = 0;
  pr.become_probe();
  // Wait for the next heartbeat response before probing, as the snapshot may still be applying.
  pr.probe_sent = true;
}

// --- Ready --------------------------------------------------------------------------------------

bool Raft::has_ready() const {
  if (!msgs_.empty() || !read_states_.empty() || unstable_snapshot_.has_value()) return true;
  if (log_.stabled() < log_.last_index() || log_.has_next_committed()) return true;
  if (SoftState{lead_, role_} != prev_soft_state_) return true;
  return term_ != prev_hard_state_.term() || vote_ != prev_hard_state_.vote() ||
         log_.committed() != prev_hard_state_.commit();
}

Ready Raft::ready() {
  DST_ASSERT_MSG(!awaiting_advance_, "ready() called twice without advance()");
  awaiting_advance_ = true;
  Ready rd;
  SoftState soft{lead_, role_};
  if (soft != prev_soft_state_) rd.soft_state = soft;
  raftpb::HardState hs;
  hs.set_term(term_);
  hs.set_vote(vote_);
  hs.set_commit(log_.committed());
  bool term_or_vote_changed = hs.term() != prev_hard_state_.term() || hs.vote() != prev_hard_state_.vote();
  if (term_or_vote_changed || hs.commit() != prev_hard_state_.commit()) rd.hard_state = hs;
  rd.entries = log_.unstable_entries();
  rd.snapshot = unstable_snapshot_;
  rd.committed_entries = log_.next_committed(config_.max_committed_size_per_ready);
  rd.messages.swap(msgs_);
  rd.read_states.swap(read_states_);
  // A commit index alone need not be synced: it can be recomputed from a quorum after a crash.
  bool sync_vote = term_or_vote_changed && !config_.bugs.on(Bug::kVoteBeforePersist);
  bool sync_entries = !rd.entries.empty() && !config_.bugs.on(Bug::kAckBeforePersist);
  rd.must_sync = sync_vote || sync_entries || rd.snapshot.has_value();
  return rd;
}

void Raft::advance(const Ready& rd) {
  DST_ASSERT_MSG(awaiting_advance_, "advance() without ready()");
  awaiting_advance_ = false;
  if (rd.soft_state) prev_soft_state_ = *rd.soft_state;
  if (rd.hard_state) prev_hard_state_ = *rd.hard_state;
  if (rd.snapshot && unstable_snapshot_ &&
      unstable_snapshot_->metadata().index() == rd.snapshot->metadata().index()) {
    unstable_snapshot_.reset();
  }
  if (!rd.entries.empty()) {
    const raftpb::Entry& last = rd.entries.back();
    log_.stable_to(last.index(), last.term());
    if (role_ == Role::kLeader) {
      auto self = progress_.find(config_.id);
      if (self != progress_.end() && self->second.maybe_update(log_.stabled())) {
        if (maybe_commit()) {
          release_pending_reads();
          bcast_append();
        }
      }
    }
  }
  if (!rd.committed_entries.empty()) {
    uint64_t bytes = 0;
    for (const raftpb::Entry& e : rd.committed_entries) bytes += e.data().size();
    uncommitted_bytes_ = bytes >= uncommitted_bytes_ ? 0 : uncommitted_bytes_ - bytes;
    log_.applied_to(rd.committed_entries.back().index());
  }
}

// --- status -------------------------------------------------------------------------------------

std::string Raft::status() const {
  std::string s = std::to_string(config_.id) + " " + role_name(role_) + " term=" + std::to_string(term_) +
                  " vote=" + std::to_string(vote_) + " lead=" + std::to_string(lead_) +
                  " log=" + std::to_string(log_.first_index()) + ".." + std::to_string(log_.last_index()) +
                  " commit=" + std::to_string(log_.committed()) + " applied=" + std::to_string(log_.applied());
  if (role_ == Role::kLeader) {
    if (lead_transferee_ != 0) s += " transferring-to=" + std::to_string(lead_transferee_);
    for (const auto& [id, pr] : progress_) s += "\n  " + std::to_string(id) + ": " + pr.describe();
  }
  return s;
}

}  // namespace dst::raft
