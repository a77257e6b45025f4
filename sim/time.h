// Virtual time: integer nanoseconds since the start of the simulated world.
//
// Integers, not floating point or std::chrono clocks: time arithmetic must be exact and identical
// on every machine, and nothing here may be confused with the wall clock.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dst::sim {

using TimeNs = int64_t;      // an instant of virtual time, ns since the world started
using DurationNs = int64_t;  // a span of virtual time, ns

inline constexpr TimeNs kTimeNever = INT64_MAX;

constexpr DurationNs nanoseconds(int64_t n) { return n; }
constexpr DurationNs microseconds(int64_t n) { return n * 1'000; }
constexpr DurationNs milliseconds(int64_t n) { return n * 1'000'000; }
constexpr DurationNs seconds(int64_t n) { return n * 1'000'000'000; }

// "1.23456789s", "2.0s", "12.5ms", "250us", "17ns": for logs and reports (3 significant digits
// below a second, exact at and above).
std::string format_duration(DurationNs d);
// "12.345678901s": whole seconds and always nine decimals, for traces and exact logs.
std::string format_time(TimeNs t);
// "12.346s": seconds with `decimals` decimals, for fault logs a person scans.
std::string format_seconds(TimeNs t, int decimals = 3);
// Parses "250ms", "10s", "1.5s", "2m", "300us", "17ns" (a non-negative number and a unit).
// False on anything else, including overflow.
bool parse_duration(std::string_view text, DurationNs* out);

}  // namespace dst::sim

namespace dst::sim {
// A timeout that never expires.
inline constexpr DurationNs kForever = INT64_MAX;
}  // namespace dst::sim
