// etcd 3.4's membership rules for MemberAdd / MemberRemove, apart from the Server so that they
// can be tested on their own:
//   - peer URLs name members: "http://n4:2380" is member 4 (real etcd hashes the URLs and a
//     clock into a random-looking ID; the simulation keeps IDs readable and deterministic);
//   - PeerActivity: what etcd's transport knows about each peer's connection (ActiveSince);
//   - the strict reconfiguration checks etcd runs before proposing (server.go mayAddMember,
//     mayRemoveMember: never propose a change that would leave too few started or connected
//     members for a quorum);
//   - the validation every member runs when it applies a change (ValidateConfigurationChange): a
//     change that fails it is applied as a no-op and its proposer gets the error.
// Error strings and gRPC codes are etcd's (api/v3rpc/rpctypes).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "proto/raft.pb.h"
#include "sim/time.h"

namespace dst::node {

inline constexpr char kErrMemberNotFound[] = "etcdserver: member not found";
inline constexpr char kErrMemberExists[] = "etcdserver: member ID already exist";
inline constexpr char kErrPeerUrlExists[] = "etcdserver: Peer URLs already exists";
inline constexpr char kErrMemberBadUrls[] = "etcdserver: given member URLs are invalid";
inline constexpr char kErrNotEnoughStarted[] = "etcdserver: re-configuration failed due to not enough started members";
inline constexpr char kErrUnhealthy[] = "etcdserver: unhealthy cluster";
inline constexpr char kErrTooManyLearners[] = "etcdserver: too many learner members in cluster";
// etcd's MemberPromote errors (ErrGRPCMemberNotLearner, ErrGRPCLearnerNotReady).
inline constexpr char kErrMemberNotLearner[] = "etcdserver: can only promote a learner member";
inline constexpr char kErrLearnerNotReady[] = "etcdserver: can only promote a learner member which is in sync with leader";
// etcd's readyPercent: a learner is promoted only once its log reaches 90% of the leader's.
inline constexpr double kLearnerReadyFraction = 0.9;

// etcd's MoveLeader errors (ErrGRPCNotLeader, ErrGRPCBadLeaderTransferee, ErrGRPCTimeoutLeaderTransfer).
inline constexpr char kErrNotLeader[] = "etcdserver: not leader";
inline constexpr char kErrNoLeader[] = "etcdserver: no leader";
inline constexpr char kErrBadLeaderTransferee[] = "etcdserver: bad leader transferee";
inline constexpr char kErrTimeoutLeaderTransfer[] = "etcdserver: request timed out, leader transfer took too long";
// Why a member stops when it applies its own removal (etcd logs it and exits).
inline constexpr char kErrRemovedFromCluster[] = "the member has been permanently removed from the cluster";

// Whether `id` is a voter or a learner of `cs`.
bool names_member(const raftpb::ConfState& cs, uint64_t id);

// "http://n<id>:<port>" (the simulation's hosts are named n1, n2, ...). kInvalidArgument
// kErrMemberBadUrls for anything else.
Result<uint64_t> member_id_from_peer_url(std::string_view url);
std::string member_peer_url(uint64_t id, uint16_t port);
std::string member_client_url(uint64_t id, uint16_t port);

// The connection to each peer as the member's transport sees it: a peer is connected while its
// messages keep coming (Raft heartbeats every tick), and "active since" the first message after
// the last silence longer than `idle` (etcd's stream is torn down after a similar silence).
class PeerActivity {
 public:
  explicit PeerActivity(sim::DurationNs idle) : idle_(idle) {}
  void heard(uint64_t peer, sim::TimeNs now);
  // etcd's transport.ActiveSince: when the current connection came up; nullopt: not connected.
  std::optional<sim::TimeNs> active_since(uint64_t peer, sim::TimeNs now) const;
  // Heard from at all (etcd: the member published its name, IsStarted). Bounded by the
  // membership: only members' messages are recorded (the caller filters).
  bool ever_heard(uint64_t peer) const { return peers_.count(peer) != 0; }

