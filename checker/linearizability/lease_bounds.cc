// See lease_bounds.h.
#include "checker/linearizability/lease_bounds.h"
#include "base/parse_number.h"

#include <charconv>
#include <cstdio>
#include <optional>
#include <string_view>

#include "base/assert.h"

namespace dst::checker {

namespace {

// sim::NodeClock::kDriftPpmMax: the simulator rejects any faster clock.
constexpr int64_t kDriftPpmUnreadable = 500'000;
// Real clocks (and the simulator's undrifted ones, exactly 0) stay far below this.
constexpr int64_t kDriftPpmFloor = 1'000;
constexpr int64_t kPpm = 1'000'000;
constexpr int64_t kNsPerSecond = 1'000'000'000;

// "n2 200000ppm" -> 200000; nullopt if it does not read so.
std::optional<int64_t> drift_ppm_of(const std::string& target) {
  const size_t space = target.rfind(' ');
  std::string_view token = std::string_view(target).substr(space == std::string::npos ? 0 : space + 1);
  if (token.size() <= 3 || token.substr(token.size() - 3) != "ppm") return std::nullopt;
  token.remove_suffix(3);
  return parse_i64(token);
}

}  // namespace

std::string lease_seconds_text(int64_t ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6fs", static_cast<double>(ns) / 1e9);
  return buf;
}

LeaseDrift lease_drift_bound(const history::History& history) {
  LeaseDrift d{kDriftPpmFloor, "no clock-drift fault recorded: a real clock's bound"};
  for (const history::Fault& f : history.faults) {
    if (f.kind != "clock-drift") continue;
    std::optional<int64_t> ppm = drift_ppm_of(f.target);
    const int64_t fast = ppm ? *ppm : kDriftPpmUnreadable;
    if (fast <= d.ppm) continue;
    d.ppm = fast;
    d.source = "clock-drift " + f.target + " at " + lease_seconds_text(f.start_ns) +
               (ppm ? "" : " (unreadable: the simulator's limit)");
  }
  return d;
}

std::optional<LeaseRefreshed> lease_refreshed_by(const history::Operation& o) {
  if (o.outcome != history::Outcome::kOk) return std::nullopt;
  LeaseRefreshed r;
  if (o.request.has_lease_grant() && o.response.has_lease_grant()) {
    r = {o.response.lease_grant().id(), o.response.lease_grant().ttl()};
  } else if (o.request.has_lease_keep_alive() && o.response.has_lease_keep_alive()) {
    r = {o.request.lease_keep_alive().id(), o.response.lease_keep_alive().ttl()};
  }
  if (r.lease == 0 || r.ttl_seconds <= 0) return std::nullopt;
  return r;
}

int64_t earliest_lease_expiry(int64_t invoke_ns, int64_t ttl_seconds, int64_t drift_ppm) {
  DST_ASSERT_GE(drift_ppm, 0);
  const __int128 span = static_cast<__int128>(ttl_seconds) * kNsPerSecond * kPpm / (kPpm + drift_ppm);
  const __int128 at = static_cast<__int128>(invoke_ns) + span;
  return at > INT64_MAX ? INT64_MAX : static_cast<int64_t>(at);
}

}  // namespace dst::checker
