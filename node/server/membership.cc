// See membership.h.
#include "node/server/membership.h"

#include "base/parse_number.h"

#include <algorithm>
#include <charconv>

#include "base/assert.h"

namespace dst::node {

namespace {

bool contains(const google::protobuf::RepeatedField<uint64_t>& ids, uint64_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Connected now and since at least `since`.
bool connected_since(const PeerActivity& peers, uint64_t self, uint64_t id, sim::TimeNs since, sim::TimeNs now) {
  if (id == self) return true;
  const std::optional<sim::TimeNs> t = peers.active_since(id, now);
  return t && *t <= since;
}

bool started(const PeerActivity& peers, uint64_t self, uint64_t id) { return id == self || peers.ever_heard(id); }

}  // namespace

bool names_member(const raftpb::ConfState& cs, uint64_t id) {
  return contains(cs.voters(), id) || contains(cs.learners(), id);
}

Result<uint64_t> member_id_from_peer_url(std::string_view url) {
  const Status bad(StatusCode::kInvalidArgument, kErrMemberBadUrls);
  constexpr std::string_view kScheme = "http://n";
  if (url.substr(0, kScheme.size()) != kScheme) return bad;
  url.remove_prefix(kScheme.size());
  const size_t colon = url.find(':');
  if (colon == std::string_view::npos) return bad;
  const std::optional<uint64_t> id = parse_u64(url.substr(0, colon));
  const std::optional<uint16_t> port = parse_unsigned<uint16_t>(url.substr(colon + 1));
  if (!id || *id == 0 || !port || *port == 0) return bad;
  return *id;
}

std::string member_peer_url(uint64_t id, uint16_t port) {
  return "http://n" + std::to_string(id) + ":" + std::to_string(port);
}

std::string member_client_url(uint64_t id, uint16_t port) { return member_peer_url(id, port); }

void PeerActivity::heard(uint64_t peer, sim::TimeNs now) {
  auto [it, fresh] = peers_.try_emplace(peer, Peer{now, now});
  if (!fresh && now - it->second.last > idle_) it->second.since = now;  // the connection had dropped
  it->second.last = now;
}

std::optional<sim::TimeNs> PeerActivity::active_since(uint64_t peer, sim::TimeNs now) const {
  auto it = peers_.find(peer);
  if (it == peers_.end() || now - it->second.last > idle_) return std::nullopt;
  return it->second.since;
}

Status may_add_member(const raftpb::ConfState& cs, uint64_t self, bool learner, const PeerActivity& peers,
                      sim::TimeNs now) {
  if (!learner) {
    // IsReadyToAddVotingMember: the new member counts, not yet started.
    int members = 1, up = 0;
    for (uint64_t id : cs.voters()) {
      ++members;
      up += started(peers, self, id);
    }
    const bool single_node = up == 1 && members == 2;
    if (!single_node && up < members / 2 + 1) return Status(StatusCode::kFailedPrecondition, kErrNotEnoughStarted);
  }
  // isConnectedFullySince: every voter connected for the health interval.
  const sim::TimeNs since = now - kMemberHealthInterval;
  for (uint64_t id : cs.voters())
    if (!connected_since(peers, self, id, since, now)) return Status(StatusCode::kUnavailable, kErrUnhealthy);
  return Status::ok();
}

Status may_remove_member(const raftpb::ConfState& cs, uint64_t self, uint64_t id, const PeerActivity& peers,
                         sim::TimeNs now) {
  if (contains(cs.learners(), id)) return Status::ok();  // a learner is no part of any quorum
  // IsReadyToRemoveVotingMember: the others must hold a started quorum among themselves.
  int members = 0, up = 0;
  for (uint64_t v : cs.voters()) {
    if (v == id) continue;
    ++members;
    up += started(peers, self, v);
  }
  if (up < members / 2 + 1) return Status(StatusCode::kFailedPrecondition, kErrNotEnoughStarted);
  // A member that is down is no part of the active quorum: removing it is safe.
  if (id != self && !peers.active_since(id, now)) return Status::ok();
  const sim::TimeNs since = now - kMemberHealthInterval;
  int active = 0;
  for (uint64_t v : cs.voters()) active += connected_since(peers, self, v, since, now);
  const int voters = cs.voters_size();
  if (active - 1 < 1 + (voters - 1) / 2) return Status(StatusCode::kUnavailable, kErrUnhealthy);
  return Status::ok();
}

Status may_promote_member(const raftpb::ConfState& cs, uint64_t self, const PeerActivity& peers) {
  int members = 1, up = 1;  // the learner: a member of the future quorum, and started
  for (uint64_t id : cs.voters()) {
    ++members;
    up += started(peers, self, id);
  }
  if (up < members / 2 + 1) return Status(StatusCode::kFailedPrecondition, kErrNotEnoughStarted);
  return Status::ok();
}

std::vector<std::string> MemberUrls::of(uint64_t id) const {
  auto it = urls_.find(id);
  if (it != urls_.end()) return it->second;
  return {member_peer_url(id, port_)};
}

bool MemberUrls::taken(const std::vector<std::string>& urls, const raftpb::ConfState& cs, uint64_t except) const {
  auto used_by = [&](uint64_t id) {
    if (id == except) return false;
    for (const std::string& mine : of(id))
      if (std::find(urls.begin(), urls.end(), mine) != urls.end()) return true;
    return false;
  };
  return std::any_of(cs.voters().begin(), cs.voters().end(), used_by) ||
         std::any_of(cs.learners().begin(), cs.learners().end(), used_by);
}

void MemberUrls::set(uint64_t id, const std::vector<std::string>& urls) {
  DST_ASSERT(check_peer_urls_bounds(urls).is_ok());
  if (urls == std::vector<std::string>{member_peer_url(id, port_)}) {
    urls_.erase(id);
    return;
  }
  DST_ASSERT_LE(urls_.size(), size_t{1'000'000});
  urls_[id] = urls;
}

void MemberUrls::save(raftpb::SnapshotMetadata* meta) const {
  meta->clear_member_peer_urls();
  for (const auto& [id, urls] : urls_) {
    raftpb::MemberPeerUrls* m = meta->add_member_peer_urls();
    m->set_id(id);
    for (const std::string& u : urls) m->add_peer_urls(u);
  }
}

void MemberUrls::load(const raftpb::SnapshotMetadata& meta) {
  urls_.clear();
  for (const raftpb::MemberPeerUrls& m : meta.member_peer_urls())
    set(m.id(), std::vector<std::string>(m.peer_urls().begin(), m.peer_urls().end()));
}

Status check_peer_urls_bounds(const std::vector<std::string>& urls) {
  bool ok = !urls.empty() && urls.size() <= kPeerUrlsMax;
  for (const std::string& u : urls) ok = ok && u.size() <= kPeerUrlBytesMax;
  return ok ? Status::ok() : Status(StatusCode::kInvalidArgument, kErrMemberBadUrls);
}

namespace {

// etcd's checks for a new member (ADD_NODE that is no promotion, or ADD_LEARNER_NODE).
Status validate_addition(const raftpb::ConfChange& cc, const raftpb::ConfState& cs, const std::set<uint64_t>& removed,
                         const MemberUrls& urls) {
  const uint64_t id = cc.node_id();
  // etcd maps ErrIDRemoved to "member not found" for its clients.
  if (removed.count(id)) return Status(StatusCode::kNotFound, kErrMemberNotFound);
  if (names_member(cs, id)) return Status(StatusCode::kFailedPrecondition, kErrMemberExists);
  if (urls.taken(conf_change_peer_urls(cc), cs, 0)) return Status(StatusCode::kFailedPrecondition, kErrPeerUrlExists);
  // etcd 3.4 allows one learner at a time (maxLearners).
  if (cc.type() == raftpb::CONF_CHANGE_ADD_LEARNER_NODE && cs.learners_size() >= 1)
    return Status(StatusCode::kFailedPrecondition, kErrTooManyLearners);
  return Status::ok();
}

}  // namespace

Status validate_conf_change(const raftpb::ConfChange& cc, const raftpb::ConfState& cs, const std::set<uint64_t>& removed,
                            const MemberUrls& urls) {
  const uint64_t id = cc.node_id();
  const bool member = names_member(cs, id);
  switch (cc.type()) {
    case raftpb::CONF_CHANGE_ADD_NODE:
      if (conf_change_promotes(cc)) {
        if (removed.count(id) || !member) return Status(StatusCode::kNotFound, kErrMemberNotFound);
        if (std::find(cs.learners().begin(), cs.learners().end(), id) == cs.learners().end())
          return Status(StatusCode::kFailedPrecondition, kErrMemberNotLearner);
        return Status::ok();
      }
      return validate_addition(cc, cs, removed, urls);
    case raftpb::CONF_CHANGE_ADD_LEARNER_NODE: return validate_addition(cc, cs, removed, urls);
    case raftpb::CONF_CHANGE_REMOVE_NODE:
      if (removed.count(id) || !member) return Status(StatusCode::kNotFound, kErrMemberNotFound);
      return Status::ok();
    case raftpb::CONF_CHANGE_UPDATE_NODE: {
      if (removed.count(id) || !member) return Status(StatusCode::kNotFound, kErrMemberNotFound);
      const std::vector<std::string> wanted = conf_change_peer_urls(cc);
      if (Status st = check_peer_urls_bounds(wanted); !st.is_ok()) return st;
      if (urls.taken(wanted, cs, id)) return Status(StatusCode::kFailedPrecondition, kErrPeerUrlExists);
      return Status::ok();
    }
    default: return Status(StatusCode::kInvalidArgument, "unknown conf change type");
  }
}

namespace {

std::optional<raftpb::ConfChangeContext> parse_context(const raftpb::ConfChange& cc) {
  raftpb::ConfChangeContext c;
  if (cc.context().empty() || !c.ParseFromString(cc.context())) return std::nullopt;
  return c;
}

}  // namespace

std::string conf_change_context(uint64_t request_id, bool promote, const std::vector<std::string>& peer_urls) {
  raftpb::ConfChangeContext c;
  c.set_request_id(request_id);
  c.set_promote(promote);
  for (const std::string& u : peer_urls) c.add_peer_urls(u);
  return c.SerializeAsString();
}

bool conf_change_promotes(const raftpb::ConfChange& cc) {
  if (cc.type() != raftpb::CONF_CHANGE_ADD_NODE) return false;
  std::optional<raftpb::ConfChangeContext> c = parse_context(cc);
  return c && c->promote();
}

std::optional<uint64_t> conf_change_request_id(const raftpb::ConfChange& cc) {
  std::optional<raftpb::ConfChangeContext> c = parse_context(cc);
  if (!c || c->request_id() == 0) return std::nullopt;  // Server request ids are never 0
  return c->request_id();
}

std::vector<std::string> conf_change_peer_urls(const raftpb::ConfChange& cc) {
  std::optional<raftpb::ConfChangeContext> c = parse_context(cc);
  if (!c) return {};
  return std::vector<std::string>(c->peer_urls().begin(), c->peer_urls().end());
}

}  // namespace dst::node
