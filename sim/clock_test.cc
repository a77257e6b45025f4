// Tests of a host's clock (sim/clock.h, NodeClock): monotonic readings under zero, positive and
// negative drift; true_duration's rounding (a timer never fires before its local deadline); rate
// changes that keep readings continuous; wall-clock offsets and jumps; and the drift limits.
#include "sim/clock.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace dst::sim {
namespace {

TEST(NodeClock, ZeroDriftIsIdentity) {
  NodeClock clock;
  EXPECT_EQ(clock.drift_ppm(), 0);
  EXPECT_EQ(clock.wall_offset(), 0);
  for (TimeNs t : {TimeNs{0}, TimeNs{1}, milliseconds(100), seconds(3600), seconds(1) + 7}) {
    EXPECT_EQ(clock.monotonic_now(t), t);
    EXPECT_EQ(clock.wall_now(t), t);
  }
  for (DurationNs d : {DurationNs{1}, DurationNs{999}, milliseconds(5), seconds(10)}) {
    EXPECT_EQ(clock.true_duration(d), d);
  }
}

TEST(NodeClock, PositiveDriftRunsFast) {
  NodeClock clock;
  clock.set_drift_ppm(100'000, 0);  // +10%
  EXPECT_EQ(clock.drift_ppm(), 100'000);
  EXPECT_EQ(clock.monotonic_now(0), 0);
  EXPECT_EQ(clock.monotonic_now(milliseconds(100)), milliseconds(110));
  EXPECT_EQ(clock.monotonic_now(seconds(10)), seconds(11));
  EXPECT_EQ(clock.wall_now(milliseconds(100)), milliseconds(110));
}

TEST(NodeClock, NegativeDriftRunsSlow) {
  NodeClock clock;
  clock.set_drift_ppm(-100'000, 0);  // -10%
  EXPECT_EQ(clock.monotonic_now(milliseconds(100)), milliseconds(90));
  EXPECT_EQ(clock.monotonic_now(seconds(10)), seconds(9));
}

TEST(NodeClock, SmallDriftIsExact) {
  NodeClock clock;
  clock.set_drift_ppm(50, 0);  // a realistic crystal: 50 ppm fast
  EXPECT_EQ(clock.monotonic_now(seconds(1)), seconds(1) + microseconds(50));
  EXPECT_EQ(clock.monotonic_now(seconds(1000)), seconds(1000) + milliseconds(50));
  clock.set_drift_ppm(-50, 0);
  EXPECT_EQ(clock.monotonic_now(seconds(1)), seconds(1) - microseconds(50));
}

TEST(NodeClock, ReadingsTruncateSubNanosecondParts) {
  NodeClock clock;
  clock.set_drift_ppm(100'000, 0);
  // 5ns * 1.1 = 5.5ns: the reading is whole nanoseconds, rounded down.
  EXPECT_EQ(clock.monotonic_now(5), 5);
  EXPECT_EQ(clock.monotonic_now(10), 11);
}

TEST(NodeClock, ExtremeDriftsAreAllowed) {
  NodeClock clock;
  clock.set_drift_ppm(NodeClock::kDriftPpmMax, 0);
  EXPECT_EQ(clock.monotonic_now(seconds(2)), seconds(3));
  clock.set_drift_ppm(-NodeClock::kDriftPpmMax, 0);
  EXPECT_EQ(clock.monotonic_now(seconds(2)), seconds(1));
}

TEST(NodeClock, MonotonicNeverDecreases) {
  for (int64_t drift : {int64_t{-500'000}, int64_t{-123'457}, int64_t{0}, int64_t{1},
                        int64_t{333'333}, int64_t{500'000}}) {
    NodeClock clock;
    clock.set_drift_ppm(drift, 0);
    TimeNs prev = clock.monotonic_now(0);
    for (TimeNs t = 1; t < 2000; ++t) {
      const TimeNs m = clock.monotonic_now(t);
      EXPECT_GE(m, prev) << "drift " << drift << " t " << t;
      prev = m;
    }
  }
}

TEST(NodeClock, TrueDurationExactCases) {
  NodeClock clock;
  clock.set_drift_ppm(100'000, 0);
  // The clock runs 10% fast, so 110ms local pass in 100ms true.
  EXPECT_EQ(clock.true_duration(milliseconds(110)), milliseconds(100));
  clock.set_drift_ppm(-100'000, 0);
  EXPECT_EQ(clock.true_duration(milliseconds(90)), milliseconds(100));
  clock.set_drift_ppm(NodeClock::kDriftPpmMax, 0);
  EXPECT_EQ(clock.true_duration(seconds(3)), seconds(2));
  clock.set_drift_ppm(-NodeClock::kDriftPpmMax, 0);
  EXPECT_EQ(clock.true_duration(seconds(1)), seconds(2));
}

TEST(NodeClock, TrueDurationRoundsUp) {
  NodeClock clock;
  clock.set_drift_ppm(100'000, 0);
  // 1ns local at rate 1.1 is 0.909..ns true: rounded up to 1, never down to 0.
  EXPECT_EQ(clock.true_duration(1), 1);
  // 100ns local is 90.9..ns true: 91.
  EXPECT_EQ(clock.true_duration(100), 91);
  clock.set_drift_ppm(-300'000, 0);
  // 10ns local at rate 0.7 is 14.28..ns true: 15.
  EXPECT_EQ(clock.true_duration(10), 15);
}

TEST(NodeClock, TrueDurationOfNonPositiveIsZero) {
  NodeClock clock;
  clock.set_drift_ppm(-200'000, 0);
  EXPECT_EQ(clock.true_duration(0), 0);
  EXPECT_EQ(clock.true_duration(-5), 0);
  EXPECT_EQ(clock.true_duration(-seconds(1)), 0);
}

TEST(NodeClock, TrueDurationOfForeverStaysRepresentable) {
  for (int64_t drift : {int64_t{-500'000}, int64_t{0}, int64_t{500'000}}) {
    NodeClock clock;
    clock.set_drift_ppm(drift, 0);
    const DurationNs d = clock.true_duration(kForever);
    EXPECT_GT(d, 0) << drift;
    EXPECT_LE(d, kTimeNever / 2) << drift;
  }
  NodeClock slow;
  slow.set_drift_ppm(-500'000, 0);
  EXPECT_EQ(slow.true_duration(kForever), kTimeNever / 2);
}

// The contract sleep and timeouts rely on: waiting true_duration(d) from any instant t0 lets the
// monotonic reading advance by at least d, and waiting one nanosecond less would not (so the
// rounding is as tight as possible).
TEST(NodeClock, TimerNeverFiresBeforeItsLocalDeadline) {
  const std::vector<int64_t> drifts = {-500'000, -333'333, -100'000, -1,      0,
                                       1,        7,        100'000,  123'457, 500'000};
  std::vector<DurationNs> durations;
  for (DurationNs d = 1; d <= 50; ++d) durations.push_back(d);
  for (DurationNs d : {DurationNs{999}, DurationNs{1'001}, microseconds(7) + 3, milliseconds(1),
                       milliseconds(150) + 1, seconds(1), seconds(7) + 13, seconds(3600) + 1}) {
    durations.push_back(d);
  }
  const std::vector<TimeNs> starts = {0, 1, 3, 7, 999, milliseconds(100) + 1, seconds(5) + 333};
  for (int64_t drift : drifts) {
    NodeClock clock;
    clock.set_drift_ppm(drift, 0);
    for (TimeNs t0 : starts) {
      for (DurationNs d : durations) {
        const DurationNs span = clock.true_duration(d);
        const TimeNs local0 = clock.monotonic_now(t0);
        ASSERT_GE(clock.monotonic_now(t0 + span), local0 + d)
            << "drift " << drift << " t0 " << t0 << " d " << d << " span " << span;
        // Minimal from the anchor: one nanosecond less of true time does not reach d.
        if (t0 == 0) {
          ASSERT_LT(clock.monotonic_now(span - 1), d) << "drift " << drift << " d " << d;
        }
      }
    }
  }
}

TEST(NodeClock, SetDriftKeepsReadingsContinuous) {
  NodeClock clock;
  clock.set_drift_ppm(100'000, 0);
  EXPECT_EQ(clock.monotonic_now(milliseconds(100)), milliseconds(110));
  // From true 100ms on, run 10% slow: the reading continues from 110ms.
  clock.set_drift_ppm(-100'000, milliseconds(100));
  EXPECT_EQ(clock.drift_ppm(), -100'000);
  EXPECT_EQ(clock.monotonic_now(milliseconds(100)), milliseconds(110));
  EXPECT_EQ(clock.monotonic_now(milliseconds(200)), milliseconds(200));  // 110 + 100 * 0.9
  // Back to a true rate.
  clock.set_drift_ppm(0, milliseconds(200));
  EXPECT_EQ(clock.monotonic_now(milliseconds(200)), milliseconds(200));
  EXPECT_EQ(clock.monotonic_now(milliseconds(250)), milliseconds(250));
}

TEST(NodeClock, SetDriftAtOddInstantCarriesTheTruncatedReading) {
  NodeClock clock;
  clock.set_drift_ppm(100'000, 0);
  const TimeNs before = clock.monotonic_now(15);  // 16.5 -> 16
  EXPECT_EQ(before, 16);
  clock.set_drift_ppm(0, 15);
  EXPECT_EQ(clock.monotonic_now(15), before);
  EXPECT_EQ(clock.monotonic_now(25), before + 10);
}

TEST(NodeClock, TrueDurationUsesTheCurrentRate) {
  NodeClock clock;
  clock.set_drift_ppm(100'000, 0);
  clock.set_drift_ppm(-100'000, seconds(1));
  // Only the current rate matters for spans from now on.
  EXPECT_EQ(clock.true_duration(milliseconds(90)), milliseconds(100));
  const TimeNs t0 = seconds(2);
  EXPECT_GE(clock.monotonic_now(t0 + clock.true_duration(milliseconds(9))),
            clock.monotonic_now(t0) + milliseconds(9));
}

TEST(NodeClock, JumpWallChangesWallButNotMonotonic) {
  NodeClock clock;
  clock.set_drift_ppm(100'000, 0);
  const TimeNs t = milliseconds(100);
  const TimeNs mono = clock.monotonic_now(t);
  clock.jump_wall(seconds(30));
  EXPECT_EQ(clock.wall_offset(), seconds(30));
  EXPECT_EQ(clock.monotonic_now(t), mono);
  EXPECT_EQ(clock.wall_now(t), mono + seconds(30));
  // Jumps accumulate, and may go backwards.
  clock.jump_wall(-seconds(45));
  EXPECT_EQ(clock.wall_offset(), -seconds(15));
  EXPECT_EQ(clock.monotonic_now(t), mono);
  EXPECT_EQ(clock.wall_now(t), mono - seconds(15));
  // true_duration (timers) ignores the wall clock.
  EXPECT_EQ(clock.true_duration(milliseconds(110)), milliseconds(100));
}

TEST(NodeClock, SetWallOffsetReplacesTheOffset) {
  NodeClock clock;
  clock.jump_wall(seconds(5));
  clock.set_wall_offset(-milliseconds(250));
  EXPECT_EQ(clock.wall_offset(), -milliseconds(250));
  EXPECT_EQ(clock.wall_now(seconds(1)), milliseconds(750));
  EXPECT_EQ(clock.monotonic_now(seconds(1)), seconds(1));
}

TEST(NodeClock, WallOffsetSurvivesDriftChanges) {
  NodeClock clock;
  clock.set_wall_offset(seconds(100));
  clock.set_drift_ppm(500'000, seconds(1));
  EXPECT_EQ(clock.wall_offset(), seconds(100));
  EXPECT_EQ(clock.wall_now(seconds(3)), seconds(1) + seconds(3) + seconds(100));
}

TEST(NodeClockDeathTest, DriftBeyondLimitsDies) {
  NodeClock clock;
  EXPECT_DEATH(clock.set_drift_ppm(NodeClock::kDriftPpmMax + 1, 0), "drift must be within");
  EXPECT_DEATH(clock.set_drift_ppm(-NodeClock::kDriftPpmMax - 1, 0), "drift must be within");
  EXPECT_DEATH(clock.set_drift_ppm(1'000'000, 0), "drift must be within");
  EXPECT_DEATH(clock.set_drift_ppm(-1'000'000, 0), "drift must be within");
}

TEST(NodeClockDeathTest, ReadingBeforeTheLastRateChangeDies) {
  NodeClock clock;
  clock.set_drift_ppm(10, seconds(5));
  EXPECT_DEATH((void)clock.monotonic_now(seconds(4)), "true_now >= anchor_true_");
}

}  // namespace
}  // namespace dst::sim
