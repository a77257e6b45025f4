// A host's clock: how a simulated machine sees time, as opposed to the true virtual time.
//
// Two readings, as on a real machine (and as Go, which etcd is written in, keeps them):
// - monotonic: runs at rate (1 + drift_ppm/1e6) of true time and never jumps; timers and timeouts
//   (sleep, wait_for) count on it, so a fast clock fires its timers early in true time.
// - wall: monotonic plus an offset that faults may set or jump (NTP steps, manual changes).
// Integer arithmetic only (128-bit intermediates), so readings are exact and portable.
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace dst::sim {

class NodeClock {
 public:
  // Drift beyond +-50% is no clock at all; it is rejected so that every timer still advances.
  static constexpr int64_t kDriftPpmMax = 500'000;

  NodeClock() = default;

  TimeNs monotonic_now(TimeNs true_now) const;
  TimeNs wall_now(TimeNs true_now) const { return monotonic_now(true_now) + wall_offset_ns_; }

  // True-time span that passes while this clock's monotonic reading advances by `local`
  // (rounded up, so a timer never fires before its local deadline).
  DurationNs true_duration(DurationNs local) const;

  // Changes the rate from `true_now` on; readings stay continuous.
  void set_drift_ppm(int64_t drift_ppm, TimeNs true_now);
  // Steps the wall reading (a positive jump moves it forward). The monotonic reading is unaffected.
  void jump_wall(DurationNs delta) { wall_offset_ns_ += delta; }
  void set_wall_offset(DurationNs offset) { wall_offset_ns_ = offset; }

  int64_t drift_ppm() const { return drift_ppm_; }
  DurationNs wall_offset() const { return wall_offset_ns_; }

 private:
  int64_t drift_ppm_ = 0;
  TimeNs anchor_true_ = 0;      // true time at the last rate change
  TimeNs anchor_monotonic_ = 0; // monotonic reading at anchor_true_
  DurationNs wall_offset_ns_ = 0;
};

}  // namespace dst::sim
