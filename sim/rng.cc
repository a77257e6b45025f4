// The simulation's only source of randomness: xoshiro256** plus distributions built on it.
//
// Every number drawn here must be bit-identical on every machine for a given seed, so nothing below
// calls libm's transcendental functions or the standard library's distributions (see sim/rng.h).
// Only +, -, *, /, std::sqrt (correctly rounded by IEEE-754) and exact scaling (frexp, ldexp, floor)
// are used; the build turns off FMA contraction (-ffp-contract=off) so each operation rounds once.
#include "sim/rng.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "base/assert.h"
#include "base/hash.h"

namespace dst::sim {

namespace {

// ---------------------------------------------------------------------------------------------
// det_log / det_exp helpers
// ---------------------------------------------------------------------------------------------

// ln 2 split so that k * kLn2Hi is exact for every binary exponent k (kLn2Hi has 32 trailing zero
// bits), while kLn2Lo carries the rest; the classic fdlibm constants.
constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3fe62e42fee00000
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3dea39ef35793c76
constexpr double kInvLn2 = 1.44269504088896338700e+00;
constexpr double kSqrtHalf = 0.70710678118654752440;

// exp(x) overflows above this and is below half the smallest subnormal under the other.
constexpr double kExpOverflow = 7.09782712893383973096e+02;
constexpr double kExpUnderflow = -7.45133219101941108420e+02;

// R(z) = 2z/3 + 2z^2/5 + ... + 2z^11/23, the tail of log(1+f) = 2s + s*R(s^2), s = f/(2+f).
// With |s| <= 0.1716 (z <= 0.0295) the first omitted term is below 1e-19 relative.
double log_series_tail(double z) {
  double p = 2.0 / 23;
  p = p * z + 2.0 / 21;
  p = p * z + 2.0 / 19;
  p = p * z + 2.0 / 17;
  p = p * z + 2.0 / 15;
  p = p * z + 2.0 / 13;
  p = p * z + 2.0 / 11;
  p = p * z + 2.0 / 9;
  p = p * z + 2.0 / 7;
  p = p * z + 2.0 / 5;
  p = p * z + 2.0 / 3;
  return p * z;
}

// exp(r) - 1 - r for |r| <= ~0.35, as a Taylor polynomial through r^15 / 15! (next term < 1e-20).
// The factorials up to 15! are exact doubles, so each coefficient is a single correct rounding.
double exp_series_tail(double r) {
  constexpr double kFact[] = {1.0,          1.0,           2.0,           6.0,
                              24.0,         120.0,         720.0,         5040.0,
                              40320.0,      362880.0,      3628800.0,     39916800.0,
                              479001600.0,  6227020800.0,  87178291200.0, 1307674368000.0};
  double p = 1.0 / kFact[15];
  for (int n = 14; n >= 2; --n) p = p * r + 1.0 / kFact[n];
  return p * r * r;
}

// ---------------------------------------------------------------------------------------------
// Rng helpers
// ---------------------------------------------------------------------------------------------

constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// The high and low halves of the 128-bit product a * b. __extension__ keeps -Wpedantic quiet.
__extension__ typedef unsigned __int128 U128;
struct Product {
  uint64_t hi;
  uint64_t lo;
};
Product mul_64x64(uint64_t a, uint64_t b) {
  const U128 p = static_cast<U128>(a) * b;
  return {static_cast<uint64_t>(p >> 64), static_cast<uint64_t>(p)};
}

// ---------------------------------------------------------------------------------------------
// DurationDist helpers
// ---------------------------------------------------------------------------------------------

// Rounds a sample in (double) nanoseconds to the nearest whole nanosecond inside [lo, hi]. NaN
// (only a bug could produce it) goes to lo; infinities and out-of-range values saturate, which
// also keeps the conversion to int64 defined.
DurationNs round_clamp(double x, DurationNs lo, DurationNs hi) {
  if (std::isnan(x) || x <= static_cast<double>(lo)) return lo;
  if (x >= static_cast<double>(hi)) return hi;
  // Here lo < x < hi <= 2^63 as doubles, so x fits an int64 after rounding.
  return std::clamp<DurationNs>(std::llround(x), lo, hi);
}

// The full int64 range, for converting parameters (stored as doubles) back to integers safely.
DurationNs to_ns(double x) {
  return round_clamp(x, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
}

std::string fmt_ns(double x) { return format_duration(to_ns(x)); }

// Shape parameters are printed with %g: short ("0.5", "1.5") and correctly rounded by printf.
std::string fmt_real(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// det_log / det_exp
// ---------------------------------------------------------------------------------------------

// x = m * 2^k with m in [sqrt(1/2), sqrt(2)), so log x = k ln2 + log(1+f), f = m - 1 (exact by
// Sterbenz). log(1+f) is evaluated as f - (f^2/2 - s(f^2/2 + R)) (fdlibm's arrangement), which
// keeps the exactly-known f as the leading term and confines rounding to a small correction.
double det_log(double x) {
  DST_ASSERT_MSG(x > 0, "det_log needs a positive argument");
  if (x == std::numeric_limits<double>::infinity()) return x;
  int k = 0;
  double m = std::frexp(x, &k);  // m in [0.5, 1); exact, subnormals included
  if (m < kSqrtHalf) {
    m *= 2;
    --k;
  }
  const double f = m - 1;
  const double s = f / (2 + f);
  const double hfsq = 0.5 * f * f;
  const double r = log_series_tail(s * s);
  const double dk = k;
  return dk * kLn2Hi - ((hfsq - (s * (hfsq + r) + dk * kLn2Lo)) - f);
}

// exp x = 2^k * exp(r) with x = k ln2 + r, |r| <= ln2/2 (ln2 split so that r is nearly exact).
double det_exp(double x) {
  if (std::isnan(x)) return x;
  if (x > kExpOverflow) return std::numeric_limits<double>::infinity();
  if (x < kExpUnderflow) return 0.0;
  const double dk = std::floor(x * kInvLn2 + 0.5);
  const double r = (x - dk * kLn2Hi) - dk * kLn2Lo;
  const double er = 1.0 + (r + exp_series_tail(r));
  return std::ldexp(er, static_cast<int>(dk));
}

// ---------------------------------------------------------------------------------------------
// Rng
// ---------------------------------------------------------------------------------------------

// mix64(seed + i * golden) is exactly splitmix64's i-th output from state `seed`. mix64 is a
// bijection and the four inputs differ, so at most one word can be zero: the state never is.
Rng::Rng(uint64_t seed) {
  for (int i = 0; i < 4; ++i) s_[i] = mix64(seed + static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ULL);
}

// hash_combine mixes both inputs fully, so nearby seeds or similar names give unrelated streams.
Rng Rng::substream(uint64_t seed, std::string_view name) {
  return Rng(hash_combine(mix64(seed), hash_bytes(name)));
}

// xoshiro256** (Blackman & Vigna), reference algorithm.
uint64_t Rng::next_u64() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

// Lemire's nearly-divisionless method: the high word of x * bound is uniform in [0, bound) once
// the few low words below 2^64 mod bound are rejected; the division runs only when rejection is
// possible at all.
uint64_t Rng::uniform_u64(uint64_t bound) {
  DST_ASSERT_MSG(bound > 0, "uniform_u64 needs a positive bound");
  Product p = mul_64x64(next_u64(), bound);
  if (p.lo < bound) {
    const uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    while (p.lo < threshold) p = mul_64x64(next_u64(), bound);
  }
  return p.hi;
}

// Works in uint64 so hi - lo cannot overflow; the full int64 range (2^64 values) is raw bits.
int64_t Rng::uniform_int(int64_t lo, int64_t hi) {
  DST_ASSERT_MSG(lo <= hi, "uniform_int needs lo <= hi");
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == std::numeric_limits<uint64_t>::max()) return static_cast<int64_t>(next_u64());
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + uniform_u64(span + 1));
}

double Rng::uniform_real() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

// lo + (hi - lo) * u can round up to hi when u is close to 1; step back inside the half-open range.
double Rng::uniform_real(double lo, double hi) {
  DST_ASSERT_MSG(lo <= hi, "uniform_real needs lo <= hi");
  const double x = lo + (hi - lo) * uniform_real();
  return (x < hi || lo == hi) ? x : std::nextafter(hi, lo);
}

// Always draws, so changing p (say from 0 to 0.01) does not shift the rest of the stream.
bool Rng::bernoulli(double p) {
  DST_ASSERT_MSG(!std::isnan(p), "bernoulli probability is NaN");
  const double u = uniform_real();
  return u < p;  // p <= 0: never (u >= 0); p >= 1: always (u < 1)
}

// Inverse transform. 1 - u is exact and lies in (0, 1], so det_log never sees 0; the 0.0 - log
// form gives +0 rather than -0 when u == 0.
double Rng::exponential(double mean) {
  DST_ASSERT_MSG(mean > 0, "exponential mean must be positive");
  return mean * (0.0 - det_log(1.0 - uniform_real()));
}

double Rng::normal(double mean, double stddev) {
  DST_ASSERT_MSG(stddev >= 0, "normal stddev must be non-negative");
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return mean + stddev * spare_normal_;
  }
  double u = 0;
  double v = 0;
  double s = 0;
  do {  // a uniform point in the unit disc, excluding the origin (log 0)
    u = 2.0 * uniform_real() - 1.0;
    v = 2.0 * uniform_real() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * det_log(s) / s);
  spare_normal_ = v * factor;
  has_spare_normal_ = true;
  return mean + stddev * (u * factor);
}

double Rng::lognormal(double mu, double sigma) { return det_exp(normal(mu, sigma)); }

// Inverse transform: scale / (1 - u)^(1/shape), with the power written as exp(-log(1-u)/shape).
double Rng::pareto(double scale, double shape) {
  DST_ASSERT_MSG(scale > 0, "pareto scale must be positive");
  DST_ASSERT_MSG(shape > 0, "pareto shape must be positive");
  return scale * det_exp((0.0 - det_log(1.0 - uniform_real())) / shape);
}

// One exact integer draw over the total weight, then a linear walk: no floating point involved.
size_t Rng::weighted_index(std::span<const uint64_t> weights) {
  uint64_t total = 0;
  for (uint64_t w : weights) {
    DST_ASSERT_MSG(w <= std::numeric_limits<uint64_t>::max() - total,
                   "weighted_index: the sum of the weights overflows uint64");
    total += w;
  }
  DST_ASSERT_MSG(total > 0, "weighted_index: the weights are all zero (or there are none)");
  uint64_t r = uniform_u64(total);
  for (size_t i = 0;; ++i) {
    if (r < weights[i]) return i;
    r -= weights[i];
  }
}

// ---------------------------------------------------------------------------------------------
// DurationDist
// ---------------------------------------------------------------------------------------------

DurationDist DurationDist::constant(DurationNs value) {
  DST_ASSERT_MSG(value >= 0, "DurationDist::constant: the value must be non-negative");
  DurationDist d;
  d.kind = Kind::kConstant;
  d.a = static_cast<double>(value);
  return d;
}

DurationDist DurationDist::uniform(DurationNs lo, DurationNs hi) {
  DST_ASSERT_MSG(lo >= 0 && lo <= hi, "DurationDist::uniform: needs 0 <= lo <= hi");
  DurationDist d;
  d.kind = Kind::kUniform;
  d.a = static_cast<double>(lo);
  d.b = static_cast<double>(hi);
  return d;
}

// A mean of 0 is allowed and means "always 0": a natural way to configure no delay.
DurationDist DurationDist::exponential(DurationNs mean) {
  DST_ASSERT_MSG(mean >= 0, "DurationDist::exponential: the mean must be non-negative");
  DurationDist d;
  d.kind = Kind::kExponential;
  d.a = static_cast<double>(mean);
  return d;
}

DurationDist DurationDist::normal(DurationNs mean, DurationNs stddev) {
  DST_ASSERT_MSG(mean >= 0, "DurationDist::normal: the mean must be non-negative");
  DST_ASSERT_MSG(stddev >= 0, "DurationDist::normal: the stddev must be non-negative");
  DurationDist d;
  d.kind = Kind::kNormal;
  d.a = static_cast<double>(mean);
  d.b = static_cast<double>(stddev);
  return d;
}

// The median must be positive: its log is the mean of the underlying normal.
DurationDist DurationDist::lognormal(DurationNs median, double sigma) {
  DST_ASSERT_MSG(median > 0, "DurationDist::lognormal: the median must be positive");
  DST_ASSERT_MSG(sigma >= 0 && std::isfinite(sigma),
                 "DurationDist::lognormal: sigma must be finite and non-negative");
  DurationDist d;
  d.kind = Kind::kLogNormal;
  d.a = static_cast<double>(median);
  d.b = sigma;
  return d;
}

DurationDist DurationDist::pareto(DurationNs scale, double shape) {
  DST_ASSERT_MSG(scale > 0, "DurationDist::pareto: the scale must be positive");
  DST_ASSERT_MSG(shape > 0 && std::isfinite(shape),
                 "DurationDist::pareto: the shape must be finite and positive");
  DurationDist d;
  d.kind = Kind::kPareto;
  d.a = static_cast<double>(scale);
  d.b = shape;
  return d;
}

DurationDist DurationDist::clamped(DurationNs lo, DurationNs hi) const {
  DST_ASSERT_MSG(lo >= 0 && lo <= hi, "DurationDist::clamped: needs 0 <= lo <= hi");
  DurationDist d = *this;
  d.min_ns = lo;
  d.max_ns = hi;
  return d;
}

// Each kind draws in double nanoseconds; round_clamp then makes it a whole duration in range.
// Degenerate parameters (exponential mean 0) return without drawing.
DurationNs DurationDist::sample(Rng& rng) const {
  DST_ASSERT_MSG(min_ns <= max_ns, "DurationDist: min_ns > max_ns");
  double x = 0;
  switch (kind) {
    case Kind::kConstant:
      x = a;
      break;
    case Kind::kUniform:
      return std::clamp<DurationNs>(rng.uniform_int(to_ns(a), to_ns(b)), min_ns, max_ns);
    case Kind::kExponential:
      x = a > 0 ? rng.exponential(a) : 0.0;
      break;
    case Kind::kNormal:
      x = rng.normal(a, b);
      break;
    case Kind::kLogNormal:
      x = rng.lognormal(det_log(a), b);
      break;
    case Kind::kPareto:
      x = rng.pareto(a, b);
      break;
  }
  return round_clamp(x, min_ns, max_ns);
}

std::string DurationDist::to_string() const {
  std::string s;
  switch (kind) {
    case Kind::kConstant:
      s = "constant(" + fmt_ns(a) + ")";
      break;
    case Kind::kUniform:
      s = "uniform(" + fmt_ns(a) + ", " + fmt_ns(b) + ")";
      break;
    case Kind::kExponential:
      s = "exponential(mean=" + fmt_ns(a) + ")";
      break;
    case Kind::kNormal:
      s = "normal(mean=" + fmt_ns(a) + ", stddev=" + fmt_ns(b) + ")";
      break;
    case Kind::kLogNormal:
      s = "lognormal(median=" + fmt_ns(a) + ", sigma=" + fmt_real(b) + ")";
      break;
    case Kind::kPareto:
      s = "pareto(scale=" + fmt_ns(a) + ", shape=" + fmt_real(b) + ")";
      break;
  }
  // The default clamp is not worth printing; a configured one changes the distribution.
  if (min_ns != 0 || max_ns != seconds(3600)) {
    s += " in [" + format_duration(min_ns) + ", " + format_duration(max_ns) + "]";
  }
  return s;
}

}  // namespace dst::sim
