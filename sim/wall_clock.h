// The only doors to the real world: the wall clock and operating-system entropy.
//
// Simulation code never calls these (they would make runs irreproducible). They exist for the
// command line (to pick a fresh seed when the user gives none, which is then printed with its
// reproduce command), for benchmarks and progress lines (to measure wall time), and for the fuzz
// driver's hang watchdog.
#pragma once

#include <cstdint>

namespace dst::sim {

// A seed from the operating system's entropy (getrandom), falling back to the wall clock.
uint64_t fresh_seed();
// Monotonic wall-clock nanoseconds, for measuring how long real work took.
int64_t wall_clock_ns();
// Milliseconds since the Unix epoch, for the run database's start and end stamps (metadata).
int64_t unix_time_ms();
// Delivers SIGALRM after `seconds` of wall time (0 disarms): the fuzz driver's per-input hang
// watchdog, as libFuzzer's -timeout is.
void arm_wall_clock_alarm(unsigned seconds);

}  // namespace dst::sim
