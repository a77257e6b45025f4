// When a lease may expire at the earliest, as both lease rules see it: the etcd checker's
// lease-expired-early (etcd_lease.cc) and the suite's lease-keepalive-answered
// (checker/suite/lease_keepalive.h). A refresh (grant or keep-alive) sent at t and answered with
// TTL τ keeps the lease until at least t + τ / (1 + d), d the fastest a member's clock may run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "history/history.h"

namespace dst::checker {

struct LeaseDrift {
  int64_t ppm = 0;     // the fastest any member's monotonic clock may run, ppm over true time
  std::string source;  // what said so: "clock-drift n2 200000ppm at 1.000000s", or the default's reason
};

// The fastest drift the history's "clock-drift" faults record ("n2 200000ppm"); an unreadable one
// counts as the simulator's limit (50 %), and a history without any (imported from a real
// cluster) as a quartz clock's 0.1 %, far beyond what real clocks drift.
LeaseDrift lease_drift_bound(const history::History& history);

// invoke + ttl / (1 + ppm / 1e6), rounded down (a rule may only be lenient), saturating.
int64_t earliest_lease_expiry(int64_t invoke_ns, int64_t ttl_seconds, int64_t drift_ppm);

// The lease an operation refreshed and the TTL it was answered with: a grant or keep-alive answered
// ok with TTL > 0; nullopt for anything else (a keep-alive answered "gone" refreshed nothing).
struct LeaseRefreshed {
  int64_t lease = 0;
  int64_t ttl_seconds = 0;
};
std::optional<LeaseRefreshed> lease_refreshed_by(const history::Operation& op);

// "1.250000s", for messages.
std::string lease_seconds_text(int64_t ns);

}  // namespace dst::checker
