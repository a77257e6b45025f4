// See go_json_writer.h.
#include "history/go_json_writer.h"

#include "base/assert.h"

namespace dst::history {

namespace {

// Nesting the exporters need is shallow (an etcd report record: 6 levels); deeper is a bug.
constexpr size_t kDepthMax = 32;

constexpr char kHex[] = "0123456789abcdef";

bool continuation(unsigned char b) { return b >= 0x80 && b <= 0xBF; }

// The length of the valid UTF-8 sequence at the start of `s` (s non-empty, s[0] >= 0x80), or 0
// when Go's utf8.DecodeRuneInString would return RuneError of width 1 there.
size_t utf8_sequence(std::string_view s) {
  const auto b0 = static_cast<unsigned char>(s[0]);
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range, narrowed for b0 below
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong 3-byte forms
    if (b0 == 0xED) hi = 0x9F;  // no surrogates U+D800..U+DFFF
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;  // no overlong 4-byte forms
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;  // a continuation byte, an overlong 2-byte lead (C0, C1), or F5..FF
  }
  if (s.size() < n) return 0;
  const auto b1 = static_cast<unsigned char>(s[1]);
  if (b1 < lo || b1 > hi) return 0;
  for (size_t i = 2; i < n; ++i)
    if (!continuation(static_cast<unsigned char>(s[i]))) return 0;
  return n;
}

void append_ascii(std::string& out, unsigned char b) {
  switch (b) {
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    case '<':
    case '>':
    case '&': break;  // HTML-safe escaping, below
    default:
      if (b >= 0x20) {
        out += static_cast<char>(b);
        return;
      }
  }
  out += "\\u00";
  out += kHex[b >> 4];
  out += kHex[b & 0xF];
}

}  // namespace

void append_go_json_string(std::string& out, std::string_view bytes) {
  out += '"';
  size_t i = 0;
  while (i < bytes.size()) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    if (b < 0x80) {
      append_ascii(out, b);
      ++i;
      continue;
    }
    const size_t n = utf8_sequence(bytes.substr(i));
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    // U+2028 and U+2029 (E2 80 A8/A9) end lines in JavaScript; Go escapes them.
    if (n == 3 && b == 0xE2 && static_cast<unsigned char>(bytes[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(bytes[i + 2]) & 0xFE) == 0xA8) {
      out += bytes[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
    } else {
      out.append(bytes.substr(i, n));
    }
    i += n;
  }
  out += '"';
}

void GoJsonWriter::newline_indent(size_t depth) {
  out_ += '\n';
  out_.append(2 * depth, ' ');
}

void GoJsonWriter::before_value() {
  DST_ASSERT_MSG(!done_, "a second top-level value");
  if (open_.empty()) return;
  Open& top = open_.back();
  if (top.object) {
    DST_ASSERT_MSG(top.key_done, "an object member without a key");
    top.key_done = false;
    return;
  }
  if (!top.empty) out_ += ',';
  top.empty = false;
  newline_indent(open_.size());
}

void GoJsonWriter::key(std::string_view name) {
  DST_ASSERT_MSG(!open_.empty() && open_.back().object && !open_.back().key_done, "a key outside an object");
  Open& top = open_.back();
  if (!top.empty) out_ += ',';
  top.empty = false;
  newline_indent(open_.size());
  append_go_json_string(out_, name);
  out_ += ": ";
  top.key_done = true;
}

void GoJsonWriter::begin_object() {
  before_value();
  DST_ASSERT_LT(open_.size(), kDepthMax);
  open_.push_back(Open{true});
  out_ += '{';
}

void GoJsonWriter::begin_array() {
  before_value();
  DST_ASSERT_LT(open_.size(), kDepthMax);
  open_.push_back(Open{false});
  out_ += '[';
}

void GoJsonWriter::end_object() {
  DST_ASSERT_MSG(!open_.empty() && open_.back().object && !open_.back().key_done, "end_object out of place");
  const bool empty = open_.back().empty;
  open_.pop_back();
  if (!empty) newline_indent(open_.size());
  out_ += '}';
  done_ = open_.empty();
}

void GoJsonWriter::end_array() {
  DST_ASSERT_MSG(!open_.empty() && !open_.back().object, "end_array out of place");
  const bool empty = open_.back().empty;
  open_.pop_back();
  if (!empty) newline_indent(open_.size());
  out_ += ']';
  done_ = open_.empty();
}

void GoJsonWriter::string(std::string_view bytes) {
  before_value();
  append_go_json_string(out_, bytes);
  done_ = open_.empty();
}

void GoJsonWriter::number(int64_t v) {
  before_value();
  out_ += std::to_string(v);
  done_ = open_.empty();
}

void GoJsonWriter::number_unsigned(uint64_t v) {
  before_value();
  out_ += std::to_string(v);
  done_ = open_.empty();
}

void GoJsonWriter::boolean(bool v) {
  before_value();
  out_ += v ? "true" : "false";
  done_ = open_.empty();
}

void GoJsonWriter::null() {
  before_value();
  out_ += "null";
  done_ = open_.empty();
}

std::string GoJsonWriter::take() {
  DST_ASSERT_MSG(done_ && open_.empty(), "an unfinished JSON value");
  done_ = false;
  std::string text = std::move(out_);
  out_.clear();
  return text;
}

}  // namespace dst::history
