// The etcd-style state machine: committed entries carry InternalRequests (proto/etcd_internal.proto)
// that are applied to the MVCC store, whose backend commits the applied index in the same batch
// as the data it describes. After a crash the backend holds exactly the effects of entries up to
// its committed applied index; Raft re-delivers the rest and they are applied once (entries at or
// below the applied index are skipped).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "base/bugs.h"
#include "node/backend/backend.h"
#include "node/lease/lessor.h"
#include "node/mvcc/kv_store.h"
#include "node/server/alarms.h"
#include "node/server/applied_index_apart.h"
#include "node/server/kv_apply.h"
#include "node/server/state_machine.h"
#include "node/watch/watchable_store.h"
#include "proto/etcd_internal.pb.h"

namespace dst::node {

// The outcome of one applied request, kept for the member that proposed it.
struct ApplyResult {
  Status error;  // an etcd request error (the request had no effect), or ok
  etcdserverpb::ResponseOp response;
  etcdserverpb::AlarmResponse alarm;  // for AlarmRequests
  int64_t lease_ttl = 0;              // for LeaseGrant: the TTL granted
  int64_t revision = 0;
};

struct KvStateMachineOptions {
  backend::BackendOptions backend;
  lease::LessorOptions lease;
  // Their `bugs` are set from `bugs` below.
  watch::WatchOptions watch;
  mvcc::StoreOptions store;
  // The run's bugs (base/bugs.h), passed down unchanged to the watch store and every MVCC store;
  // the state machine itself asks for kAppliedIndexNotAtomic (applied_index_apart.h).
  Bugs bugs;
  // The clock the lessor decides expiry on (ns); only the leader's lessor uses it.
  std::function<int64_t()> clock;
  // Handed to the backend and the store (every store this opens, also on restore) for their
  // fault points (compaction, defragmentation); may be empty; it may never return.
  backend::FaultHook fault_hook;
};

class KvStateMachine : public StateMachine {
 public:
  // Opens the backend at `path` on the process's files (in a fiber of the process: `env`).
  static Result<std::unique_ptr<KvStateMachine>> open(sim::Env& env, std::string path, KvStateMachineOptions options = {});

  Status apply(const raftpb::Entry& entry) override;
  // The index whose effects reads of store() see: behind the backend's own while a snapshot is
  // being installed (its rows are written and committed before the new store replaces the old),
  // so a ReadIndex barrier never lets a read through to the old store in that window.
  uint64_t applied_index() const override { return visible_applied_; }
  Result<std::string> snapshot() override;
  Status restore(const std::string& image, uint64_t index) override;
  // KV state at the current revision, the revision itself, and the leases and alarms.
  Result<uint64_t> state_hash() override;

  mvcc::KvStore& store() { return *store_; }
  // Bumped whenever a snapshot replaces the store: a reader that blocked in the backend compares
  // it before and after and retries on the new store when it changed.
  uint64_t store_generation() const { return store_generation_; }
  // Bumped as applying an entry starts and again as it ends (odd: an entry is half applied, its
  // effects partly in the open batch): a reader that needs one entry's boundary (a snapshot)
  // reads it before and after.
  uint64_t apply_sequence() const { return apply_sequence_; }
  watch::WatchableStore& watches() { return *watch_; }
  lease::Lessor& lessor() { return *lessor_; }
  backend::Backend& backend() { return *backend_; }
  const AlarmStore& alarms() const { return alarms_; }
  // Called for every applied request, in log order, on every member (the member that proposed it
  // answers its client from here; the result is the listener's to keep).
  using AppliedListener = std::function<void(uint64_t id, ApplyResult&&)>;
  void set_applied_listener(AppliedListener listener) { applied_listener_ = std::move(listener); }
  uint64_t requests_applied() const { return requests_applied_; }
  uint64_t lease_grants_applied() const { return lease_grants_applied_; }
  uint64_t lease_revokes_applied() const { return lease_revokes_applied_; }
  uint64_t requests_refused() const { return requests_refused_; }

 private:
  KvStateMachine() = default;
  ApplyResult execute(const etcdserverpb::InternalRequest& req);
  ApplyResult execute_alarm(const etcdserverpb::AlarmRequest& req);
  // LeaseGrant and LeaseRevoke; the error (the request had no effect), or ok.
  Status execute_lease(const etcdserverpb::InternalRequest& req, ApplyResult& r);
  // Every committed write reaches the lessor (key attachments) and then the watchers.
  void observe_store();
  Result<uint64_t> hash_once();
  // Entries at or below it are already applied: the backend's index, or with the
  // applied-index-not-atomic bug the one kept apart when that is ahead.
  uint64_t applied_through() const { return std::max(backend_->applied_index(), apart_applied_); }
  // The backend's index has moved to `index`: the bug's file follows at once.
  Status applied_moved(uint64_t index);

  std::unique_ptr<backend::Backend> backend_;
  std::unique_ptr<mvcc::KvStore> store_;
  // Stores replaced by snapshots, retired (reads still blocked in them fail cleanly) and kept so
  // such reads never touch freed memory; the oldest is freed past kRetiredStoresKept.
  std::vector<std::unique_ptr<mvcc::KvStore>> retired_stores_;
  uint64_t store_generation_ = 0;
  uint64_t apply_sequence_ = 0;
  uint64_t visible_applied_ = 0;
  std::unique_ptr<AppliedIndexApart> apart_;  // the applied-index-not-atomic bug only
  uint64_t apart_applied_ = 0;                // what it held at open
  // Declared after the store: destroyed before it (they refer to it).
  std::unique_ptr<lease::Lessor> lessor_;
  std::unique_ptr<watch::WatchableStore> watch_;
  std::function<int64_t()> clock_;
  backend::FaultHook fault_hook_;
  mvcc::StoreOptions store_options_;  // for every store this opens, also on restore
  KvLimits limits_{kMaxTxnOpsCeiling};  // the API checked the member's own --max-txn-ops
  AlarmStore alarms_;
  AppliedListener applied_listener_;
  uint64_t requests_applied_ = 0;
  uint64_t requests_refused_ = 0;
  uint64_t lease_grants_applied_ = 0;
  uint64_t lease_revokes_applied_ = 0;
};

}  // namespace dst::node
