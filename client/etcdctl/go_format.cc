#include "client/etcdctl/go_format.h"

#include "base/parse_number.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace dst::etcdctl {

namespace {

// Length of the valid UTF-8 sequence starting at bytes[i], or 0 if it is not one. Overlong forms
// and surrogates are rejected, as Go's utf8.DecodeRune does.
size_t utf8_sequence_length(std::string_view bytes, size_t i) {
  const auto b0 = static_cast<uint8_t>(bytes[i]);
  size_t n = 0;
  uint32_t min = 0;
  uint32_t cp = 0;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2, min = 0x80, cp = b0 & 0x1f;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3, min = 0x800, cp = b0 & 0x0f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4, min = 0x10000, cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + n > bytes.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<uint8_t>(bytes[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

Status syntax_error(const char* fn, std::string_view text, const char* what) {
  return Status(StatusCode::kInvalidArgument,
                std::string("strconv.") + fn + ": parsing " + go_quote(text) + ": " + what);
}

}  // namespace

std::string go_quote(std::string_view bytes) {
  std::string out = "\"";
  for (size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<uint8_t>(bytes[i]);
    if (c >= 0x80) {
      if (size_t n = utf8_sequence_length(bytes, i); n > 0) {
        out.append(bytes.substr(i, n));
        i += n;
        continue;
      }
    }
    ++i;
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\a': out += "\\a"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\v': out += "\\v"; continue;
      default: break;
    }
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out + "\"";
}

namespace {

enum class Digits { kOk, kSyntax, kRange };

// strconv.ParseUint's scan of `digits` (no sign) in `base`: a bad character before the value
// overflows 64 bits is a syntax error; the overflow ends the scan (what follows is not looked at).
Digits parse_digits(std::string_view digits, int base, uint64_t* value) {
  DST_ASSERT(base == 10 || base == 16);
  if (digits.empty()) return Digits::kSyntax;
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  *value = 0;
  for (char ch : digits) {
    int d = -1;
    if (ch >= '0' && ch <= '9') d = ch - '0';
    if (base == 16 && ch >= 'a' && ch <= 'f') d = ch - 'a' + 10;
    if (base == 16 && ch >= 'A' && ch <= 'F') d = ch - 'A' + 10;
    if (d < 0) return Digits::kSyntax;  // Go allows underscores only with base 0
    if (*value > (max - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) return Digits::kRange;
    *value = *value * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return Digits::kOk;
}

}  // namespace

Result<int64_t> go_parse_int(std::string_view text, int base) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  // The magnitude as ParseUint reads it, then the int64 range (2^63 only for a negative value).
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t value = 0;
  const Digits d = parse_digits(digits, base, &value);
  if (d == Digits::kSyntax) return syntax_error("ParseInt", text, "invalid syntax");
  if (d == Digits::kRange || value > limit) return syntax_error("ParseInt", text, "value out of range");
  if (negative) return value == (uint64_t{1} << 63) ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(value);
  return static_cast<int64_t>(value);
}

Result<uint64_t> go_parse_uint(std::string_view text, int base) {
  uint64_t value = 0;
  switch (parse_digits(text, base, &value)) {
    case Digits::kSyntax: return syntax_error("ParseUint", text, "invalid syntax");
    case Digits::kRange: return syntax_error("ParseUint", text, "value out of range");
    case Digits::kOk: break;
  }
  return value;
}

Result<bool> go_parse_bool(std::string_view text) {
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"})
    if (text == t) return true;
  for (const char* f : {"0", "f", "F", "FALSE", "false", "False"})
    if (text == f) return false;
  return syntax_error("ParseBool", text, "invalid syntax");
}

std::string hex16(int64_t id) {
  const bool negative = id < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(id) : static_cast<uint64_t>(id);
  std::string digits = hex(magnitude);
  const size_t width = negative ? 15 : 16;
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return negative ? "-" + digits : digits;
}

std::string hex(uint64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(id));
  return buf;
}

std::string humanize_bytes(uint64_t bytes) {
  static const char* const kSizes[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  char buf[32];
  if (bytes < 10) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    return buf;
  }
  // The same floating-point steps as go-humanize, so values at unit boundaries round alike.
  const double s = static_cast<double>(bytes);
  const double e = std::floor(std::log(s) / std::log(1000.0));
  const double val = std::floor(s / std::pow(1000.0, e) * 10 + 0.5) / 10;
  std::snprintf(buf, sizeof buf, val < 10 ? "%.1f %s" : "%.0f %s", val, kSizes[static_cast<int>(e)]);
  return buf;
}

Result<int64_t> go_parse_duration(std::string_view text) {
  auto invalid = [&] {
    return Status(StatusCode::kInvalidArgument, "time: invalid duration " + go_quote(text));
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return int64_t{0};
  if (s.empty()) return invalid();
  struct Unit {
    std::string_view name;
    double ns;
  };
  static const Unit kUnits[] = {{"ns", 1},     {"us", 1e3},    {"\xc2\xb5s", 1e3}, {"\xce\xbcs", 1e3},
                                {"ms", 1e6},   {"s", 1e9},     {"m", 60e9},        {"h", 3600e9}};
  long double total = 0;
  while (!s.empty()) {
    size_t i = 0;
    while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) ++i;
    const std::string_view number = s.substr(0, i);
    if (number.empty() || number == "." || number.find('.') != number.rfind('.')) return invalid();
    s.remove_prefix(i);
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && !(s[u] >= '0' && s[u] <= '9')) ++u;
    const std::string_view unit = s.substr(0, u);
    if (unit.empty())
      return Status(StatusCode::kInvalidArgument, "time: missing unit in duration " + go_quote(text));
    const Unit* found = nullptr;
    for (const Unit& candidate : kUnits)
      if (candidate.name == unit) found = &candidate;
    if (found == nullptr)
      return Status(StatusCode::kInvalidArgument,
                    "time: unknown unit " + go_quote(unit) + " in duration " + go_quote(text));
    s.remove_prefix(u);
    // Whole and fraction apart, as Go's ParseDuration reads them: a double would round away the
    // nanoseconds of a large value ("123456789.123456789s").
    const size_t dot = number.find('.');
    const std::string_view whole = number.substr(0, dot);
    const std::string_view fraction = dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
    const std::optional<uint64_t> w = whole.empty() ? std::optional<uint64_t>(0) : parse_u64(whole);
    if (!w) return invalid();
    long double value = static_cast<long double>(*w), scale = 0.1L;
    for (char digit : fraction) value += (digit - '0') * scale, scale /= 10;
    total += value * found->ns;
    if (total > static_cast<long double>(std::numeric_limits<int64_t>::max())) return invalid();
  }
  const auto ns = static_cast<int64_t>(total + 0.5L);
  return negative ? -ns : ns;
}

namespace {

// "<whole>.<fraction>" of value / 10^digits, the fraction without trailing zeros (none if zero).
std::string decimal(uint64_t value, int digits) {
  uint64_t scale = 1;
  for (int i = 0; i < digits; ++i) scale *= 10;
  std::string fraction = std::to_string(value % scale);
  fraction.insert(0, static_cast<size_t>(digits) - fraction.size(), '0');
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  return std::to_string(value / scale) + (fraction.empty() ? "" : "." + fraction);
}

}  // namespace

std::string go_duration_string(int64_t ns) {
  if (ns == 0) return "0s";
  const std::string sign = ns < 0 ? "-" : "";
  // The magnitude of INT64_MIN does not fit an int64_t; it does a uint64_t.
  const uint64_t u = ns < 0 ? uint64_t{0} - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (u < 1000) return sign + std::to_string(u) + "ns";
  if (u < 1000000) return sign + decimal(u, 3) + "\xc2\xb5s";  // U+00B5, as Go writes it
  if (u < 1000000000) return sign + decimal(u, 6) + "ms";
  const uint64_t whole_seconds = u / 1000000000;
  const std::string seconds = decimal(u % 60000000000, 9) + "s";
  if (whole_seconds < 60) return sign + seconds;
  const uint64_t minutes = whole_seconds / 60;
  if (minutes < 60) return sign + std::to_string(minutes) + "m" + seconds;
  return sign + std::to_string(minutes / 60) + "h" + std::to_string(minutes % 60) + "m" + seconds;
}

}  // namespace dst::etcdctl
