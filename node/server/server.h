// The node process: Raft driven by fibers over the simulated disk and network.
//
// Fibers of one incarnation:
//   raft loop  - owns the Raft state machine; takes inputs (peer messages, ticks, proposals) from
//                one inbox and handles each Ready: persist (WAL, snapshot) -> fsync if must_sync ->
//                send -> apply -> advance, then snapshots and compacts every snapshot_every entries.
//   receiver   - reads Raft messages from the node's datagram socket into the inbox.
//   ticker     - one tick per `tick` of the host's monotonic clock (drift and pauses apply).
// The member sees the machine only through its process's sim::Env (time, sleep, its fibers, files,
// sockets, its random stream, exiting itself): it can end its own process, as etcd exits on a
// fatal error, but never another's. A crash is the world killing the process; a restart is
// Server::run in a new process on the same host, which reads the newest snapshot plus the WAL
// tail and rejoins.
//
// Peer traffic uses datagrams: Raft tolerates loss, duplication and reordering by design, and the
// network's loss/duplicate/reorder knobs then exercise exactly that.
#pragma once

#include <cstdint>
#include <functional>
#include <deque>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "base/bugs.h"
#include "node/raft/invariants.h"
#include "node/server/auto_compactor.h"
#include "node/raft/raft.h"
#include "node/fault_points/fault_points.h"
#include "node/server/kv_state_machine.h"
#include "node/server/membership.h"
#include "node/server/state_machine.h"
#include "node/wal/snapshotter.h"
#include "node/wal/wal.h"
#include "sim/env.h"
#include "sim/file_system.h"
#include "sim/sockets.h"
#include "sim/sync.h"

namespace dst::node {

enum class StateMachineKind { kHashChain, kKv };

// The client API's knobs (api_server.h), with etcd 3.4's defaults.
struct ApiOptions {
  // The client port; the API runs only on KV members.
  uint16_t port = 2379;
  // How long a write or a linearizable read may wait: etcd's 5 s + 2 x election timeout. Past it
  // the client gets "etcdserver: request timed out" and does not know whether a write happened.
  sim::DurationNs request_timeout = sim::seconds(7);
  // A ReadIndex that got no answer (no leader, lost message) is asked again this often (etcd 3.4
  // retries after 500 ms too).
  sim::DurationNs read_index_retry = sim::milliseconds(500);
  // etcd's --max-request-bytes (1.5 MiB): bigger requests get "etcdserver: request is too large";
  // gRPC itself refuses messages beyond that plus 512 KiB with its own error.
  size_t max_request_bytes = 1572864;
  size_t grpc_overhead_bytes = 512 * 1024;
  // etcd's --quota-backend-bytes default (2 GiB); scenarios set less to reach NOSPACE.
  uint64_t quota_bytes = 2ull * 1024 * 1024 * 1024;
  // etcd's --experimental-watch-progress-notify-interval default.
  sim::DurationNs progress_notify_interval = sim::seconds(600);
  // How often unsynced watchers catch up from the store (etcd's syncWatchersLoop: 100 ms).
  sim::DurationNs watch_sync_interval = sim::milliseconds(100);
  // etcd's --max-txn-ops (128): a txn with more operations, or more compares, is refused.
  size_t max_txn_ops = 128;
  // etcd's --auto-compaction-mode / --auto-compaction-retention (off by default, as in etcd).
  AutoCompaction auto_compaction;
};

struct ServerOptions {
  uint64_t id = 0;
  // Reported in every response header (etcd derives it from the initial membership).
  uint64_t cluster_id = 0x1c0ffee;
  // What committed entries are applied to: the Raft-level hash chain, or the etcd KV store (then
  // entries carry InternalRequests and the load fiber proposes a mixed KV workload).
  StateMachineKind state_machine = StateMachineKind::kHashChain;
  // Members of the cluster at its creation; a node in this list bootstraps from a snapshot at
  // index 1 naming them. A node not in it starts empty and waits for the leader's snapshot.
  std::vector<uint64_t> initial_voters;
  // A member of a cluster restored from a snapshot (etcdctl snapshot restore): its first start
  // bootstraps with this KV image (snapshot_file.h restored_image) as the state at the first
  // index, instead of an empty store. Every member of the restored cluster gets the same image.
  std::shared_ptr<const std::string> restored_image;
  // Every member's host (for addressing peer messages).
  std::map<uint64_t, sim::HostId> peers;
  uint16_t raft_port = 2380;
  // etcd's defaults: 100 ms heartbeat, 1 s election timeout (10 ticks).
  sim::DurationNs tick = sim::milliseconds(100);
  raft::Config raft;  // raft.id is set from `id`
  // Applied entries between snapshots (etcd: 10000 in 3.4; smaller so compaction is exercised).
  uint64_t snapshot_every = 1000;
  wal::WalOptions wal;
  std::string data_dir = "member";
  // Inputs queued for the raft loop; a full inbox drops peer messages (Raft retries).
  size_t inbox_capacity = 4096;
  ApiOptions api;
  // The run's switched-on bugs (base/bugs.h), passed down unchanged to every layer of the member
  // (Raft's config.bugs is set from it); empty in every correct run.
  Bugs bugs;
};

// Counted per incarnation; the world adds them up across a node's incarnations (ServerObserver).
struct ServerCounters {
  uint64_t readies = 0;
  uint64_t wal_syncs = 0;
  uint64_t messages_sent = 0;
  uint64_t messages_received = 0;
  uint64_t entries_applied = 0;
  uint64_t snapshots = 0;            // taken locally
  uint64_t snapshots_installed = 0;  // received from a leader
  uint64_t proposals_dropped = 0;
  uint64_t reads_requested = 0;
  uint64_t reads_answered = 0;

