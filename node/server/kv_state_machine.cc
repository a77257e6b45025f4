#include "node/server/kv_state_machine.h"

#include "base/hash.h"
#include "base/probes.h"
#include "node/server/quota.h"

namespace dst::node {

namespace {
const std::vector<std::string> kSnapshotBuckets = {"key", "meta", "lease", "alarm"};
// Retired stores kept alive: a read blocked in the backend across this many snapshot installs
// (each takes at least one fsync) is not a realistic schedule.
constexpr size_t kRetiredStoresKept = 8;
}  // namespace

Result<std::unique_ptr<KvStateMachine>> KvStateMachine::open(sim::Env& env, std::string path,
                                                             KvStateMachineOptions options) {
  std::unique_ptr<KvStateMachine> sm(new KvStateMachine());
  sm->clock_ = options.clock ? std::move(options.clock) : [] { return int64_t{0}; };
  sm->fault_hook_ = std::move(options.fault_hook);
  // One Bugs value for every layer: a copy set apart from it would be overwritten here unseen.
  DST_ASSERT_MSG((options.watch.bugs.empty() || options.watch.bugs == options.bugs) &&
                     (options.store.bugs.empty() || options.store.bugs == options.bugs),
                 "set KvStateMachineOptions::bugs; the watch and store options get it from there");
  sm->store_options_ = options.store;
  sm->store_options_.bugs = options.watch.bugs = options.bugs;
  const std::string apart_path = path + ".applied";
  auto be = backend::Backend::open(env, std::move(path), std::move(options.backend));
  if (!be.is_ok()) return be.status();
  sm->backend_ = std::move(be).value();
  if (options.bugs.on(Bug::kAppliedIndexNotAtomic)) {
    sm->apart_ = std::make_unique<AppliedIndexApart>(env.files(), apart_path);
    sm->apart_applied_ = sm->apart_->load().value_or(0);
  }
  sm->backend_->set_fault_hook(sm->fault_hook_);
  auto store = mvcc::KvStore::open(*sm->backend_, sm->fault_hook_, sm->store_options_);
  if (!store.is_ok()) return store.status();
  sm->store_ = std::move(store).value();
  sm->visible_applied_ = sm->applied_through();
  Status alarms = sm->alarms_.load(*sm->backend_);
  if (!alarms.is_ok()) return alarms;
  auto lessor = lease::Lessor::open(*sm->backend_, *sm->store_, options.lease);
  if (!lessor.is_ok()) return lessor.status();
  sm->lessor_ = std::move(lessor).value();
  sm->watch_ = std::make_unique<watch::WatchableStore>(*sm->store_, options.watch);
  sm->observe_store();
  return sm;
}

void KvStateMachine::observe_store() {
  store_->set_observer([this](const std::vector<mvccpb::Event>& events, int64_t rev) {
    lessor_->on_events(events);
    watch_->notify(events, rev);
  });
}

ApplyResult KvStateMachine::execute(const etcdserverpb::InternalRequest& req) {
  ApplyResult r;
  auto fail = [&](const Status& s) {
    r.error = s;
    ++requests_refused_;
  };
  // etcd's applierV3Capped: under NOSPACE, nothing that can grow the store is applied (on every
  // member alike: the alarm itself came through the log).
  if (alarms_.raised(etcdserverpb::NOSPACE) && grows_store(req)) {
    DST_PROBE(kServerRefusedUnderNospace);
    fail(Status(StatusCode::kResourceExhausted, kErrNoSpace));
    r.revision = store_->rev();
    return r;
  }
  const LeaseExists leases = [this](int64_t id) { return lessor_->exists(id); };
  switch (req.request_case()) {
    case etcdserverpb::InternalRequest::kPut: {
      Status v = validate_put(req.put());
      if (!v.is_ok()) { fail(v); break; }
      auto p = apply_put(*store_, req.put(), leases);
      if (!p.is_ok()) { fail(p.status()); break; }
      *r.response.mutable_response_put() = std::move(p).value();
      break;
    }
    case etcdserverpb::InternalRequest::kDeleteRange: {
      Status v = validate_delete_range(req.delete_range());
      if (!v.is_ok()) { fail(v); break; }
      auto d = apply_delete_range(*store_, req.delete_range());
      if (!d.is_ok()) { fail(d.status()); break; }
      *r.response.mutable_response_delete_range() = std::move(d).value();
      break;
    }
    case etcdserverpb::InternalRequest::kTxn: {
      Status v = validate_txn(req.txn(), limits_);
      if (!v.is_ok()) { fail(v); break; }
      auto t = apply_txn(*store_, req.txn(), leases);
      if (!t.is_ok()) { fail(t.status()); break; }
      *r.response.mutable_response_txn() = std::move(t).value();
      break;
    }
    case etcdserverpb::InternalRequest::kRange: {
      auto g = apply_range(*store_, req.range());
      if (!g.is_ok()) { fail(g.status()); break; }
      *r.response.mutable_response_range() = std::move(g).value();
      break;
    }
    case etcdserverpb::InternalRequest::kCompaction: {
      auto c = apply_compaction(*store_, req.compaction());
      if (!c.is_ok()) { fail(c.status()); break; }
      break;
    }
    case etcdserverpb::InternalRequest::kAlarm: return execute_alarm(req.alarm());
    case etcdserverpb::InternalRequest::kLeaseGrant:
    case etcdserverpb::InternalRequest::kLeaseRevoke: {
      Status s = execute_lease(req, r);
      if (!s.is_ok()) fail(s);
      break;
    }
    default: fail(Status(StatusCode::kInvalidArgument, "etcdserver: empty internal request"));
  }
  r.revision = store_->rev();
  return r;
}

Status KvStateMachine::execute_lease(const etcdserverpb::InternalRequest& req, ApplyResult& r) {
  if (req.has_lease_grant()) {
    // The proposer chose the id; the leader's lessor starts the lease's clock (others ignore it).
    auto g = lessor_->grant(req.lease_grant().id(), req.lease_grant().ttl(), clock_());
    if (!g.is_ok()) return g.status();
    r.lease_ttl = *g;
    ++lease_grants_applied_;
    return Status::ok();
  }
  Status s = lessor_->revoke(req.lease_revoke().id());
  if (s.is_ok()) ++lease_revokes_applied_;
  return s;
}

ApplyResult KvStateMachine::execute_alarm(const etcdserverpb::AlarmRequest& req) {
  ApplyResult r;
  Result<std::vector<etcdserverpb::AlarmMember>> changed = std::vector<etcdserverpb::AlarmMember>{};
  switch (req.action()) {
    case etcdserverpb::AlarmRequest::ACTIVATE: changed = alarms_.activate(*backend_, req.memberid(), req.alarm()); break;
    case etcdserverpb::AlarmRequest::DEACTIVATE:
      changed = alarms_.deactivate(*backend_, req.memberid(), req.alarm());
      break;
    default: {
      // GET goes through Raft as in etcd 3.4 (each `alarm list` takes a log index): the alarms of
      // the asked type, or every alarm for NONE.
      changed = alarms_.list();
      if (req.alarm() != etcdserverpb::NONE)
        std::erase_if(*changed, [&](const etcdserverpb::AlarmMember& m) { return m.alarm() != req.alarm(); });
      break;
    }
  }
  if (!changed.is_ok()) {
    r.error = changed.status();  // a disk error: apply() sees the backend failure and stops the node
  } else {
    for (auto& m : *changed) *r.alarm.add_alarms() = std::move(m);
  }
  r.revision = store_->rev();
  return r;
}

Status KvStateMachine::apply(const raftpb::Entry& entry) {
  if (entry.index() <= applied_through()) return Status::ok();  // already in the store
  struct Applying {  // odd while the entry is half applied, whichever way this returns
    uint64_t& seq;
    explicit Applying(uint64_t& s) : seq(s) { ++seq; }
    ~Applying() { ++seq; }
  } applying(apply_sequence_);
  if (entry.type() == raftpb::ENTRY_NORMAL && !entry.data().empty()) {
    etcdserverpb::InternalRequest req;
    DST_ASSERT_MSG(req.ParseFromString(entry.data()), "unparsable request in committed entry " +
                                                          std::to_string(entry.index()));
    ApplyResult r = execute(req);
    // A disk error inside the store is not a request error: the node must stop.
    if (!backend_->failure().is_ok()) return backend_->failure();
    ++requests_applied_;
    if (applied_listener_) applied_listener_(req.id(), std::move(r));
  }
  Status s = backend_->set_applied(entry.index());
  if (s.is_ok()) s = applied_moved(entry.index());
  if (!s.is_ok()) return s;
  visible_applied_ = entry.index();  // the store already shows it (reads see the open batch)
  return backend_->maybe_commit();
}

Status KvStateMachine::applied_moved(uint64_t index) {
  return apart_ ? apart_->save(index) : Status::ok();
}

Result<std::string> KvStateMachine::snapshot() {
  etcdserverpb::KvSnapshot snap;
  snap.set_applied_index(applied_through());
  for (const std::string& name : kSnapshotBuckets) {
    auto* bucket = snap.add_buckets();
    bucket->set_name(name);
    Status s = backend_->range(name, "", "", 0, [&](std::string_view k, std::string_view v) {
      if (name == backend::kMetaBucket && k == backend::kAppliedIndexKey) return true;  // set on restore
      auto* row = bucket->add_rows();
      row->set_key(std::string(k));
      row->set_value(std::string(v));
      return true;
    });
    if (!s.is_ok()) return s;
  }
  return snap.SerializeAsString();
}

Status KvStateMachine::restore(const std::string& image, uint64_t index) {
  // Our durable state is already at or past the snapshot (a restarted node whose backend committed
  // more than its Raft hard state remembers): it is the committed log's prefix, so keep it; the
  // entries after it are applied as they are re-delivered.
  if (index <= applied_through()) return Status::ok();
  etcdserverpb::KvSnapshot snap;
  if (!image.empty() && !snap.ParseFromString(image))
    return Status(StatusCode::kCorruption, "unparsable KV snapshot at index " + std::to_string(index));
  for (const std::string& name : kSnapshotBuckets) {
    Status s = backend_->del_range(name, "", "");
    if (!s.is_ok()) return s;
  }
  for (const auto& bucket : snap.buckets()) {
    for (const auto& row : bucket.rows()) {
      Status s = backend_->put(bucket.name(), row.key(), row.value());
      if (!s.is_ok()) return s;
    }
  }
  Status s = backend_->set_applied(index);
  if (s.is_ok()) s = applied_moved(index);
  if (!s.is_ok()) return s;
  s = backend_->commit();
  if (!s.is_ok()) return s;
  auto store = mvcc::KvStore::open(*backend_, fault_hook_, store_options_);
  if (!store.is_ok()) return store.status();
  store_->retire();
  retired_stores_.push_back(std::move(store_));
  if (retired_stores_.size() > kRetiredStoresKept) retired_stores_.erase(retired_stores_.begin());
  store_ = std::move(store).value();
  ++store_generation_;
  Status s2 = alarms_.load(*backend_);
  if (!s2.is_ok()) return s2;
  s2 = lessor_->reload(*backend_, *store_);
  if (!s2.is_ok()) return s2;
  watch_->on_restore(*store_);
  observe_store();
  visible_applied_ = index;
  return Status::ok();
}

Result<uint64_t> KvStateMachine::state_hash() {
  // Reading may block in the backend while a snapshot replaces the store: then read again.
  for (int attempt = 0;; ++attempt) {
    const uint64_t generation = store_generation_;
    auto h = hash_once();
    if (generation == store_generation_ || attempt >= 3) return h;
  }
}

Result<uint64_t> KvStateMachine::hash_once() {
  auto h = store_->hash_at(store_->rev());
  if (!h.is_ok()) return h.status();
  // Leases and alarms are replicated state too: members that applied the same entries agree on
  // them as on the keys.
  auto replicated = backend_->hash({"lease", "alarm"});
  if (!replicated.is_ok()) return replicated.status();
  return hash_combine(hash_combine(*h, static_cast<uint64_t>(store_->rev())), *replicated);
}

}  // namespace dst::node
