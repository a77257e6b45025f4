// A constant table of an enum's values and their names, for flags, scenario fields and error
// messages: the name of a value, the value of a name (an error lists the valid names), and every
// value in table order. One table per enum keeps the names in one place.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/assert.h"
#include "base/status.h"

namespace dst {

template <typename E>
struct NamedValue {
  E value;
  std::string_view name;
};

template <typename E, size_t N>
std::string_view name_of(const NamedValue<E> (&table)[N], E value) {
  for (const NamedValue<E>& v : table)
    if (v.value == value) return v.name;
  DST_UNREACHABLE("a value missing from its name table");
}

// `what` names the kind in the error: "unknown raft bug 'x' (expected one of: a, b)".
template <typename E, size_t N>
Result<E> parse_named(const NamedValue<E> (&table)[N], std::string_view name, std::string_view what) {
  std::string valid;
  for (const NamedValue<E>& v : table) {
    if (v.name == name) return v.value;
    valid += valid.empty() ? "" : ", ";
    valid += v.name;
  }
  return Status(StatusCode::kInvalidArgument, "unknown " + std::string(what) + " '" + std::string(name) +
                                                  "' (expected one of: " + valid + ")");
}

template <typename E, size_t N>
std::vector<E> values_of(const NamedValue<E> (&table)[N]) {
  std::vector<E> out;
  out.reserve(N);
  for (const NamedValue<E>& v : table) out.push_back(v.value);
  return out;
}

}  // namespace dst