  ServerCounters& operator+=(const ServerCounters& o);
};

class Server;

// What the world learns from a member as it runs: told, never handed a place to write. Every
// method is called in the member's process; the defaults do nothing. The observer must outlive
// the member's process (its Server tells it stopped() as the process dies).
class ServerObserver {
 public:
  virtual ~ServerObserver() = default;
  // The member has started (its Raft can be inspected), before its API serves: where a test world
  // starts load of its own in the member's process (world/raft_load.h), so that the load dies
  // with the process like the member's own fibers.
  virtual void started(Server&) {}
  // The incarnation ends (its process dies): `server` is inspected for the last time (its
  // counters) and must not be used afterwards.
  virtual void stopped(const Server&) {}
  // The member takes itself down, and why (a WAL failure, unreadable data, its own removal).
  virtual void exiting(const std::string&) {}
  // The member applied its own removal from the cluster: it stops for good.
  virtual void removed() {}
  // Its automatic compactor (auto_compactor.h) sent a compaction, or got its answer.
  virtual void auto_compaction(const AutoCompactionEvent&) {}
};

// What the world lends a member: things that live outside the process and outlive its crashes.
struct ServerHooks {
  raft::Invariants* invariants = nullptr;  // checked after every Raft step and Ready
  // Named places where the world's faults act (fault_points.h); passed, never acted on here.
  FaultPoints* faults = nullptr;
  // Where every member lives, kept by the world as members are added (a name service); null:
  // ServerOptions::peers, fixed at start.
  const std::map<uint64_t, sim::HostId>* directory = nullptr;
  ServerObserver* observer = nullptr;
};


class Server {
 public:
  // Runs one incarnation of the node until its process ends. Call from the first fiber of a fresh
  // process on the node's host; `env` is that process's (sim/env.h) and outlives it.
  static void run(sim::Env& env, ServerOptions options, ServerHooks hooks);

  ~Server();
  uint64_t id() const { return options_.id; }
  const raft::Raft& raft() const { return *raft_; }
  StateMachine& state_machine() const { return *state_; }
  // This incarnation's (the world adds them up over incarnations: ServerObserver::stopped).
  const ServerCounters& counters() const { return counters_; }
  // Why the last start had to repair the WAL (empty if it did not).
  const wal::RepairReport& wal_repair() const { return repair_; }
  const ServerOptions& options() const { return options_; }
  ServerObserver* observer() const { return hooks_.observer; }

