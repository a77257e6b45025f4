#include "base/json_value.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <utility>

namespace dst::json {
namespace {

const char* kind_name(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kNull: return "null";
    case Value::Kind::kBool: return "a boolean";
    case Value::Kind::kNumber: return "a number";
    case Value::Kind::kString: return "a string";
    case Value::Kind::kArray: return "an array";
    case Value::Kind::kObject: return "an object";
  }
  return "an unknown kind";
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equal_folded(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

// The outcome of scanning a number: its length when valid, otherwise what was expected and where.
struct NumberScan {
  size_t length = 0;
  const char* expected = nullptr;  // non-null: the text is not a number
  size_t error_at = 0;
};

// The RFC 8259 number grammar at the start of `text`:
//   -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
// Shared by the parser and Value::number(), so a built number obeys the same rules as a read one
// (as_int64 and as_uint64 rely on it).
NumberScan scan_number(std::string_view text) {
  size_t i = 0;
  const auto skip_digits = [&] {
    const size_t start = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    return i - start;
  };
  if (i < text.size() && text[i] == '-') ++i;
  if (i >= text.size() || !is_digit(text[i])) return {0, "a digit in a number", i};
  if (text[i] == '0') {
    ++i;
    // "01" is not JSON; reading it as 1 (or as octal) would silently change the value.
    if (i < text.size() && is_digit(text[i])) return {0, "no digit after a leading 0 in a number", i};
  } else {
    skip_digits();
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (skip_digits() == 0) return {0, "a digit after '.' in a number", i};
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (skip_digits() == 0) return {0, "a digit in a number's exponent", i};
  }
  return {i, nullptr, 0};
}

// The magnitude of an integer's digits, exactly; nullopt for a fraction, an exponent, or more than
// uint64 holds.
std::optional<uint64_t> integer_magnitude(std::string_view digits) {
  uint64_t value = 0;
  for (char c : digits) {
    if (!is_digit(c)) return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// The length of the well-formed UTF-8 sequence starting at text[i], or 0 when it is not one:
// overlong forms, UTF-16 surrogates and code points past U+10FFFF are rejected (Unicode 15,
// table 3-7), since downstream code compares and prints these strings as UTF-8.
size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;  // overlong below U+0800
    if (lead == 0xED) second_max = 0x9F;  // surrogates U+D800..U+DFFF
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;  // overlong below U+10000
    if (lead == 0xF4) second_max = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (text.size() - i < length) return 0;
  if (byte(i + 1) < second_min || byte(i + 1) > second_max) return 0;
  for (size_t k = 2; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  return length;
}

void append_utf8(uint32_t code_point, std::string* out) {
  if (code_point < 0x80) {
    out->push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

std::string hex_unit(uint32_t unit) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(unit));
  return buf;
}

// A member name as an error message shows it: quoted, control bytes escaped, and cut short (at a
// UTF-8 boundary) so a hostile megabyte-long name does not become a megabyte-long message.
std::string quote_name(std::string_view name) {
  constexpr size_t kShownMax = 60;
  size_t shown = name.size();
  if (shown > kShownMax) {
    shown = kShownMax;
    while (shown > 0 && (static_cast<unsigned char>(name[shown]) & 0xC0) == 0x80) --shown;
  }
  std::string out = "\"";
  for (size_t i = 0; i < shown; ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7F) {
      out += hex_unit(c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out += shown < name.size() ? "...\"" : "\"";
  return out;
}

using Members = std::vector<std::pair<std::string, Value>>;

// The index of the first member (in written order) whose name an earlier member already has, or
// npos. Small objects (all of Go's structs) compare pairwise without allocating; big ones sort, so
// a hostile object with a million members is not a trillion comparisons.
size_t first_repeated_name(const Members& members) {
  constexpr size_t kPairwiseMax = 16;
  const size_t n = members.size();
  if (n <= kPairwiseMax) {
    for (size_t i = 1; i < n; ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (members[i].first == members[j].first) return i;
      }
    }
    return std::string::npos;
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  // Stable: equal names stay in written order, so each run's later entries are the repeats.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return members[a].first < members[b].first; });
  size_t first = std::string::npos;
  for (size_t k = 1; k < n; ++k) {
    if (members[order[k]].first == members[order[k - 1]].first) first = std::min(first, order[k]);
  }
  return first;
}

bool can_start_value(char c) {
  return c == '{' || c == '[' || c == '"' || c == '-' || is_digit(c) || c == 't' || c == 'f' ||
         c == 'n';
}

// Reads one text. Every method that fails returns the Status to hand back unchanged; the position
// is then meaningless. The line is counted as whitespace is skipped (a raw line break can appear
// nowhere else in valid JSON), so no error ever re-scans the text to find its line.
class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  Status parse_document(Value* out);
  Status parse_values(std::vector<Value>* out);

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_space();

  Status error(std::string_view expected, std::string_view found) const;
  Status error_at_line(size_t line, std::string_view expected, std::string_view found) const;
  std::string describe_found() const;
  std::string describe_word() const;

  Status parse_value(size_t depth, Value* out);
  Status parse_literal(Value* out);
  Status parse_number(Value* out);
  Status parse_string_value(Value* out);
  Status parse_array(size_t depth, Value* out);
  Status parse_object(size_t depth, Value* out);
  Status parse_member(size_t depth, std::pair<std::string, Value>* out);
  Status parse_string(std::string* out);
  Status parse_escape(std::string* out);
  Status parse_unicode_escape(std::string* out);
  Status read_hex4(uint32_t* unit);

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t values_ = 0;
};

void Parser::skip_space() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '\n') {
      ++line_;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      return;
    }
    ++pos_;
  }
}

Status Parser::error(std::string_view expected, std::string_view found) const {
  return error_at_line(line_, expected, found);
}

Status Parser::error_at_line(size_t line, std::string_view expected, std::string_view found) const {
  std::string message = source_ + ":" + std::to_string(line) + ": expected ";
  message.append(expected);
  message += ", found ";
  message.append(found);
  return Status(StatusCode::kInvalidArgument, std::move(message));
}

// The byte at the position, as a message shows it.
std::string Parser::describe_found() const {
  if (at_end()) return "the end of the input";
  const unsigned char c = static_cast<unsigned char>(text_[pos_]);
  if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02X", static_cast<unsigned>(c));
  return buf;
}

// As describe_found, but a run of letters is shown whole ('NaN', 'Infinity', 'tru'), which says
// more than its first letter where a value was expected.
std::string Parser::describe_word() const {
  constexpr size_t kShownMax = 16;
  size_t end = pos_;
  while (end < text_.size() && end - pos_ < kShownMax && is_ascii_letter(text_[end])) ++end;
  if (end == pos_) return describe_found();
  return "'" + std::string(text_.substr(pos_, end - pos_)) + "'";
}

Status Parser::parse_document(Value* out) {
  skip_space();
  if (at_end()) return error("a JSON value", "an empty text");
  Status status = parse_value(0, out);
  if (!status.is_ok()) return status;
  skip_space();
  if (!at_end()) return error("the end of the text after the value", describe_word());
  return Status::ok();
}

Status Parser::parse_values(std::vector<Value>* out) {
  skip_space();
  while (!at_end()) {
    // Values may touch ("{}{}"), as Go's json.Decoder allows; anything else between them is not
    // a stream (a comma there usually means the file is one JSON array written without brackets).
    if (!out->empty() && !can_start_value(peek())) {
      return error("whitespace or the next value after a value of the stream", describe_word());
    }
    out->emplace_back();
    Status status = parse_value(0, &out->back());
    if (!status.is_ok()) return status;
    skip_space();
  }
  return Status::ok();
}

// `depth` counts the arrays and objects enclosing the value. Kept small: the large locals live in
// the per-kind functions, so the recursion (bounded by kDepthMax) costs little stack.
Status Parser::parse_value(size_t depth, Value* out) {
  if (++values_ > kValuesMax) {
    return error("at most " + std::to_string(kValuesMax) + " values in one text", "more");
  }
  switch (peek()) {
    case '{': return parse_object(depth + 1, out);
    case '[': return parse_array(depth + 1, out);
    case '"': return parse_string_value(out);
    case 't':
    case 'f':
    case 'n': return parse_literal(out);
    default: break;
  }
  if (peek() == '-' || is_digit(peek())) return parse_number(out);
  return error("a value", describe_word());
}

// true, false or null.
Status Parser::parse_literal(Value* out) {
  const std::string_view rest = text_.substr(pos_);
  std::string_view word;
  if (rest.starts_with("true")) {
    word = "true";
    *out = Value::boolean(true, line_);
  } else if (rest.starts_with("false")) {
    word = "false";
    *out = Value::boolean(false, line_);
  } else if (rest.starts_with("null")) {
    word = "null";
    *out = Value::null(line_);
  } else {
    return error("a value", describe_word());
  }
  pos_ += word.size();
  return Status::ok();
}

Status Parser::parse_number(Value* out) {
  const NumberScan scan = scan_number(text_.substr(pos_));
  if (scan.expected != nullptr) {
    pos_ += scan.error_at;
    return error(scan.expected, describe_found());
  }
  *out = Value::number(std::string(text_.substr(pos_, scan.length)), line_);
  pos_ += scan.length;
  return Status::ok();
}

Status Parser::parse_string_value(Value* out) {
  const size_t line = line_;
  std::string text;
  Status status = parse_string(&text);
  if (!status.is_ok()) return status;
  *out = Value::string(std::move(text), line);
  return Status::ok();
}

Status Parser::parse_array(size_t depth, Value* out) {
  if (depth > kDepthMax) {
    return error("at most " + std::to_string(kDepthMax) + " nested arrays and objects", "deeper nesting");
  }
  const size_t line = line_;
  ++pos_;  // '['
  std::vector<Value> items;
  skip_space();
  if (peek() == ']') {
    ++pos_;
    *out = Value::array(std::move(items), line);
    return Status::ok();
  }
  while (true) {
    skip_space();
    if (!items.empty() && peek() == ']') return error("a value after ',' in an array", "']'");
    items.emplace_back();
    Status status = parse_value(depth, &items.back());
    if (!status.is_ok()) return status;
    skip_space();
    if (peek() == ']') break;
    if (peek() != ',') return error("',' or ']' after an array element", describe_found());
    ++pos_;
  }
  ++pos_;  // ']'
  *out = Value::array(std::move(items), line);
  return Status::ok();
}

Status Parser::parse_object(size_t depth, Value* out) {
  if (depth > kDepthMax) {
    return error("at most " + std::to_string(kDepthMax) + " nested arrays and objects", "deeper nesting");
  }
  const size_t line = line_;
  ++pos_;  // '{'
  Members members;
  skip_space();
  if (peek() != '}') {
    while (true) {
      skip_space();
      if (peek() != '"') {
        return error(members.empty() ? "a member name (a string) or '}'" : "a member name (a string) after ','",
                     describe_word());
      }
      members.emplace_back();
      Status status = parse_member(depth, &members.back());
      if (!status.is_ok()) return status;
      skip_space();
      if (peek() == '}') break;
      if (peek() != ',') return error("',' or '}' after an object member", describe_found());
      ++pos_;
    }
  }
  ++pos_;  // '}'
  // Checked once the object is read (see first_repeated_name); the line reported is that of the
  // repeated member's value, which is the name's line in any sane layout.
  const size_t repeated = first_repeated_name(members);
  if (repeated != std::string::npos) {
    return error_at_line(members[repeated].second.line(), "unique member names in an object",
                         quote_name(members[repeated].first) + " again");
  }
  *out = Value::object(std::move(members), line);
  return Status::ok();
}

// `"name": value`, at the opening quote of the name.
Status Parser::parse_member(size_t depth, std::pair<std::string, Value>* out) {
  Status status = parse_string(&out->first);
  if (!status.is_ok()) return status;
  skip_space();
  if (peek() != ':') return error("':' after a member name", describe_found());
  ++pos_;
  skip_space();
  return parse_value(depth, &out->second);
}

// At the opening quote; decodes escapes into `out` and validates UTF-8. Runs of bytes that need no
// decoding are appended whole, so a long string costs one append, not one per byte.
Status Parser::parse_string(std::string* out) {
  ++pos_;  // '"'
  while (true) {
    size_t end = pos_;
    while (end < text_.size()) {
      const unsigned char c = static_cast<unsigned char>(text_[end]);
      if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
        ++end;
      } else if (c >= 0x80) {
        const size_t length = utf8_sequence_length(text_, end);
        if (length == 0) break;
        end += length;
      } else {
        break;
      }
    }
    out->append(text_.data() + pos_, end - pos_);
    pos_ = end;
    if (at_end()) return error("'\"' to end the string", "the end of the input");
    const unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c == '"') {
      ++pos_;
      return Status::ok();
    }
    if (c == '\\') {
      Status status = parse_escape(out);
      if (!status.is_ok()) return status;
      continue;
    }
    if (c < 0x20) return error("control characters in a string escaped (\\n, \\u0001)", describe_found());
    return error("valid UTF-8 in a string", describe_found());
  }
}

// At the backslash.
Status Parser::parse_escape(std::string* out) {
  ++pos_;
  char decoded = 0;
  switch (peek()) {
    case '"': decoded = '"'; break;
    case '\\': decoded = '\\'; break;
    case '/': decoded = '/'; break;
    case 'b': decoded = '\b'; break;
    case 'f': decoded = '\f'; break;
    case 'n': decoded = '\n'; break;
    case 'r': decoded = '\r'; break;
    case 't': decoded = '\t'; break;
    case 'u': return parse_unicode_escape(out);
    default: return error("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u in a string", describe_found());
  }
  out->push_back(decoded);
  ++pos_;
  return Status::ok();
}

// At the 'u' of \uXXXX. A code point past U+FFFF is a surrogate pair (\uD83D\uDE00); either half
// alone is no character and has no UTF-8 form, so it is an error rather than a replacement.
Status Parser::parse_unicode_escape(std::string* out) {
  uint32_t unit = 0;
  Status status = read_hex4(&unit);
  if (!status.is_ok()) return status;
  if (unit >= 0xDC00 && unit <= 0xDFFF) {
    return error("a high surrogate (\\uD800-\\uDBFF) before a low one", "a lone " + hex_unit(unit));
  }
  if (unit >= 0xD800 && unit <= 0xDBFF) {
    const std::string expected = "a low surrogate (\\uDC00-\\uDFFF) after " + hex_unit(unit);
    if (text_.substr(pos_, 2) != "\\u") return error(expected, describe_found());
    ++pos_;  // the backslash; read_hex4 skips the 'u'
    uint32_t low = 0;
    status = read_hex4(&low);
    if (!status.is_ok()) return status;
    if (low < 0xDC00 || low > 0xDFFF) return error(expected, hex_unit(low));
    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
  }
  append_utf8(unit, out);
  return Status::ok();
}

// At the 'u'; leaves the position after the fourth hex digit.
Status Parser::read_hex4(uint32_t* unit) {
  ++pos_;
  *unit = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = peek();
    uint32_t digit = 0;
    if (is_digit(c)) {
      digit = static_cast<uint32_t>(c - '0');
    } else if (ascii_lower(c) >= 'a' && ascii_lower(c) <= 'f') {
      digit = static_cast<uint32_t>(ascii_lower(c) - 'a' + 10);
    } else {
      return error("4 hex digits after \\u", describe_found());
    }
    *unit = *unit * 16 + digit;
    ++pos_;
  }
  return Status::ok();
}

}  // namespace

