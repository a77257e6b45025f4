// See lease_keepalive.h.
#include "checker/suite/lease_keepalive.h"

#include <map>

#include "checker/linearizability/etcd_checker.h"
#include "checker/linearizability/lease_bounds.h"

namespace dst::checker::suite {

namespace {

using history::Operation;
using history::Outcome;

struct Refresh {
  int64_t earliest_expiry_ns = 0;
  int64_t ttl_seconds = 0;
  uint64_t op = 0;
};

struct LeaseFacts {
  std::map<int64_t, std::vector<size_t>> refreshes;  // lease -> ops answered ok with TTL > 0
  std::map<int64_t, std::vector<size_t>> revokes;    // lease -> revokes that may have taken effect
};

LeaseFacts index_leases(const history::History& h) {
  LeaseFacts facts;
  for (size_t i = 0; i < h.operations.size(); ++i) {
    const Operation& o = h.operations[i];
    if (o.request.has_lease_revoke() && o.outcome != Outcome::kFailed)
      facts.revokes[o.request.lease_revoke().id()].push_back(i);
    if (const std::optional<LeaseRefreshed> r = lease_refreshed_by(o)) facts.refreshes[r->lease].push_back(i);
  }
  return facts;
}

bool restored_between(const history::History& h, int64_t from_ns, int64_t to_ns) {
  for (const history::Restore& r : h.restores)
    if (r.disaster_ns < to_ns && r.restore_ns >= from_ns) return true;
  return false;
}

// The refresh sent before `gone` that keeps the lease alive longest, when that is past the time
// `gone` returned and nothing (a revoke, a restore) explains the lease's end; else nullopt.
std::optional<Refresh> broken_promise(const history::History& h, const LeaseFacts& facts, const Operation& gone,
                                      int64_t drift_ppm) {
  const int64_t lease = gone.request.lease_keep_alive().id();
  auto refreshes = facts.refreshes.find(lease);
  if (refreshes == facts.refreshes.end()) return std::nullopt;  // its grant's answer was lost
  std::optional<Refresh> best;
  for (size_t i : refreshes->second) {
    const Operation& r = h.operations[i];
    // Answered before the "gone" one was sent, or it promises nothing about it: a grant still in
    // flight (a client may choose the lease id) or a keep-alive served after it.
    if (r.return_ns >= gone.invoke_ns) continue;
    const int64_t ttl = lease_refreshed_by(r)->ttl_seconds;  // indexed as a refresh
    const int64_t until = earliest_lease_expiry(r.invoke_ns, ttl, drift_ppm);
    if (!best || until > best->earliest_expiry_ns) best = Refresh{until, ttl, r.id};
  }
  if (!best || gone.return_ns >= best->earliest_expiry_ns) return std::nullopt;
  if (auto rv = facts.revokes.find(lease); rv != facts.revokes.end())
    for (size_t op : rv->second)
      if (h.operations[op].invoke_ns < gone.return_ns) return std::nullopt;  // the revoke may have ended it
  const Operation& refresh = h.operations[best->op];
  if (restored_between(h, refresh.invoke_ns, gone.return_ns)) return std::nullopt;
  return best;
}

Evidence evidence_of(const history::History& h, const Operation& gone, const Refresh& promise, const LeaseDrift& drift) {
  const int64_t lease = gone.request.lease_keep_alive().id();
  Evidence e;
  e.check = "lease-keepalive-answered";
  e.rule = "lease-gone-early";
  e.message = "keep-alive of lease " + std::to_string(lease) + " answered \"gone\" (TTL 0) by " +
              lease_seconds_text(gone.return_ns) + ", but its refresh (TTL " + std::to_string(promise.ttl_seconds) +
              "s) keeps it alive until at least " + lease_seconds_text(promise.earliest_expiry_ns);
  e.at_ns = gone.return_ns;
  e.ops = {promise.op, gone.id};
  e.lines = {etcd::describe_operation(h.operations[promise.op]), etcd::describe_operation(gone),
             "fastest clock drift: " + drift.source};
  return e;
}

}  // namespace

KeepAliveReport check_keepalives(const history::History& h) {
  KeepAliveReport report;
  const LeaseFacts facts = index_leases(h);
  const LeaseDrift drift = lease_drift_bound(h);
  for (const Operation& o : h.operations) {
    if (!o.request.has_lease_keep_alive() || o.outcome != Outcome::kOk || !o.response.has_lease_keep_alive()) continue;
    ++report.keepalives;
    if (o.response.lease_keep_alive().ttl() > 0) continue;
    ++report.gone_answers;
    std::optional<Refresh> promise = broken_promise(h, facts, o, drift.ppm);
    if (!promise) continue;
    ++report.violations_total;
    if (report.violations.size() < kKeepAliveViolationsKept) report.violations.push_back(evidence_of(h, o, *promise, drift));
  }
  return report;
}

}  // namespace dst::checker::suite
