// Per-host clock arithmetic; see clock.h.
#include "sim/clock.h"

#include "base/assert.h"

namespace dst::sim {

namespace {
constexpr int64_t kPpm = 1'000'000;
}

TimeNs NodeClock::monotonic_now(TimeNs true_now) const {
  DST_ASSERT_GE(true_now, anchor_true_);
  const __int128 elapsed = true_now - anchor_true_;
  return anchor_monotonic_ + static_cast<TimeNs>(elapsed * (kPpm + drift_ppm_) / kPpm);
}

DurationNs NodeClock::true_duration(DurationNs local) const {
  if (local <= 0) return 0;
  const __int128 rate = kPpm + drift_ppm_;
  const __int128 scaled = (static_cast<__int128>(local) * kPpm + rate - 1) / rate;
  if (scaled > kTimeNever / 2) return kTimeNever / 2;  // "forever" stays representable
  return static_cast<DurationNs>(scaled);
}

void NodeClock::set_drift_ppm(int64_t drift_ppm, TimeNs true_now) {
  DST_ASSERT_MSG(drift_ppm >= -kDriftPpmMax && drift_ppm <= kDriftPpmMax,
                 "clock drift must be within +-500000 ppm");
  anchor_monotonic_ = monotonic_now(true_now);
  anchor_true_ = true_now;
  drift_ppm_ = drift_ppm;
}

}  // namespace dst::sim
