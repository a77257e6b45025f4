#include "node/server/server.h"

#include <algorithm>

#include "base/assert.h"
#include "base/hash.h"
#include "base/probes.h"
#include "node/raft/describe.h"
#include "node/server/api_server.h"
#include "node/server/wall_clock_env.h"
#include "node/wal/file_names.h"

namespace dst::node {

namespace {

// Raft's randomized election timeouts drawn from the node's own simulation sub-stream.
class SimRandom : public raft::RandomSource {
 public:
  explicit SimRandom(sim::Rng& rng) : rng_(rng) {}
  uint64_t uniform(uint64_t bound) override { return rng_.uniform_u64(bound); }

 private:
  sim::Rng& rng_;
};

// The snapshot a new cluster's member starts from: the membership at index 1, and no data (a new
// cluster) or the image of a restored one.
raftpb::Snapshot bootstrap_snapshot(const ServerOptions& options) {
  raftpb::Snapshot s;
  s.mutable_metadata()->set_index(1);
  s.mutable_metadata()->set_term(1);
  for (uint64_t v : options.initial_voters) s.mutable_metadata()->mutable_conf_state()->add_voters(v);
  if (options.restored_image) s.set_data(*options.restored_image);
  return s;
}

bool contains(const std::vector<uint64_t>& v, uint64_t x) {
  for (uint64_t y : v)
    if (y == x) return true;
  return false;
}

}  // namespace

ServerCounters& ServerCounters::operator+=(const ServerCounters& o) {
  readies += o.readies;
  wal_syncs += o.wal_syncs;
  messages_sent += o.messages_sent;
  messages_received += o.messages_received;
  entries_applied += o.entries_applied;
  snapshots += o.snapshots;
  snapshots_installed += o.snapshots_installed;
  proposals_dropped += o.proposals_dropped;
  reads_requested += o.reads_requested;
  reads_answered += o.reads_answered;
  return *this;
}

Server::Server(sim::Env& env, ServerOptions options, ServerHooks hooks)
    : env_(env),
      options_(std::move(options)),
      hooks_(hooks),
      lease_clock_bug_(options_.bugs.on(Bug::kLeaseExpiryOnFollowerClock) ? std::make_unique<WallClockAsMonotonic>(env)
                                                                           : nullptr),
      lessor_env_(lease_clock_bug_ ? *lease_clock_bug_ : env),
      fs_(env.files()),
      rng_(env.rng("raft-election/" + std::to_string(options_.id))),
      inbox_(env, options_.inbox_capacity),
      next_read_round_(env),
      read_wanted_(env),
      applied_(env),
      peer_activity_(3 * kLinkHeartbeatInterval),
      member_urls_(options_.raft_port) {}

Server::~Server() {
  if (hooks_.observer) hooks_.observer->stopped(*this);
}

void Server::run(sim::Env& env, ServerOptions options, ServerHooks hooks) {
  DST_ASSERT_MSG(env.in_own_fiber(), "Server::run must be called from a fiber of the member's process");
  // One Bugs value for every layer: a copy set apart from it would be overwritten here unseen.
  DST_ASSERT_MSG(options.raft.bugs.empty() || options.raft.bugs == options.bugs,
                 "set ServerOptions::bugs; raft.bugs is filled in from it");
  options.raft.id = options.id;
  options.raft.bugs = options.bugs;  // one value for every layer of the member
  Server server(env, std::move(options), hooks);
  Status started = server.start();
  if (!started.is_ok()) {
    // A node that cannot read its own data must not take part (etcd exits); a scenario sees it
    // as down.
    server.exit("start failed: " + started.to_string());
  }
  env.spawn("raft-recv", [&server] { server.receive_loop(); });
  env.spawn("raft-tick", [&server] { server.tick_loop(); });
  // Only KV members serve the membership API that needs to know which peers are connected.
  // (Measured: the extra datagrams also reshuffle the network's random draws of the Raft-only
  // worlds; vote-before-persist then went from caught at seed 43 to not within 200 seeds; that
  // fragility is issue #7's to fix by the fault mix, not by this traffic.)
  if (server.kv_ != nullptr) env.spawn("link-heartbeat", [&server] { server.link_loop(); });
  // The world sees it only once it has a Raft to inspect (start() blocks on the disk).
  if (hooks.observer) hooks.observer->started(server);
  if (server.kv_ != nullptr) {
    env.spawn("api", [&env, &server] { ApiServer::run(env, server); });
    env.spawn("read-index", [&server] { server.read_loop(); });
    env.spawn("lease-expiry", [&server] { server.lease_expiry_loop(); });
    env.spawn("watch-sync", [&server] { server.watch_sync_loop(); });
    env.spawn("watch-progress", [&server] { server.progress_notify_loop(); });
  }
  server.raft_loop();
}

Status Server::bootstrap() {
  walpb::WalMetadata meta;
  meta.set_node_id(options_.id);
  meta.set_cluster_id(1);
  if (contains(options_.initial_voters, options_.id)) {
    // Snapshot first, then the WAL and its marker: a crash in between leaves either no WAL (and we
    // bootstrap again) or a WAL without marker (finish_bootstrap completes it).
    Status s = snapshotter_->save(bootstrap_snapshot(options_));
    if (!s.is_ok()) return s;
  }
  auto created = wal::Wal::create(fs_, options_.data_dir, meta, options_.wal);
  if (!created.is_ok()) return created.status();
  wal_ = std::move(created).value();
  if (contains(options_.initial_voters, options_.id)) return finish_bootstrap();
  // A node joining an existing cluster: no membership until the leader's snapshot brings one.
  random_ = std::make_unique<SimRandom>(rng_);
  raft_ = std::make_unique<raft::Raft>(options_.raft, *random_, raft::InitialState{});
  return Status::ok();
}

Status Server::open_state_machine() {
  if (options_.state_machine == StateMachineKind::kHashChain) {
    state_ = std::make_unique<HashChain>();
    return Status::ok();
  }
  // etcd's minimum lease TTL: 1.5 election timeouts, rounded up to whole seconds, so a lease
  // outlives a leader election.
  const int64_t election_ns = options_.raft.election_tick * options_.tick;
  KvStateMachineOptions kv_options;
  kv_options.lease.min_ttl_seconds = std::max<int64_t>(1, (3 * election_ns / 2 + sim::seconds(1) - 1) / sim::seconds(1));
  // The store's and the backend's fault points (compaction, defragmentation) are ours by name.
  kv_options.fault_hook = [this](std::string_view name) {
    Result<FaultPoint> p = parse_fault_point(name);
    DST_ASSERT_MSG(p.is_ok(), p.status().to_string());
    fault_point(*p);
  };
  kv_options.bugs = options_.bugs;
  kv_options.clock = [this] { return local_now(); };
  auto kv = KvStateMachine::open(env_, options_.data_dir + "/backend.db", std::move(kv_options));
  if (!kv.is_ok()) return kv.status();
  kv_ = kv->get();
  kv_->set_applied_listener([this](uint64_t id, ApplyResult&& r) { on_applied(id, std::move(r)); });
  state_ = std::move(kv).value();
  return Status::ok();
}

Status Server::finish_bootstrap() {
  raftpb::Snapshot snap = bootstrap_snapshot(options_);
  Status recovered = state_->recover(snap.data(), 1);
  if (!recovered.is_ok()) return recovered;
  if (options_.restored_image) DST_PROBE(kServerRestoredFromSnapshot);
  Status s = wal_->save_snapshot_marker(1, 1);
  if (!s.is_ok()) return s;
  raftpb::HardState hs;
  hs.set_term(1);
  hs.set_commit(1);
  s = wal_->save(&hs, {}, true);
  if (!s.is_ok()) return s;
  last_snapshot_index_ = 1;
  random_ = std::make_unique<SimRandom>(rng_);
  raft::InitialState init{hs, snap, {}, 1};
  raft_ = std::make_unique<raft::Raft>(options_.raft, *random_, std::move(init));
  if (hooks_.invariants) hooks_.invariants->observe_restart(*raft_);
  return Status::ok();
}

bool Server::has_wal() const {
  for (const std::string& name : fs_.list(wal::wal_dir_prefix(options_.data_dir)))
    if (wal::parse_segment_name(name.substr(name.rfind('/') + 1))) return true;
  return false;
}

Status Server::start() {
  snapshotter_ = std::make_unique<wal::Snapshotter>(fs_, options_.data_dir);
  auto bound = env_.sockets().bind(options_.raft_port);
  if (!bound.is_ok()) return bound.status();
  socket_ = *bound;

  Status sm = open_state_machine();
  if (!sm.is_ok()) return sm;
  // No WAL segment yet: a fresh disk, or a crash in the middle of bootstrapping (a bootstrap
  // snapshot without a WAL). Bootstrapping again writes the same snapshot and a new WAL.
  if (!has_wal()) return bootstrap();

  auto newest = snapshotter_->load_newest();
  if (!newest.is_ok()) return newest.status();
  wal::OpenOptions open_options;
  walpb::WalMetadata meta;
  meta.set_node_id(options_.id);
  meta.set_cluster_id(1);
  open_options.expected_metadata = meta;
  if (newest->snapshot) {
    walpb::SnapshotMarker m;
    m.set_index(newest->snapshot->metadata().index());
    m.set_term(newest->snapshot->metadata().term());
    open_options.snapshot = m;
  }
  auto opened = wal::Wal::open(fs_, options_.data_dir, options_.wal, open_options);
  std::optional<raftpb::Snapshot> snapshot = newest->snapshot;
  if (!opened.is_ok() && newest->snapshot) {
    // The newest snapshot file may lack its WAL marker (a crash between the two saves): open at
    // the newest marker the log has and load that snapshot instead.
    DST_PROBE(kWalOpenedAtOlderSnapshot);
    open_options.snapshot.reset();
    opened = wal::Wal::open(fs_, options_.data_dir, options_.wal, open_options);
    if (opened.is_ok() && opened->snapshot.index() > 0) {
      auto older = snapshotter_->load(opened->snapshot.index(), opened->snapshot.term());
      if (!older.is_ok()) return older.status();
      snapshot = std::move(older).value();
    } else if (opened.is_ok()) {
      snapshot.reset();
    }
  }
  if (!opened.is_ok()) return opened.status();
  wal::OpenResult result = std::move(opened).value();
  wal_ = std::move(result.wal);
  repair_ = result.repair;

  if (!snapshot && result.hard_state.term() == 0 && result.entries.empty() &&
      contains(options_.initial_voters, options_.id)) {
    // A crash after creating the WAL but before its bootstrap marker: finish bootstrapping.
    return finish_bootstrap();
  }

  raftpb::Snapshot snap = snapshot.value_or(raftpb::Snapshot());
  Status restored = state_->recover(snap.data(), snap.metadata().index());
  if (!restored.is_ok()) return restored;
  member_urls_.load(snap.metadata());
  last_snapshot_index_ = snap.metadata().index();
  random_ = std::make_unique<SimRandom>(rng_);
  raft::InitialState init{result.hard_state, snap, std::move(result.entries), snap.metadata().index()};
  raft_ = std::make_unique<raft::Raft>(options_.raft, *random_, std::move(init));
  if (hooks_.invariants) hooks_.invariants->observe_restart(*raft_);
  return Status::ok();
}

void Server::observe() {
  if (hooks_.invariants) hooks_.invariants->observe(*raft_);
}

void Server::fault_point(FaultPoint p) {
  if (hooks_.faults) hooks_.faults->pass(p);  // what fires is the world's to carry out
}

void Server::exit(const std::string& why) {
  if (why == kErrRemovedFromCluster) DST_PROBE(kServerMemberRemovedItself);
  else DST_PROBE(kServerExitedOnError);
  if (hooks_.observer) hooks_.observer->exiting(why);
  env_.exit();
  DST_UNREACHABLE("a member that exited kept running");
}

void Server::step(Input input) {
  if (auto* m = std::get_if<raftpb::Message>(&input)) {
    ++counters_.messages_received;
    Status s = raft_->step(*m);
    (void)s;  // only forwarded proposals can be refused; their proposer retries
  } else if (std::holds_alternative<Tick>(input)) {
    raft_->tick();
  } else if (auto* p = std::get_if<Proposal>(&input)) {
    Status s = raft_->propose(std::move(p->data));
    if (!s.is_ok()) ++counters_.proposals_dropped;
  } else if (auto* c = std::get_if<ConfChangeProposal>(&input)) {
    // Refused without a leader, or dropped by the leader while another change is pending: like
    // etcd, the proposer is not told and its request times out.
    Status s = raft_->propose_conf_change(c->change);
    if (!s.is_ok()) ++counters_.proposals_dropped;
  } else if (auto* t = std::get_if<LeaderTransfer>(&input)) {
    Status s = raft_->transfer_leader(t->to);
    (void)s;  // no longer the leader, or not a voter any more: the mover's wait times out
  } else {
    std::string& context = std::get<ReadRequest>(input).context;
    if (hooks_.invariants) hooks_.invariants->read_requested(context);
    ++counters_.reads_requested;
    Status s = raft_->read_index(std::move(context));
    (void)s;  // no leader: the reader simply asks again later
  }
  observe();
}

void Server::raft_loop() {
  for (;;) {
    auto [r, input] = inbox_.recv();
    if (r != sim::WaitResult::kOk) return;  // the process is being killed
    step(std::move(*input));
    // Batch whatever else is already waiting into the same Ready (one fsync for many inputs).
    for (size_t i = 0; i < options_.inbox_capacity; ++i) {
      auto more = inbox_.try_recv();
      if (!more) break;
      step(std::move(*more));
    }
    // Bounded: each Ready is handed out once; new ones appear only from advance()'s commits.
    for (int i = 0; i < 64 && raft_->has_ready(); ++i) handle_ready();
  }
}

void Server::handle_ready() {
  raft::Ready rd = raft_->ready();
  ++counters_.readies;

  // 1. Persist. The snapshot file before its WAL marker (etcd's order); entries and hard state
  //    with one fsync when Raft says they must be durable before the messages go out.
  fault_point(FaultPoint::kBeforeWalSave);
  if (rd.snapshot) {
    fault_point(FaultPoint::kBeforeSnapshotSave);
    Status s = snapshotter_->save(*rd.snapshot);
    // A snapshot in a Ready always replaced the whole log (Raft restore), so its marker resets it.
    if (s.is_ok())
      s = wal_->save_snapshot_marker(rd.snapshot->metadata().index(), rd.snapshot->metadata().term(), true);
    if (!s.is_ok()) exit("saving a received snapshot failed: " + s.to_string());
    fault_point(FaultPoint::kAfterSnapshotSave);
  }
  if (rd.hard_state || !rd.entries.empty()) {
    Status s = wal_->save(rd.hard_state ? &*rd.hard_state : nullptr, rd.entries, rd.must_sync);
    if (!s.is_ok()) exit("WAL save failed: " + s.to_string());  // etcd panics here too
    if (rd.must_sync) ++counters_.wal_syncs;
  }
  fault_point(FaultPoint::kAfterWalSave);

  // 2. Send.
  fault_point(FaultPoint::kBeforeSend);
  for (const raftpb::Message& m : rd.messages) {
    const std::optional<sim::HostId> peer = peer_host(m.to());
    if (!peer) continue;  // a member we have no address for
    Status s = env_.sockets().send_to(socket_, sim::Address{*peer, options_.raft_port}, m.SerializeAsString());
    if (s.is_ok()) ++counters_.messages_sent;
  }
  if (hooks_.invariants) hooks_.invariants->observe_sent(options_.id, rd.messages);
  const bool announced_vote = std::any_of(rd.messages.begin(), rd.messages.end(), raft::announces_vote);
  if (announced_vote) fault_point(FaultPoint::kAfterVote);

  // 3. Apply.
  fault_point(FaultPoint::kBeforeApply);
  if (rd.snapshot) {
    Status s = state_->restore(rd.snapshot->data(), rd.snapshot->metadata().index());
    if (!s.is_ok()) exit("installing the leader's snapshot failed: " + s.to_string());
    last_snapshot_index_ = rd.snapshot->metadata().index();
    member_urls_.load(rd.snapshot->metadata());
    ++counters_.snapshots_installed;
    DST_PROBE(kServerSnapshotInstalled);
  }
  for (const raftpb::Entry& e : rd.committed_entries) {
    if (e.type() == raftpb::ENTRY_CONF_CHANGE) apply_conf_change(e);
    Status s = state_->apply(e);
    if (!s.is_ok()) exit("applying entry " + std::to_string(e.index()) + " failed: " + s.to_string());
    ++counters_.entries_applied;
  }
  fault_point(FaultPoint::kAfterApply);

  counters_.reads_answered += rd.read_states.size();
  for (const raft::ReadState& rs : rd.read_states) {
    auto it = reads_.find(rs.context);
    if (it != reads_.end() && !it->second.fulfilled()) it->second.set(rs.index);
  }
  if (!rd.committed_entries.empty() || rd.snapshot) applied_.notify_all();
  if (hooks_.invariants) hooks_.invariants->observe_ready(*raft_, rd);
  if (rd.soft_state) track_leadership();
  raft_->advance(rd);
  observe();
  maybe_snapshot();
}

void Server::maybe_snapshot() {
  uint64_t applied = raft_->log().applied();
  if (applied < last_snapshot_index_ + options_.snapshot_every) return;
  // Entries are applied before advance(), so the state machine is at least at `applied`; it is
  // ahead while Raft re-delivers entries a restarted backend already holds. Snapshot only once they
  // agree, so the image is exactly the state at the snapshot's index.
  DST_ASSERT_GE(state_->applied_index(), applied);
  if (state_->applied_index() != applied) return;
  fault_point(FaultPoint::kBeforeSnapshotSave);
  auto image = state_->snapshot();
  if (!image.is_ok()) exit("taking a snapshot failed: " + image.status().to_string());
  raftpb::Snapshot snap = raft_->make_snapshot(std::move(image).value());
  member_urls_.save(snap.mutable_metadata());
  Status s = snapshotter_->save(snap);
  if (s.is_ok()) s = wal_->save_snapshot_marker(snap.metadata().index(), snap.metadata().term());
  if (!s.is_ok()) exit("saving a snapshot failed: " + s.to_string());
  fault_point(FaultPoint::kAfterSnapshotSave);
  raft_->compact(snap);
  last_snapshot_index_ = snap.metadata().index();
  ++counters_.snapshots;
  DST_PROBE(kServerSnapshotTaken);
  // Old segments and snapshot files are garbage now; removal promises nothing, so no sync.
  Status released = wal_->release_to(snap.metadata().index());
  if (!released.is_ok()) exit("releasing WAL segments failed: " + released.to_string());
  Status purged = snapshotter_->remove_older();
  (void)purged;  // a leftover old snapshot is harmless
}

void Server::receive_loop() {
  for (;;) {
    auto d = env_.sockets().recv_from(socket_);
    if (!d.is_ok()) return;  // cancelled: the process is going away
    raftpb::Message m;
    if (!m.ParseFromString(d->payload) || m.to() != options_.id) continue;  // not for us
    if (removed_.count(m.from())) {
      // etcd's transport refuses a removed member's streams and tells it so (HTTP 410 Gone);
      // without that, a member that missed its own removal would keep campaigning.
      send_link_message(m.from(), kLinkRemoved);
      continue;
    }
    if (is_link_message(m)) {
      if (m.context() == kLinkRemoved) {
        if (hooks_.observer) hooks_.observer->removed();
        exit(kErrRemovedFromCluster);
      }
      peer_activity_.heard(m.from(), env_.now());
      continue;
    }
    peer_activity_.heard(m.from(), env_.now());
    if (m.type() == raftpb::MSG_PROP && duplicate_proposal(d->payload)) continue;
    if (!inbox_.try_send(std::move(m))) continue;  // overloaded: drop, Raft retransmits
  }
}

bool Server::duplicate_proposal(const std::string& payload) {
  // etcd's peers talk over TCP (rafthttp), which never delivers a message twice; our peer
  // datagrams may (the network's duplication fault). Raft's own messages tolerate that, but a
  // forwarded proposal delivered twice would be appended, committed and applied twice. So a
  // member drops a byte-identical copy of a proposal it received recently (a client's retry is
  // a new request with a new id, hence never identical).
  const uint64_t h = hash_bytes(payload, 0x70726f70);
  if (recent_proposals_.count(h) != 0) return true;
  recent_proposals_.insert(h);
  recent_proposal_order_.push_back(h);
  if (recent_proposal_order_.size() > kRecentProposalsKept) {
    recent_proposals_.erase(recent_proposal_order_.front());
    recent_proposal_order_.pop_front();
  }
  return false;
}

bool Server::is_link_message(const raftpb::Message& m) {
  // Raft's own heartbeats always carry a term; a joining member at term 0 never sends one.
  return m.type() == raftpb::MSG_HEARTBEAT && m.term() == 0 && !m.context().empty();
}

void Server::send_link_message(uint64_t to, const char* kind) {
  const std::optional<sim::HostId> host = peer_host(to);
  if (!host) return;
  raftpb::Message m;
  m.set_type(raftpb::MSG_HEARTBEAT);
  m.set_from(options_.id);
  m.set_to(to);
  m.set_context(kind);
  Status s = env_.sockets().send_to(socket_, sim::Address{*host, options_.raft_port}, m.SerializeAsString());
  (void)s;  // a lost link message is like a lost TCP keep-alive: the next one follows
}

void Server::link_loop() {
  for (;;) {
    if (env_.sleep(kLinkHeartbeatInterval) != sim::WaitResult::kOk) return;
    const raftpb::ConfState cs = raft_->conf_state();
    for (uint64_t id : cs.voters())
      if (id != options_.id) send_link_message(id, kLinkHeartbeat);
    for (uint64_t id : cs.learners())
      if (id != options_.id) send_link_message(id, kLinkHeartbeat);
  }
}

void Server::tick_loop() {
  for (;;) {
    if (env_.sleep(options_.tick) != sim::WaitResult::kOk) return;
    if (inbox_.send(Tick{}) != sim::WaitResult::kOk) return;
  }
}

bool Server::propose(std::string data) {
  return inbox_.send(Proposal{std::move(data)}) == sim::WaitResult::kOk;
}

bool Server::request_read(std::string context) {
  return inbox_.send(ReadRequest{std::move(context)}) == sim::WaitResult::kOk;
}

}  // namespace dst::node