 private:
  struct Peer {
    sim::TimeNs since = 0;
    sim::TimeNs last = 0;
  };
  sim::DurationNs idle_;
  std::map<uint64_t, Peer> peers_;
};

// etcd's HealthInterval: a change needs peers connected for at least this long.
inline constexpr sim::DurationNs kMemberHealthInterval = sim::seconds(5);

// etcd's mayAddMember (strict reconfiguration check) on member `self`: adding a voter needs a
// quorum of the grown cluster already started, and `self` connected to every voter for the
// health interval. kFailedPrecondition kErrNotEnoughStarted or kUnavailable kErrUnhealthy.
Status may_add_member(const raftpb::ConfState& cs, uint64_t self, bool learner, const PeerActivity& peers,
                      sim::TimeNs now);
// etcd's mayRemoveMember: removing a voter must leave a started quorum and, unless the member
// removed is down already, a connected one.
Status may_remove_member(const raftpb::ConfState& cs, uint64_t self, uint64_t id, const PeerActivity& peers,
                         sim::TimeNs now);
// Bounds on `member add/update --peer-urls` (etcd has none but the request size).
inline constexpr size_t kPeerUrlsMax = 16;
inline constexpr size_t kPeerUrlBytesMax = 1024;

// The peer URLs of each member (etcd's RaftAttributes.PeerURLs), as `member add` and `member
// update` gave them. The simulation routes by member ID, so they are names only: a member whose
// URLs are updated to an address nobody serves stays reachable (in etcd it would be cut off). A
// member without an entry has the one URL its ID gives (member_peer_url).
class MemberUrls {
 public:
  explicit MemberUrls(uint16_t default_port) : port_(default_port) {}
  std::vector<std::string> of(uint64_t id) const;
  // Whether one of `urls` is a peer URL of a member of `cs` other than `except` (etcd's
  // ErrPeerURLexists).
  bool taken(const std::vector<std::string>& urls, const raftpb::ConfState& cs, uint64_t except) const;
  void set(uint64_t id, const std::vector<std::string>& urls);
  void erase(uint64_t id) { urls_.erase(id); }
  // Into and out of a Raft snapshot's metadata, so that they outlive the log entries.
  void save(raftpb::SnapshotMetadata* meta) const;
  void load(const raftpb::SnapshotMetadata& meta);

 private:
  uint16_t port_;
  std::map<uint64_t, std::vector<std::string>> urls_;  // only members whose URLs differ from port_'s
};

// kInvalidArgument kErrMemberBadUrls unless 1..kPeerUrlsMax URLs of at most kPeerUrlBytesMax.
Status check_peer_urls_bounds(const std::vector<std::string>& urls);

// etcd's mayPromoteMember after the readiness check (IsReadyToPromoteMember): the promoted learner
// counts as a started voter, and the voters it joins need a started quorum with it.
// kFailedPrecondition kErrNotEnoughStarted.
Status may_promote_member(const raftpb::ConfState& cs, uint64_t self, const PeerActivity& peers);

// etcd's ValidateConfigurationChange, run by every member as it applies the change. `removed`:
// members removed before (an ID is never reused); `urls`: the members' peer URLs.
Status validate_conf_change(const raftpb::ConfChange& cc, const raftpb::ConfState& cs, const std::set<uint64_t>& removed,
                            const MemberUrls& urls);

// What a Server stores in a ConfChange's context (raftpb::ConfChangeContext): the request id, so
// that the proposer can find its waiting client when the change is applied; for an ADD_NODE,
// whether it promotes a learner (etcd's ConfigChangeContext.IsPromote); for an add or an update,
// the member's peer URLs.
std::string conf_change_context(uint64_t request_id, bool promote = false, const std::vector<std::string>& peer_urls = {});
std::optional<uint64_t> conf_change_request_id(const raftpb::ConfChange& cc);
bool conf_change_promotes(const raftpb::ConfChange& cc);
std::vector<std::string> conf_change_peer_urls(const raftpb::ConfChange& cc);

}  // namespace dst::node
