// See wall_clock.h: the real world, for the CLI and benchmarks only.
#include "sim/wall_clock.h"

#include <sys/random.h>
#include <unistd.h>

#include <chrono>

#include "base/hash.h"

namespace dst::sim {

uint64_t fresh_seed() {
  uint64_t seed = 0;
  if (::getrandom(&seed, sizeof seed, 0) == static_cast<ssize_t>(sizeof seed)) return seed;
  return mix64(static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()));
}

int64_t wall_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t unix_time_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void arm_wall_clock_alarm(unsigned seconds) { ::alarm(seconds); }

}  // namespace dst::sim
