// A strict, bounded JSON reader for histories other tools write (etcd's robustness reports:
// streams of pretty-printed objects, one after another, as Go's json.Encoder/MarshalIndent write
// them). RFC 8259 values; errors name the source, the line and what was expected. Bounded: nesting
// depth and the number of values are limited (below; a string is bounded by its input), so hostile
// input ends in an error, never a crash or a runaway allocation.
//
// Numbers keep their text: integers are read exactly as int64/uint64 (Go writes ids and times as
// integers up to 2^63 and 2^64), never through a double.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dst::json {

// Bounds on one document (or one stream).
inline constexpr size_t kDepthMax = 64;
// Values (scalars and containers) in one stream: ~100 bytes each in memory, so at most ~0.5 GB. A
// robustness report's operations.json holds thousands.
inline constexpr size_t kValuesMax = 5'000'000;

class Value {
 public:
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_object() const { return kind_ == Kind::kObject; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_number() const { return kind_ == Kind::kNumber; }
  bool is_bool() const { return kind_ == Kind::kBool; }

  bool as_bool() const;                    // kBool; asserts otherwise
  const std::string& as_string() const;    // kString: the decoded text (UTF-8)
  const std::string& number_text() const;  // kNumber: as written
  // kNumber written as an integer (no fraction or exponent) that fits; nullopt otherwise.
  std::optional<int64_t> as_int64() const;
  std::optional<uint64_t> as_uint64() const;
  const std::vector<Value>& items() const;  // kArray
  // kObject: members in the order written (a repeated name is an error at parse time).
  const std::vector<std::pair<std::string, Value>>& members() const;

  // kObject: the member named `name` (exact match), or nullptr; nullptr for other kinds too.
  const Value* find(std::string_view name) const;
  // As find, but ASCII case-insensitive when no exact match (Go's encoding/json decodes keys so).
  const Value* find_folded(std::string_view name) const;

  size_t line() const { return line_; }  // the line the value starts on (1-based)

  // Builders for the parser and tests.
  static Value null(size_t line = 0);
  static Value boolean(bool b, size_t line = 0);
  static Value number(std::string text, size_t line = 0);
  static Value string(std::string text, size_t line = 0);
  static Value array(std::vector<Value> items, size_t line = 0);
  static Value object(std::vector<std::pair<std::string, Value>> members, size_t line = 0);

 private:
  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  std::string text_;  // kNumber: as written; kString: decoded
  std::vector<Value> items_;
  std::vector<std::pair<std::string, Value>> members_;
  size_t line_ = 0;
};

// One JSON document: exactly one value, surrounded by whitespace only.
// `source` names the input in errors ("client-1/operations.json").
Result<Value> parse(std::string_view text, const std::string& source);

// A stream of JSON values one after another, separated by whitespace only (what Go's json.Encoder
// writes, and what json.Decoder with More() reads). An empty or all-whitespace text is an empty
// stream.
Result<std::vector<Value>> parse_stream(std::string_view text, const std::string& source);

}  // namespace dst::json
