// The lessor (etcd 3.4's lease/lessor.go): which leases exist, which keys each one carries, and,
// on the leader only, when each expires.
//
// Two halves with different rules:
// - Apply side (grant, revoke, on_events, open/reload): runs on every member in raft log order and
//   changes replicated state (the "lease" bucket and the key-value store). It never looks at a
//   clock, so every member reaches the same leases, keys and backend hash.
// - Primary side (promote, demote, renew, expired, time_to_live): only the leader keeps expiry
//   times, in memory, from its own monotonic clock passed in as `now_ns` (never the wall clock:
//   a step of it would move every expiry). A follower's leases never expire; the leader proposes
//   revokes for expired leases through raft, so expiry reaches followers only as an applied
//   LeaseRevoke.
//
// Not modelled: lease checkpoints (etcd 3.4's --experimental-enable-lease-checkpoint, off by
// default; RemainingTTL is persisted as 0 and a new leader restarts every lease at its full TTL),
// and Promote's spreading of expiries when more than leaseRevokeRate leases would expire at once.
//
// A pure data structure: no fibers, timers or clock reads; the backend calls it makes may block
// the calling fiber (the backend is SQLite on the simulated disk). Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "node/backend/backend.h"
#include "node/mvcc/kv_store.h"
#include "proto/etcd_kv.pb.h"

namespace dst::lease {

// "Never": the expiry of every lease on a follower.
inline constexpr int64_t kNeverNs = INT64_MAX;

struct LessorOptions {
  // Shorter TTLs are raised to this (etcd's minLeaseTTL = ceil(3 * election timeout / 2) in
  // seconds, so a lease outlives a leader election: 2 s for a 1 s election timeout).
  int64_t min_ttl_seconds = 2;
  // After expired() returned a lease, how long until it returns it again if no revoke has been
  // applied meanwhile (the proposal was lost, e.g. the leader changed): etcd's
  // expiredLeaseRetryInterval, 3 s.
  int64_t expired_retry_ns = 3'000'000'000;
};

// LeaseTimeToLive's answer.
struct TimeToLive {
  int64_t id = 0;
  // Remaining seconds, truncated toward zero (etcd: int64(Remaining().Seconds())); -1 for an
  // unknown lease (etcd 3.4 answers TTL -1 rather than an error). On a follower every lease
  // remains "forever": 9223372036.
  int64_t ttl_seconds = -1;
  int64_t granted_ttl_seconds = 0;
  std::vector<std::string> keys;  // only when asked for; sorted
};

class Lessor {
 public:
  // Loads the leases from the backend's "lease" bucket and attaches every live key of `kv` that
  // names a lease. Not primary afterwards. `backend` and `kv` must outlive the Lessor (or until
  // reload()).
  static Result<std::unique_ptr<Lessor>> open(backend::Backend& backend, mvcc::KvStore& kv,
                                              LessorOptions options = {});
  // The backend was replaced wholesale (a raft snapshot was installed): forgets everything and
  // loads again from the new backend and store. As etcd's Recover, every expiry becomes "never"
  // (a leader never installs snapshots; a member that does is re-promoted if it wins an election).
  Status reload(backend::Backend& backend, mvcc::KvStore& kv);

  // --- apply side: raft log order, every member, no clock ---

  // LeaseGrant. `id` is non-zero (the proposer picks one before proposing); a TTL below the
  // minimum is raised to it. Persists the lease in the backend's open batch. `now_ns` starts the
  // lease's expiry only if this member is the primary (etcd's refresh on grant) and never affects
  // replicated state. Returns the granted TTL.
  Result<int64_t> grant(int64_t id, int64_t ttl_seconds, int64_t now_ns);
  // LeaseRevoke: deletes every key of the lease (sorted, so every member writes the same
  // revisions) in one write transaction of the store, and the lease record, in the backend's open
  // batch. A lease without keys leaves the store's revision unchanged (etcd's txn.End() only
  // bumps it when something changed).
  Status revoke(int64_t id);
  // Follows the key-value writes of one applied transaction (the server calls it with each
  // transaction's events, after the transaction ended): a put attaches its key to kv.lease (and
  // detaches it from a previous lease), a put without lease or a delete detaches. A put naming an
  // unknown lease is a bug in the caller (it must validate with exists() before applying), as it
  // is a panic in etcd. Idempotent: revoke() already detached the keys it deleted.
  void on_events(const std::vector<mvccpb::Event>& events);

