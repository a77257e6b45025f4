// The one number parser of dst. Every reader of numbers (command-line flags, scenario and schedule
// files, run databases, result files, other tools' histories, etcd's server flags) parses through
// here, with one rule: the whole text is the number, in the given base, with no leading spaces, no
// '+', no trailing characters, and within the type's range. A '-' is accepted for signed types
// only. (ci/check-number-parsers.sh fails on a strtoull/stoul/from_chars/... anywhere else.)
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace dst {

std::optional<uint64_t> parse_u64(std::string_view text, int base = 10);
std::optional<int64_t> parse_i64(std::string_view text, int base = 10);
// A finite decimal floating-point number ("1.5", "-2", "1e3"; not "inf", "nan", " 1", "+1").
std::optional<double> parse_double(std::string_view text);

// An unsigned integer of type T, range-checked.
template <typename T>
std::optional<T> parse_unsigned(std::string_view text, int base = 10) {
  static_assert(std::numeric_limits<T>::is_integer && !std::numeric_limits<T>::is_signed);
  const std::optional<uint64_t> v = parse_u64(text, base);
  if (!v || *v > std::numeric_limits<T>::max()) return std::nullopt;
  return static_cast<T>(*v);
}

// A signed integer of type T, range-checked.
template <typename T>
std::optional<T> parse_signed(std::string_view text, int base = 10) {
  static_assert(std::numeric_limits<T>::is_integer && std::numeric_limits<T>::is_signed);
  const std::optional<int64_t> v = parse_i64(text, base);
  if (!v || *v > std::numeric_limits<T>::max() || *v < std::numeric_limits<T>::min()) return std::nullopt;
  return static_cast<T>(*v);
}

}  // namespace dst
