// The etcd checker's lease-expired-early rule: a lease must not expire before its TTL has run out
// since the client last refreshed it.
//
// What a client can rely on: a LeaseGrant or LeaseKeepAlive for lease L sent at true time t and
// answered ok with TTL τ started (or restarted) L's expiry on the leader no earlier than t (the
// leader grants when it applies the grant, and renews when it serves the keep-alive, both after
// the send). The leader counts τ on its monotonic clock, which runs at most (1 + d) times as fast
// as true time, d the fastest drift any member's clock had; so it may expire L no earlier than
// t + τ / (1 + d). A leader change only pushes that later: a new leader restarts every lease at
// its full TTL plus an election timeout, and it can only do so after it applied the grant.
//
// The evidence of when L expired: the checker took revision r as L's expiry (its keys deleted at
// once, no request explaining it better; etcd_explain.cc); the leader decided the expiry before
// it proposed the revoke, so before revision r existed, so before the earliest time anything
// showed a revision >= r (an operation's return, a watch response's arrival; first_observed_).
// If that time is before t + τ / (1 + d) for some refresh sent before it, the expiry came early.
//
// Not an expiry, and so never judged: a revision made by a LeaseRevoke. One acknowledged at r is
// its writer (replay_lease_revoke); and a revoke of L that may have taken effect (ok or unknown
// outcome) sent before the evidence could be the writer the checker took for an expiry (a revoke
// whose answer was lost deletes exactly what the expiry would), so its presence skips the check.
//
// The drift: the simulator records every drift it sets as a "clock-drift" fault ("n2 200000ppm",
// from cluster{clock={drift_ppm=...}} or clock_drift()); the fastest one counts. A drift fault the
// checker cannot read counts as the simulator's limit (50%), and a history without any (imported
// from a real cluster) as a quartz clock's 0.1%, far beyond what real clocks drift.

#include "checker/linearizability/etcd_internal.h"
#include "checker/linearizability/lease_bounds.h"

namespace dst::checker::etcd {

namespace {
using history::Outcome;
}  // namespace

void Checker::index_lease_refreshes() {
  const LeaseDrift drift = lease_drift_bound(h_);
  lease_drift_ppm_ = drift.ppm;
  lease_drift_source_ = drift.source;
  for (size_t i = 0; i < h_.operations.size(); ++i) {
    const history::Operation& o = h_.operations[i];
    if (o.request.has_lease_revoke() && o.outcome != Outcome::kFailed)
      lease_revokes_[o.request.lease_revoke().id()].push_back(i);
    const std::optional<LeaseRefreshed> r = lease_refreshed_by(o);
    if (!r) continue;
    lease_refreshes_[r->lease].push_back(LeaseRefresh{
        o.invoke_ns, r->ttl_seconds, earliest_lease_expiry(o.invoke_ns, r->ttl_seconds, lease_drift_ppm_), i});
  }
}

void Checker::check_lease_expiry(int64_t r, int64_t lease) {
  auto refreshes = lease_refreshes_.find(lease);
  if (refreshes == lease_refreshes_.end()) return;  // granted by a request whose answer was lost
  const Observation& seen = first_observed_[static_cast<size_t>(r)];
  ++out_.stats.checks;
  // The refresh that promises the longest life, among those sent before the evidence (a grant
  // sent later cannot have preceded this expiry; a keep-alive sent later found it gone).
  const LeaseRefresh* last = nullptr;
  for (const LeaseRefresh& f : refreshes->second)
    if (f.invoke_ns < seen.at && (last == nullptr || f.earliest_expiry_ns > last->earliest_expiry_ns)) last = &f;
  if (last == nullptr || seen.at >= last->earliest_expiry_ns) return;
  if (auto rv = lease_revokes_.find(lease); rv != lease_revokes_.end())
    for (size_t op : rv->second)
      if (h_.operations[op].invoke_ns < seen.at) return;  // the revoke may have made r
  violation("lease-expired-early",
            "lease " + std::to_string(lease) + " (TTL " + std::to_string(last->ttl_seconds) +
                "s) expired at revision " + std::to_string(r) + ", seen by " + lease_seconds_text(seen.at) +
                ", but its refresh sent at " + lease_seconds_text(last->invoke_ns) + " keeps it until at least " +
                lease_seconds_text(last->earliest_expiry_ns) + " (TTL / (1 + " + std::to_string(lease_drift_ppm_) +
                " ppm drift))",
            r, {last->op},
            {"revision " + std::to_string(r) + " first seen by " + seen.source,
             "fastest clock drift: " + lease_drift_source_});
}

}  // namespace dst::checker::etcd
