// Deterministic randomness: our own generator and our own distributions.
//
// The standard library's engines are portable but its distributions are not (libstdc++ and libc++
// turn the same bits into different numbers), and libm's log/exp may differ in the last bit between
// CPUs (glibc picks FMA variants at run time). A seed must give the same run everywhere, so the
// generator (xoshiro256**), the integer reduction (Lemire's method) and the few transcendental
// functions the distributions need (det_log, det_exp) are written here with plain IEEE arithmetic.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "sim/time.h"

namespace dst::sim {

// log and exp built from +, -, *, / and exact scaling only, so they round identically on every
// IEEE-754 machine. Accurate to a few ulp: plenty for sampling, not a libm replacement.
double det_log(double x);  // x > 0
double det_exp(double x);

class Rng {
 public:
  // Seeds the four words of state from `seed` with splitmix64 (never all zero).
  explicit Rng(uint64_t seed);

  // A generator for the named sub-stream of `seed`: the same (seed, name) always gives the same
  // stream, and streams of different names are independent. Components draw from their own
  // sub-stream so that one drawing more numbers never reshuffles another's.
  static Rng substream(uint64_t seed, std::string_view name);

  uint64_t next_u64();

  // Uniform in [0, bound), bound > 0, without modulo bias.
  uint64_t uniform_u64(uint64_t bound);
  // Uniform in [lo, hi], inclusive, lo <= hi.
  int64_t uniform_int(int64_t lo, int64_t hi);
  // Uniform in [0, 1) with 53 random bits.
  double uniform_real();
  // Uniform in [lo, hi).
  double uniform_real(double lo, double hi);
  // True with probability p (p <= 0: never, p >= 1: always).
  bool bernoulli(double p);
  // Exponential with the given mean (> 0).
  double exponential(double mean);
  // Normal (Gaussian), Marsaglia's polar method.
  double normal(double mean, double stddev);
  // exp(normal(mu, sigma)): log-normal with median exp(mu).
  double lognormal(double mu, double sigma);
  // Pareto type I: scale x_m > 0, shape alpha > 0; heavy tail for latency spikes.
  double pareto(double scale, double shape);
  // An index in [0, weights.size()) chosen with probability proportional to its weight; weights
  // must not all be zero.
  size_t weighted_index(std::span<const uint64_t> weights);

 private:
  uint64_t s_[4];
  // Marsaglia's method makes two normals at once; the second is kept for the next call.
  bool has_spare_normal_ = false;
  double spare_normal_ = 0;
};

// A distribution of durations, as a value: configured on links and disks, printed in logs,
// sampled with an Rng. Samples are clamped to [min_ns, max_ns] and rounded to whole nanoseconds.
struct DurationDist {
  enum class Kind { kConstant, kUniform, kExponential, kNormal, kLogNormal, kPareto };
  Kind kind = Kind::kConstant;
  // Meaning by kind:  constant: a = value;  uniform: [a, b];  exponential: a = mean;
  // normal: a = mean, b = stddev;  lognormal: a = median, b = sigma (of the underlying normal);
  // pareto: a = scale (the minimum), b = shape alpha.  a and b are nanoseconds except sigma/alpha.
  double a = 0;
  double b = 0;
  DurationNs min_ns = 0;
  DurationNs max_ns = seconds(3600);

  static DurationDist constant(DurationNs value);
  static DurationDist uniform(DurationNs lo, DurationNs hi);
  static DurationDist exponential(DurationNs mean);
  static DurationDist normal(DurationNs mean, DurationNs stddev);
  static DurationDist lognormal(DurationNs median, double sigma);
  static DurationDist pareto(DurationNs scale, double shape);
  // Same distribution with its samples clamped to [lo, hi].
  DurationDist clamped(DurationNs lo, DurationNs hi) const;

  DurationNs sample(Rng& rng) const;
  // "lognormal(median=1ms, sigma=0.5) in [0ns, 1s]"
  std::string to_string() const;
};

}  // namespace dst::sim
