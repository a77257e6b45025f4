// An etcd KV client as a workload uses it (clientv3's role): each request goes to one member over a
// kept-open connection, with a per-request timeout, and its outcome is recorded honestly:
//   ok       the member answered without an error;
//   failed   the request certainly had no effect: the member refused it before proposing
//            (validation, request too large, quota, too many requests), it was applied as a no-op
//            (compacted revision, unknown lease, NOSPACE alarm), or it is a read (reads never
//            change anything, so a failed read carries no information);
//   unknown  a write whose answer did not come (timeout, broken connection) or came as
//            Unavailable ("request timed out", "no leader"): it may still be applied later.
// Retries happen only where they are safe: when the connection could not be opened, nothing was
// sent, so the next member is tried. How a client picks members (clientv3's balancer): pinned to
// one and never switching, failing over to the next when its member is gone, or round robin over
// every member, a request each. After a request found no member to talk to, the next waits a
// backoff first (clientv3's retry backoff), doubling per failure up to a bound, so a client whose
// members are down does not fill the history with refused no-ops.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "rpc/etcd_connection.h"
#include "history/recorder.h"
#include "sim/simulator.h"

namespace dst::client {

enum class Balance {
  kPinned,      // always the first member (`pinned_member`)
  kFailover,    // the first member until it cannot be reached, then the next
  kRoundRobin,  // the next member for every request
};

struct KvClientOptions {
  uint32_t id = 0;                     // the client id recorded with every operation
  std::vector<sim::Address> members;  // every member's client address, in member order (1-based ids)
  // Pinned: always member `pinned_member` (0-based); else `balance` decides, from that member on.
  bool pinned = false;
  size_t pinned_member = 0;
  Balance balance = Balance::kFailover;
  sim::DurationNs timeout = sim::seconds(5);
  // The wait before a request after one found no member (doubling up to backoff_max; 0: none).
  sim::DurationNs backoff_base = 0;
  sim::DurationNs backoff_max = 0;
  // The application's stall (a GC or VM pause; faults::WorkloadTarget::stall_client): while the
  // time is before *stalled_until it sends nothing, and a response that arrives meanwhile (before
  // the request's timeout; after it the outcome is unknown, as for any lost answer) is read, and
  // its operation completes, only when the stall ends. Null: never stalled.
  const sim::TimeNs* stalled_until = nullptr;
};

// Whether a request can change the store (its failed outcome then needs classifying).
bool is_write(const etcdserverpb::ApiRequest& req);
// The outcome of an answered request (see the file comment).
history::Outcome classify(const etcdserverpb::ApiRequest& req, const etcdserverpb::ApiResponse& resp);

class KvClient {
 public:
  KvClient(sim::Simulator& sim, KvClientOptions options, history::Recorder& recorder);

  // Sends `req`, waits for its outcome, records both ends; returns the recorded operation.
  history::Operation execute(etcdserverpb::ApiRequest req);

  size_t member() const { return member_; }
  uint32_t id() const { return options_.id; }

 private:
  rpc::Connection* connection();
  // Sleeps out a stall in force (see KvClientOptions::stalled_until).
  void wait_out_stall();
  bool pinned() const { return options_.pinned || options_.balance == Balance::kPinned; }
  void next_member() { member_ = (member_ + 1) % options_.members.size(); }

  sim::Simulator& sim_;
  KvClientOptions options_;
  history::Recorder& recorder_;
  size_t member_ = 0;
  std::vector<std::unique_ptr<rpc::Connection>> conns_;  // one per member, opened on first use
  sim::DurationNs backoff_ = 0;                           // before the next request; 0: none
};

}  // namespace dst::client
