// lease-keepalive-answered: a keep-alive of a lease that must still be alive is answered with the
// lease's TTL, never with "gone" (TTL 0, etcd's answer for a lease it does not know).
//
// What a client can rely on: a LeaseGrant or LeaseKeepAlive of lease L sent at time t and answered
// ok with TTL τ (before the keep-alive judged was sent) keeps L alive on the leader until at least
// t + τ / (1 + d), d the fastest clock
// drift the history records (the etcd checker's lease-expired-early bound, etcd_lease.cc). A
// keep-alive of L answered "gone" that returned before that time found L gone too early, unless a
// LeaseRevoke of L that may have taken effect (ok or unknown) was sent before it returned, or the
// cluster was restored from a snapshot in between (the restored cluster may predate the grant).
//
// The etcd model sees an early expiry only through the keys it deletes; this check sees it for a
// lease with no keys too, and for an answer that claims a lease is gone while it still lives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "checker/suite/evidence.h"
#include "history/history.h"

namespace dst::checker::suite {

// Violations kept in a report; the rest are counted.
inline constexpr size_t kKeepAliveViolationsKept = 10;

struct KeepAliveReport {
  size_t keepalives = 0;       // keep-alives answered ok
  size_t gone_answers = 0;     // of them, answered "gone" (TTL 0): the ones judged
  size_t violations_total = 0;
  std::vector<Evidence> violations;  // the first kKeepAliveViolationsKept, in history order
  bool ok() const { return violations_total == 0; }
};

KeepAliveReport check_keepalives(const history::History& history);

}  // namespace dst::checker::suite
