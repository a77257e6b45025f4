// See parse_number.h. std::from_chars already refuses spaces and '+'; what it leaves to its caller
// (the parse end, the range error) is checked here once.
#include "base/parse_number.h"

#include <charconv>
#include <cmath>

namespace dst {

namespace {

template <typename T>
std::optional<T> whole(std::string_view text, int base) {
  if (text.empty()) return std::nullopt;
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<uint64_t> parse_u64(std::string_view text, int base) { return whole<uint64_t>(text, base); }
std::optional<int64_t> parse_i64(std::string_view text, int base) { return whole<int64_t>(text, base); }

std::optional<double> parse_double(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace dst