  // --- for the client API (api_server.h); call from fibers of this node's process -----------
  // The KV state machine, or null on a hash-chain node.
  KvStateMachine* kv() const { return kv_; }
  // Proposes the request (with a fresh id) through Raft and waits for this member to apply it.
  // Followers forward the proposal to the leader, as etcd's raft does. Errors: kTimeout
  // ("etcdserver: request timed out[, possibly due to previous leader failure]") when it was not
  // applied within the request timeout (it may still be, later); kResourceExhausted when too
  // many proposals are pending.
  Result<ApplyResult> propose_and_wait(etcdserverpb::InternalRequest req);
  // Waits until this member has applied everything committed before the call (ReadIndex), so a
  // read served afterwards is linearizable. kTimeout when no quorum answers in time.
  Status linearizable_barrier();
  // etcd's ensureLeadership: this member leads, a quorum confirmed it (ReadIndex) and it still
  // leads after. Keep-alives and lease revokes are the leader's alone; a leader stuck on its disk
  // or cut off must not serve them (etcd #15247). Always true with the lease-renew-on-stale-leader
  // bug (its callers act on their own belief that the member leads).
  bool ensure_leadership();
  // A fresh id for a client request or a lease: the member id in the top byte, a counter below.
  uint64_t next_id();
  // The clock the lessor decides lease expiry on: this member's monotonic clock (its host's drift
  // applies, wall-clock steps do not); its wall clock with the lease-expiry-on-follower-clock bug.
  int64_t local_now() const;
  // The member a client should talk to for leader-only work (lease keep-alive, time-to-live).
  std::optional<sim::Address> leader_api_address() const;
  // etcd's MemberAdd / MemberRemove (membership.h): the strict reconfiguration checks, then a
  // Raft conf change, waited for like a proposal (the same timeouts and errors). add_member
  // returns the new member's ID (its first URL names it).
  Result<uint64_t> add_member(const std::vector<std::string>& peer_urls, bool learner);
  Status remove_member(uint64_t id);
  // etcd's UpdateMember: new peer URLs for member `id`, through Raft (no reconfiguration check, as
  // etcd); the apply refuses an unknown member or URLs another member has.
  Status update_member(uint64_t id, const std::vector<std::string>& peer_urls);
  // The peer URLs of member `id` as this member's applied configuration has them.
  std::vector<std::string> member_peer_urls(uint64_t id) const { return member_urls_.of(id); }
  // etcd's PromoteMember on the leader: a learner whose log is within 90% of the leader's becomes a
  // voter. kUnavailable kErrNotLeader on a follower (the API forwards it), kErrLearnerNotReady,
  // and the apply's own refusals (member not found, not a learner).
  Status promote_member(uint64_t id);
  // etcd's MoveLeader on the leader: asks Raft to hand leadership to `transferee` (a voter) and
  // waits, a tick at a time, until this member sees it lead. kFailedPrecondition
  // kErrBadLeaderTransferee for a learner or a non-member; kTimeout kErrTimeoutLeaderTransfer
  // after the request timeout (Raft gives a transfer one election timeout, then aborts it).
  Status move_leader(uint64_t transferee);
  // The host of member `id` (the world's directory, or ServerOptions::peers).
  std::optional<sim::HostId> peer_host(uint64_t id) const;

  // --- raw Raft input, for load generators below the API (world/raft_load.h) -----------------
  // Hands an encoded entry to the raft loop as a proposal, without waiting for it to commit (a
  // follower forwards it to the leader it knows; with no leader Raft drops it). False once the
  // process is going down.
  bool propose(std::string data);
  // Asks Raft for a ReadIndex under `context` (answers are checked by the invariants). False
  // once the process is going down.
  bool request_read(std::string context);

 private:
  struct Tick {};
  struct Proposal {
    std::string data;
  };
  struct ReadRequest {
    std::string context;
  };
  struct ConfChangeProposal {
    raftpb::ConfChange change;
  };
  struct LeaderTransfer {
    uint64_t to = 0;
  };
  using Input = std::variant<raftpb::Message, Tick, Proposal, ReadRequest, ConfChangeProposal, LeaderTransfer>;

