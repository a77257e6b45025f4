#include "world/raft_load.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/assert.h"
#include "proto/etcd_internal.pb.h"

namespace dst::world {
namespace {

// Leases granted by this incarnation's load, most recent last (at most 16).
constexpr size_t kLeasesKept = 16;

class RaftLoad {
 public:
  RaftLoad(sim::Simulator& sim, node::Server& server, const RaftLoadOptions& options)
      : sim_(sim), server_(server), options_(options) {}

  void propose_loop() {
    uint64_t seq = 0;
    for (;;) {
      if (sim_.sleep(options_.propose_every) != sim::WaitResult::kOk) return;
      if (server_.raft().role() != raft::Role::kLeader) continue;
      for (size_t i = 0; i < options_.propose_batch; ++i) {
        if (!server_.propose(next_request(seq++))) return;
      }
    }
  }

  void read_loop() {
    uint64_t seq = 0;
    for (;;) {
      if (sim_.sleep(options_.read_every) != sim::WaitResult::kOk) return;
      // Unique across members and incarnations: member, virtual time, sequence.
      std::string context =
          "r" + std::to_string(server_.id()) + "." + std::to_string(sim_.now()) + "." + std::to_string(seq++);
      if (!server_.request_read(std::move(context))) return;
    }
  }

 private:
  std::string next_request(uint64_t seq);
  void add_lease_request(etcdserverpb::InternalRequest& req, const std::string& key, const std::string& value,
                         sim::Rng& rng, uint64_t kind);

  sim::Simulator& sim_;
  node::Server& server_;
  const RaftLoadOptions options_;
  std::vector<int64_t> leases_;
};

std::string RaftLoad::next_request(uint64_t seq) {
  const uint64_t id = server_.id();
  std::string tag = "n" + std::to_string(id) + "." + std::to_string(sim_.now()) + "." + std::to_string(seq);
  if (server_.kv() == nullptr) {
    if (tag.size() < options_.propose_bytes) tag.resize(options_.propose_bytes, '.');
    return tag;
  }
  sim::Rng& rng = sim_.rng("kv-load/" + std::to_string(id));
  etcdserverpb::InternalRequest req;
  req.set_id((id << 48) ^ (sim_.now() << 8) ^ seq);
  std::string key = "k" + std::to_string(rng.uniform_u64(64));
  std::string value = tag;
  if (value.size() < options_.propose_bytes) value.resize(options_.propose_bytes, '.');
  const uint64_t kind = rng.uniform_u64(100);
  if (kind < 50) {
    req.mutable_put()->set_key(key);
    req.mutable_put()->set_value(value);
    req.mutable_put()->set_prev_kv(rng.bernoulli(0.3));
  } else if (kind < 65) {
    add_lease_request(req, key, value, rng, kind);
  } else if (kind < 75) {
    req.mutable_delete_range()->set_key(key);
    if (rng.bernoulli(0.2)) req.mutable_delete_range()->set_range_end(key + "\xff");
  } else if (kind < 97) {
    auto* txn = req.mutable_txn();
    auto* c = txn->add_compare();
    c->set_key(key);
    c->set_target(etcdserverpb::Compare::VERSION);
    c->set_result(etcdserverpb::Compare::LESS);
    c->set_version(static_cast<int64_t>(rng.uniform_u64(5)));
    txn->add_success()->mutable_request_put()->set_key(key);
    txn->mutable_success(0)->mutable_request_put()->set_value(value);
    txn->add_failure()->mutable_request_delete_range()->set_key(key);
  } else {
    const int64_t rev = server_.kv()->store().rev() - static_cast<int64_t>(rng.uniform_u64(20));
    req.mutable_compaction()->set_revision(std::max<int64_t>(rev, 1));
  }
  return req.SerializeAsString();
}

// kind in [50, 65): a put under a recent lease, a grant, or a revoke.
void RaftLoad::add_lease_request(etcdserverpb::InternalRequest& req, const std::string& key,
                                 const std::string& value, sim::Rng& rng, uint64_t kind) {
  DST_ASSERT(kind >= 50 && kind < 65);
  if (kind < 58) {
    // A put attached to a recently granted lease (which may have expired or been revoked since:
    // then it fails with "requested lease not found" on every member alike).
    req.mutable_put()->set_key("lease/" + key);
    req.mutable_put()->set_value(value);
    if (!leases_.empty()) req.mutable_put()->set_lease(leases_[rng.uniform_u64(leases_.size())]);
  } else if (kind < 63) {
    // Short leases, so the leader's expiry (and its revokes through the log) runs under the faults.
    const int64_t lease = static_cast<int64_t>(server_.next_id() & ((uint64_t{1} << 63) - 1));
    req.mutable_lease_grant()->set_id(lease);
    req.mutable_lease_grant()->set_ttl(static_cast<int64_t>(2 + rng.uniform_u64(5)));
    if (leases_.size() >= kLeasesKept) leases_.erase(leases_.begin());
    leases_.push_back(lease);
  } else if (!leases_.empty()) {
    req.mutable_lease_revoke()->set_id(leases_[rng.uniform_u64(leases_.size())]);
  } else {
    // No lease to revoke yet: a delete, like kinds 65..74.
    req.mutable_delete_range()->set_key(key);
    if (rng.bernoulli(0.2)) req.mutable_delete_range()->set_range_end(key + "\xff");
  }
}

}  // namespace

void start_raft_load(sim::Simulator& sim, node::Server& server, const RaftLoadOptions& options) {
  DST_ASSERT_MSG(sim.in_fiber(), "start_raft_load runs in the member's process");
  if (options.propose_every <= 0 && options.read_every <= 0) return;
  // Owned by the process's fibers together; freed when the last of them ends.
  auto load = std::make_shared<RaftLoad>(sim, server, options);
  const sim::ProcessId self = sim.current_process();
  if (options.propose_every > 0) sim.spawn(self, "raft-load", [load] { load->propose_loop(); });
  if (options.read_every > 0) sim.spawn(self, "raft-reads", [load] { load->read_loop(); });
}

}  // namespace dst::world
