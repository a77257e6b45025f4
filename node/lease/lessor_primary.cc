// The lessor's leader-only half: expiry times on the leader's monotonic clock, keep-alives, the
// search for expired leases and LeaseTimeToLive (see lessor.h). Nothing here changes replicated
// state: an expired lease is only reported, and the server proposes its revoke through raft.
#include <algorithm>

#include "base/limits.h"
#include "base/probes.h"
#include "node/lease/errors.h"
#include "node/lease/lessor.h"

namespace dst::lease {

namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

}  // namespace

int64_t Lessor::expiry_after(int64_t now_ns, int64_t ttl_seconds, int64_t extend_ns) {
  DST_ASSERT_GT(ttl_seconds, 0);
  DST_ASSERT_LE(ttl_seconds, limits::kLeaseTtlSecondsMax);
  DST_ASSERT_GE(extend_ns, 0);
  int64_t expiry = 0;
  if (__builtin_mul_overflow(ttl_seconds, kNsPerSecond, &expiry) ||
      __builtin_add_overflow(expiry, extend_ns, &expiry) || __builtin_add_overflow(expiry, now_ns, &expiry)) {
    return kNeverNs;
  }
  return std::min(expiry, kNeverNs);
}

bool Lessor::is_expired(const Lease& lease, int64_t now_ns) const {
  // Only the primary's expiries are real; etcd's expired() is Remaining() <= 0.
  return primary_ && lease.expiry_ns != kNeverNs && now_ns >= lease.expiry_ns;
}

void Lessor::set_due(int64_t id, Lease& lease, int64_t due_ns) {
  DST_ASSERT(primary_);
  due_.erase({lease.due_ns, id});
  lease.due_ns = due_ns;
  due_.emplace(due_ns, id);
}

void Lessor::set_expiry(int64_t id, Lease& lease, int64_t expiry_ns) {
  lease.expiry_ns = expiry_ns;
  set_due(id, lease, expiry_ns);
}

void Lessor::promote(int64_t now_ns, int64_t extend_ns) {
  DST_PROBE(kLeasePromoted);
  primary_ = true;
  due_.clear();
  for (auto& [id, lease] : leases_) {
    lease.due_ns = kNeverNs;  // not in due_ any more; set_expiry inserts it afresh
    set_expiry(id, lease, expiry_after(now_ns, lease.ttl_seconds, extend_ns));
  }
}

void Lessor::demote() {
  primary_ = false;
  due_.clear();
  for (auto& [id, lease] : leases_) {
    lease.expiry_ns = kNeverNs;
    lease.due_ns = kNeverNs;
  }
}

Result<int64_t> Lessor::renew(int64_t id, int64_t now_ns) {
  if (!primary_) return not_primary();
  auto it = leases_.find(id);
  if (it == leases_.end()) return lease_not_found();
  // etcd does not let a keep-alive resurrect a lease whose revoke may already be in the log.
  if (is_expired(it->second, now_ns)) return lease_expired();
  set_expiry(id, it->second, expiry_after(now_ns, it->second.ttl_seconds, 0));
  return it->second.ttl_seconds;
}

std::vector<int64_t> Lessor::expired(int64_t now_ns, size_t max) {
  DST_ASSERT_GT(max, 0u);
  DST_ASSERT_LE(max, limits::kLeasesMax);
  std::vector<int64_t> found;
  if (!primary_) return found;
  // due_ is ordered by (due time, id): the longest-due first, ties by id.
  for (auto it = due_.begin(); it != due_.end() && it->first <= now_ns && found.size() < max; ++it) {
    DST_ASSERT(is_expired(leases_.at(it->second), now_ns));  // due_ns >= expiry_ns
    found.push_back(it->second);
  }
  // Re-arm instead of forgetting: if the revoke is lost, the lease comes back after the retry
  // interval (etcd's expiredLeaseRetryInterval); an applied revoke removes it for good.
  const int64_t retry_at = now_ns > kNeverNs - options_.expired_retry_ns ? kNeverNs - 1
                                                                          : now_ns + options_.expired_retry_ns;
  for (int64_t id : found) set_due(id, leases_.at(id), retry_at);
  std::sort(found.begin(), found.end());
  return found;
}

TimeToLive Lessor::time_to_live(int64_t id, int64_t now_ns, bool with_keys) const {
  TimeToLive answer;
  answer.id = id;
  auto it = leases_.find(id);
  if (it == leases_.end()) return answer;  // TTL -1, granted 0, no keys
  const Lease& lease = it->second;
  // etcd: Remaining() is MaxInt64 ns for "forever", else expiry - now (negative once expired);
  // int64(d.Seconds()) truncates toward zero, as C++ integer division does.
  const int64_t remaining_ns = lease.expiry_ns == kNeverNs ? kNeverNs : lease.expiry_ns - now_ns;
  answer.ttl_seconds = remaining_ns / kNsPerSecond;
  answer.granted_ttl_seconds = lease.ttl_seconds;
  if (with_keys) answer.keys.assign(lease.keys.begin(), lease.keys.end());
  return answer;
}

int64_t Lessor::expiry_of(int64_t id) const {
  auto it = leases_.find(id);
  DST_ASSERT(it != leases_.end());
  return it->second.expiry_ns;
}

}  // namespace dst::lease