bool Value::as_bool() const {
  DST_ASSERT_MSG(kind_ == Kind::kBool, std::string("as_bool on ") + kind_name(kind_));
  return bool_;
}

const std::string& Value::as_string() const {
  DST_ASSERT_MSG(kind_ == Kind::kString, std::string("as_string on ") + kind_name(kind_));
  return text_;
}

const std::string& Value::number_text() const {
  DST_ASSERT_MSG(kind_ == Kind::kNumber, std::string("number_text on ") + kind_name(kind_));
  return text_;
}

std::optional<int64_t> Value::as_int64() const {
  const std::string& text = number_text();
  const bool negative = !text.empty() && text[0] == '-';
  const std::optional<uint64_t> magnitude = integer_magnitude(std::string_view(text).substr(negative ? 1 : 0));
  if (!magnitude) return std::nullopt;
  constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;  // |INT64_MIN|
  if (negative) {
    if (*magnitude > kMinMagnitude) return std::nullopt;
    // Negating in uint64 (modular) then converting is exact for every magnitude up to 2^63.
    return static_cast<int64_t>(~*magnitude + 1);
  }
  if (*magnitude > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(*magnitude);
}

std::optional<uint64_t> Value::as_uint64() const {
  const std::string& text = number_text();
  if (!text.empty() && text[0] == '-') {
    // "-0" is zero, which fits; any other negative integer does not.
    const std::optional<uint64_t> magnitude = integer_magnitude(std::string_view(text).substr(1));
    if (magnitude && *magnitude == 0) return 0;
    return std::nullopt;
  }
  return integer_magnitude(text);
}

const std::vector<Value>& Value::items() const {
  DST_ASSERT_MSG(kind_ == Kind::kArray, std::string("items on ") + kind_name(kind_));
  return items_;
}

const std::vector<std::pair<std::string, Value>>& Value::members() const {
  DST_ASSERT_MSG(kind_ == Kind::kObject, std::string("members on ") + kind_name(kind_));
  return members_;
}

// Linear: objects read here are records with a handful of fields; a map per object would cost more
// than it saves.
const Value* Value::find(std::string_view name) const {
  if (kind_ != Kind::kObject) return nullptr;
  for (const auto& [member_name, value] : members_) {
    if (member_name == name) return &value;
  }
  return nullptr;
}

const Value* Value::find_folded(std::string_view name) const {
  if (const Value* exact = find(name)) return exact;
  if (kind_ != Kind::kObject) return nullptr;
  for (const auto& [member_name, value] : members_) {
    if (equal_folded(member_name, name)) return &value;
  }
  return nullptr;
}

Value Value::null(size_t line) {
  Value value;
  value.line_ = line;
  return value;
}

Value Value::boolean(bool b, size_t line) {
  Value value;
  value.kind_ = Kind::kBool;
  value.bool_ = b;
  value.line_ = line;
  return value;
}

Value Value::number(std::string text, size_t line) {
  // as_int64/as_uint64 read the text assuming the grammar; a test building "1x" is a bug.
  DST_ASSERT_MSG(!text.empty() && scan_number(text).length == text.size(), "not a JSON number: " + text);
  Value value;
  value.kind_ = Kind::kNumber;
  value.text_ = std::move(text);
  value.line_ = line;
  return value;
}

Value Value::string(std::string text, size_t line) {
  Value value;
  value.kind_ = Kind::kString;
  value.text_ = std::move(text);
  value.line_ = line;
  return value;
}

Value Value::array(std::vector<Value> items, size_t line) {
  Value value;
  value.kind_ = Kind::kArray;
  value.items_ = std::move(items);
  value.line_ = line;
  return value;
}

Value Value::object(std::vector<std::pair<std::string, Value>> members, size_t line) {
  Value value;
  value.kind_ = Kind::kObject;
  value.members_ = std::move(members);
  value.line_ = line;
  return value;
}

Result<Value> parse(std::string_view text, const std::string& source) {
  Parser parser(text, source);
  Value value;
  Status status = parser.parse_document(&value);
  if (!status.is_ok()) return status;
  return value;
}

Result<std::vector<Value>> parse_stream(std::string_view text, const std::string& source) {
  Parser parser(text, source);
  std::vector<Value> values;
  Status status = parser.parse_values(&values);
  if (!status.is_ok()) return status;
  return values;
}

}  // namespace dst::json