  Server(sim::Env& env, ServerOptions options, ServerHooks hooks);
  Status start();
  Status open_state_machine();
  Status bootstrap();
  Status finish_bootstrap();
  bool has_wal() const;
  void raft_loop();
  void receive_loop();
  // Whether this forwarded proposal was already received (a network duplicate): see server.cc.
  bool duplicate_proposal(const std::string& payload);
  void tick_loop();
  // The transport's own traffic, apart from Raft's (etcd's rafthttp): a keep-alive to every
  // member (so that each member knows which peers are connected, which the membership checks
  // need; Raft followers never talk to each other), and the notice that tells a removed member
  // it was removed. Sent as a MsgHeartbeat at term 0 with the kind in the context.
  static constexpr const char* kLinkHeartbeat = "link";
  static constexpr const char* kLinkRemoved = "removed";
  // etcd's stream keep-alive: a third of its 5 s read timeout (PeerActivity's idle bound).
  static constexpr sim::DurationNs kLinkHeartbeatInterval = sim::milliseconds(1666);
  static bool is_link_message(const raftpb::Message& m);
  void send_link_message(uint64_t to, const char* kind);
  void link_loop();
  void lease_expiry_loop();
  // etcd's linearizableReadLoop: the linearizable reads that arrived since the last round share
  // the next ReadIndex (one heartbeat round for all of them), and all are let go once the
  // applied index reaches it.
  void read_loop();
  // One round: asks Raft for a ReadIndex (again every read_index_retry while no answer comes)
  // and waits until the applied index reaches it; kCancelled when the process is going away.
  Status read_index_round();
  void watch_sync_loop();
  void progress_notify_loop();
  // Leader changes move the lessor between primary (expiring leases) and follower (never).
  void track_leadership();
  void step(Input input);
  void handle_ready();
  void maybe_snapshot();
  void fault_point(FaultPoint p);
  // Ends this member's process on a fatal error (etcd exits or panics), telling the world why.
  [[noreturn]] void exit(const std::string& why);
  void observe();
  void on_applied(uint64_t id, ApplyResult result);
  // Registers a waiter for request `id`, hands `input` to the raft loop and waits for the apply.
  Result<ApplyResult> submit_and_wait(uint64_t id, Input input);
  // A committed conf change: validated (an invalid one is a no-op), applied to Raft, its
  // proposer told; on the member's own removal it stops a little later (etcd: 10 ticks).
  void apply_conf_change(const raftpb::Entry& e);
  // A change that passed validation: to Raft's configuration and the members' URLs.
  void apply_valid_conf_change(const raftpb::ConfChange& cc);

  sim::Env& env_;
  ServerOptions options_;
  ServerHooks hooks_;
  // The Env the lessor reads its clock from: env_, or with the lease-expiry-on-follower-clock bug
  // a wrapper whose monotonic clock is the wall clock (wall_clock_env.h).
  std::unique_ptr<sim::Env> lease_clock_bug_;
  sim::Env& lessor_env_;
  sim::FileSystem& fs_;
  sim::Rng& rng_;  // the run's named stream: it continues across restarts
  std::unique_ptr<raft::RandomSource> random_;
  std::unique_ptr<wal::Wal> wal_;
  std::unique_ptr<wal::Snapshotter> snapshotter_;
  std::unique_ptr<raft::Raft> raft_;
  std::unique_ptr<StateMachine> state_;
  KvStateMachine* kv_ = nullptr;  // state_ when it is the KV store
  uint64_t last_snapshot_index_ = 0;
  sim::SocketId socket_ = 0;
  sim::Channel<Input> inbox_;
  ServerCounters counters_;
  wal::RepairReport repair_;
  // Client requests waiting for their entry to be applied (by request id) and for ReadIndex
  // answers (by context); applied_ wakes readers waiting for the applied index to catch up.
  std::map<uint64_t, sim::Promise<ApplyResult>> proposals_;
  std::map<std::string, sim::Promise<uint64_t>> reads_;
  // The round that reads arriving now join, the read loop's wake-up, and how many reads wait.
  sim::Promise<Status> next_read_round_;
  sim::Event read_wanted_;
  size_t reads_waiting_ = 0;
  sim::WaitQueue applied_;
  uint64_t next_request_id_ = 0;
  bool lessor_primary_ = false;
  // Hashes of the proposals received lately, for duplicate_proposal(): a window far longer than
  // any duplicate's delay (the network delays a duplicate by milliseconds).
  static constexpr size_t kRecentProposalsKept = 16'384;
  std::set<uint64_t> recent_proposals_;
  std::deque<uint64_t> recent_proposal_order_;  // leases the load fiber granted recently (at most 16)
  uint64_t next_read_ = 0;
  // Membership: peers' connections (for the strict reconfiguration checks) and the members
  // removed while this incarnation ran (their messages are dropped, as etcd's transport does).
  PeerActivity peer_activity_;
  std::set<uint64_t> removed_;
  MemberUrls member_urls_;
  bool stopping_ = false;
};

}  // namespace dst::node
