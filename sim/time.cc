#include "sim/time.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace dst::sim {

std::string format_duration(DurationNs d) {
  char buf[64];
  const char* sign = d < 0 ? "-" : "";
  const uint64_t a = d < 0 ? uint64_t(0) - uint64_t(d) : uint64_t(d);
  // The cut-offs sit where rounding to 3 significant digits would print "1e+03" of the smaller
  // unit; from there on the larger unit is used.
  if (a >= 999'500'000) {
    std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%09" PRIu64 "s", sign, a / 1'000'000'000,
                  a % 1'000'000'000);
    // Trim trailing zeros of the fraction but keep at least one digit: "2.5s", "3.0s".
    std::string s(buf);
    size_t dot = s.find('.');
    size_t end = s.size() - 1;  // the 's'
    size_t last = end - 1;
    while (last > dot + 1 && s[last] == '0') --last;
    return s.substr(0, last + 1) + "s";
  }
  if (a >= 999'500) {
    std::snprintf(buf, sizeof buf, "%s%.3gms", sign, double(a) / 1e6);
  } else if (a >= 1'000) {
    std::snprintf(buf, sizeof buf, "%s%.3gus", sign, double(a) / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%s%" PRIu64 "ns", sign, a);
  }
  return buf;
}

std::string format_seconds(TimeNs t, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*fs", decimals, static_cast<double>(t) / 1e9);
  return buf;
}

std::string format_time(TimeNs t) {
  char buf[48];
  const char* sign = t < 0 ? "-" : "";
  const uint64_t a = t < 0 ? uint64_t(0) - uint64_t(t) : uint64_t(t);
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%09" PRIu64 "s", sign, a / 1'000'000'000,
                a % 1'000'000'000);
  return buf;
}

bool parse_duration(std::string_view text, DurationNs* out) {
  size_t i = 0;
  int64_t whole = 0;
  int64_t frac = 0, frac_scale = 1;
  bool digits = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, digits = true) {
    const int digit = text[i] - '0';
    if (whole > (INT64_MAX - digit) / 10) return false;
    whole = whole * 10 + digit;
  }
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, digits = true) {
      // 15 fractional digits resolve a nanosecond of every unit up to hours; beyond is ignored.
      if (frac_scale >= 1'000'000'000'000'000) continue;
      frac = frac * 10 + (text[i] - '0');
      frac_scale *= 10;
    }
  }
  if (!digits) return false;
  const std::string_view unit = text.substr(i);
  int64_t ns_per_unit;
  if (unit == "ns") ns_per_unit = 1;
  else if (unit == "us") ns_per_unit = 1'000;
  else if (unit == "ms") ns_per_unit = 1'000'000;
  else if (unit == "s") ns_per_unit = 1'000'000'000;
  else if (unit == "m") ns_per_unit = 60'000'000'000;
  else if (unit == "h") ns_per_unit = 3'600'000'000'000;
  else return false;
  if (whole > INT64_MAX / ns_per_unit) return false;
  const __int128 total = static_cast<__int128>(whole) * ns_per_unit + static_cast<__int128>(frac) * ns_per_unit / frac_scale;
  if (total > INT64_MAX) return false;
  *out = static_cast<DurationNs>(total);
  return true;
}

}  // namespace dst::sim
