// The only doors to the real world: the wall clock and operating-system entropy.
//
// Simulation code never calls these (they would make runs irreproducible). They exist for the
// command line (to pick a fresh seed when the user gives none, which is then printed with its
// reproduce command) and for benchmarks and progress lines (to measure wall time).
#pragma once

#include <cstdint>

namespace dst::sim {

// A seed from the operating system's entropy (getrandom), falling back to the wall clock.
uint64_t fresh_seed();
// Monotonic wall-clock nanoseconds, for measuring how long real work took.
int64_t wall_clock_ns();
// Milliseconds since the Unix epoch, for the run database's start and end stamps (metadata).
int64_t unix_time_ms();

}  // namespace dst::sim
