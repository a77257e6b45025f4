// Fuzz target: the strict JSON reader (base/json_value.h), which reads other tools' reports.
// Promises: no crash, hang or runaway allocation; an error names the source and a line within the
// text; a text that parses as one document is a stream of exactly that one value; every number
// that claims to be an integer reads back as its own text.
#include <string>

#include "base/json_value.h"
#include "base/parse_number.h"
#include "fuzz/fuzz_target.h"

namespace {

size_t lines_in(const std::string& text) {
  size_t n = 1;
  for (char c : text) n += c == '\n';
  return n;
}

// The line an error names ("fuzz.json:LINE: ...").
size_t error_line(const std::string& message) {
  const size_t colon = message.find(':', 10);
  if (colon == std::string::npos || message.size() < 10) return 0;
  return dst::parse_unsigned<size_t>(std::string_view(message).substr(10, colon - 10)).value_or(0);
}

void check_integers(const dst::json::Value& v) {
  using dst::json::Value;
  if (v.is_number()) {
    if (const std::optional<int64_t> i = v.as_int64())
      dst::fuzz::require(std::to_string(*i) == v.number_text() || v.number_text() == "-0", "an integer reads as its text",
                         v.number_text());
  }
  if (v.is_array())
    for (const Value& item : v.items()) check_integers(item);
  if (v.is_object())
    for (const auto& [name, member] : v.members()) check_integers(member);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dst;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Result<std::vector<json::Value>> stream = json::parse_stream(text, "fuzz.json");
  if (!stream.is_ok()) {
    const std::string& m = stream.status().message();
    fuzz::require(fuzz::starts_with(m, "fuzz.json:"), "an error names the source", m);
    fuzz::require(error_line(m) >= 1 && error_line(m) <= lines_in(text), "an error's line is in the text", m);
  } else {
    for (const json::Value& v : *stream) check_integers(v);
  }
  Result<json::Value> one = json::parse(text, "fuzz.json");
  if (one.is_ok()) {
    fuzz::require(stream.is_ok() && stream->size() == 1, "a document is a stream of one value");
    check_integers(*one);
  }
  return 0;
}