  bool exists(int64_t id) const { return leases_.count(id) != 0; }
  // The lease a live key is attached to, 0 if none (etcd's GetLease).
  int64_t lease_of(const std::string& key) const;
  // LeaseLeases: every lease id, ascending (etcd sorts by expiry, which on a follower is an
  // arbitrary map order; id order is deterministic).
  std::vector<int64_t> leases() const;
  size_t size() const { return leases_.size(); }
  // Keys recovered by open()/reload() that named a lease the bucket does not hold: left detached
  // (etcd logs and skips them). Never non-zero unless a revoke was torn apart.
  size_t orphan_keys() const { return orphan_keys_; }

  // --- primary side: leader only, in memory, the leader's monotonic clock ---

  // Becoming leader: every lease expires at now + its TTL + extend (etcd extends by the election
  // timeout so that a leader change does not revoke leases whose keep-alives were in flight).
  void promote(int64_t now_ns, int64_t extend_ns);
  // Losing leadership: every expiry becomes "never".
  void demote();
  bool primary() const { return primary_; }

  // LeaseKeepAlive: the lease expires a full TTL after now; returns the TTL. kErrNotPrimary on a
  // follower (the server forwards to the leader); kErrLeaseNotFound for an unknown lease (the
  // server answers a keep-alive for it with TTL 0, as etcd does); kErrLeaseExpired for a lease
  // already expired (the server waits until its revoke is applied, then answers TTL 0, or until
  // leadership is lost, then forwards).
  Result<int64_t> renew(int64_t id, int64_t now_ns);
  // Leases whose expiry has passed, for the leader to propose revokes: the longest-expired first,
  // at most `max` (the server's per-tick share of limits::kLeaseRevokesPerSecond), returned in id
  // order. A lease returned is not returned again for options.expired_retry_ns (as etcd re-arms
  // it at now + expiredLeaseRetryInterval), unless renewed; after that, if its revoke still has
  // not been applied, it is returned again. Empty on a follower.
  std::vector<int64_t> expired(int64_t now_ns, size_t max);
  // LeaseTimeToLive as the leader answers it (followers forward to the leader in etcd).
  TimeToLive time_to_live(int64_t id, int64_t now_ns, bool with_keys) const;
  // The expiry a lease has now (kNeverNs on a follower); tests and invariant checkers.
  int64_t expiry_of(int64_t id) const;

  // Asserts that the key->lease map and the leases' key sets mirror each other and that due_
  // mirrors the leases (O(leases + keys); for tests and the simulation's invariant checks).
  void check_invariants() const;

 private:
  struct Lease {
    int64_t ttl_seconds = 0;  // as granted: never below options_.min_ttl_seconds
    std::set<std::string> keys;
    int64_t expiry_ns = kNeverNs;
    // When expired() next considers the lease: its expiry, or after it was returned the retry
    // time. Mirrored in due_ while primary.
    int64_t due_ns = kNeverNs;
  };

  Lessor(backend::Backend& backend, mvcc::KvStore& kv, LessorOptions options)
      : backend_(&backend), kv_(&kv), options_(options) {}
  Status load();
  Status attach_live_keys();
  void attach(int64_t id, const std::string& key);
  void detach(const std::string& key);
  // Every expiry decision goes through here (renew, expired). Which clock `now_ns` reads is the
  // server's choice (Server::local_now; its lease-expiry-on-follower-clock bug passes the wall
  // clock, so the lessor itself has no bug switch).
  bool is_expired(const Lease& lease, int64_t now_ns) const;
  // now + ttl + extend, saturating at kNeverNs (a 9e9 s TTL is 9e18 ns, near INT64_MAX).
  static int64_t expiry_after(int64_t now_ns, int64_t ttl_seconds, int64_t extend_ns);
  // Sets the expiry and makes the lease due at it (dropping any retry mark).
  void set_expiry(int64_t id, Lease& lease, int64_t expiry_ns);
  void set_due(int64_t id, Lease& lease, int64_t due_ns);

  backend::Backend* backend_;
  mvcc::KvStore* kv_;
  LessorOptions options_;
  std::map<int64_t, Lease> leases_;
  std::map<std::string, int64_t> key_lease_;  // every attached key -> its lease (etcd's itemMap)
  // (due_ns, id) of every lease while primary, so expired() looks only at due leases.
  std::set<std::pair<int64_t, int64_t>> due_;
  bool primary_ = false;
  size_t orphan_keys_ = 0;
};

}  // namespace dst::lease
