// Tests of the JSON reader (base/json_value.h): values of every kind, nested structures, streams of
// pretty-printed objects as Go writes them, exact 64-bit integers, \u escapes, member lookup, and
// for every rule a malformed input is rejected with the expected message and line.
#include "base/json_value.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dst::json {
namespace {

// The whole error message for `text` read as one document, or "ok".
std::string parse_error(std::string_view text) {
  Result<Value> result = parse(text, "t.json");
  if (result.is_ok()) return "ok";
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  return result.status().message();
}

std::string stream_error(std::string_view text) {
  Result<std::vector<Value>> result = parse_stream(text, "s.json");
  if (result.is_ok()) return "ok";
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  return result.status().message();
}

Value parse_ok(std::string_view text) {
  Result<Value> result = parse(text, "t.json");
  EXPECT_TRUE(result.is_ok()) << result.status().to_string();
  return result.is_ok() ? std::move(result).value() : Value::null();
}

std::string nested_arrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonValue, Scalars) {
  EXPECT_TRUE(parse_ok("null").is_null());
  EXPECT_EQ(parse_ok("null").kind(), Value::Kind::kNull);
  EXPECT_TRUE(parse_ok("true").as_bool());
  EXPECT_FALSE(parse_ok(" false ").as_bool());
  EXPECT_TRUE(parse_ok("false").is_bool());

  const Value n = parse_ok("-12.5e+3");
  ASSERT_TRUE(n.is_number());
  EXPECT_EQ(n.number_text(), "-12.5e+3");
  EXPECT_EQ(n.as_int64(), std::nullopt);

  const Value s = parse_ok(R"("a\"b\\c\/d\b\f\n\r\t")");
  ASSERT_TRUE(s.is_string());
  EXPECT_EQ(s.as_string(), "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(parse_ok(R"("")").as_string(), "");
  EXPECT_EQ(parse_ok("\"h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80\"").as_string(),
            "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(parse_ok(R"("\u0041\u00e9\u20AC")").as_string(), "A\xC3\xA9\xE2\x82\xAC");
  const Value nul = parse_ok(R"("a\u0000b")");
  EXPECT_EQ(nul.as_string(), std::string("a\0b", 3));
  EXPECT_EQ(parse_ok("\"\x7F\"").as_string(), "\x7F");  // DEL is not a control character in JSON
}

TEST(JsonValue, NumbersKeepTheirText) {
  for (const char* text : {"0", "-0", "7", "123456789", "0.5", "-0.0", "1e9", "1E-9", "2.5e+10", "-1.25E3",
                           "123456789012345678901234567890"}) {
    const Value v = parse_ok(text);
    ASSERT_TRUE(v.is_number()) << text;
    EXPECT_EQ(v.number_text(), text);
  }
}

TEST(JsonValue, ExactInt64AndUint64) {
  const auto int64_of = [](std::string_view text) { return parse_ok(text).as_int64(); };
  const auto uint64_of = [](std::string_view text) { return parse_ok(text).as_uint64(); };
  EXPECT_EQ(int64_of("0"), 0);
  EXPECT_EQ(int64_of("-0"), 0);
  EXPECT_EQ(int64_of("42"), 42);
  EXPECT_EQ(int64_of("-42"), -42);
  EXPECT_EQ(int64_of("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(int64_of("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(int64_of("9223372036854775808"), std::nullopt);   // INT64_MAX + 1
  EXPECT_EQ(int64_of("-9223372036854775809"), std::nullopt);  // INT64_MIN - 1
  EXPECT_EQ(int64_of("18446744073709551615"), std::nullopt);
  EXPECT_EQ(int64_of("1.0"), std::nullopt);
  EXPECT_EQ(int64_of("1e3"), std::nullopt);
  EXPECT_EQ(int64_of("-5E0"), std::nullopt);

  EXPECT_EQ(uint64_of("0"), 0u);
  EXPECT_EQ(uint64_of("-0"), 0u);
  EXPECT_EQ(uint64_of("9223372036854775808"), uint64_t{1} << 63);
  EXPECT_EQ(uint64_of("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(uint64_of("18446744073709551616"), std::nullopt);  // UINT64_MAX + 1
  EXPECT_EQ(uint64_of("99999999999999999999"), std::nullopt);
  EXPECT_EQ(uint64_of("-1"), std::nullopt);
  EXPECT_EQ(uint64_of("1.5"), std::nullopt);
  EXPECT_EQ(uint64_of("10e1"), std::nullopt);
  // Above 2^53 a double would round; the text is read exactly.
  EXPECT_EQ(uint64_of("9007199254740993"), 9007199254740993u);
  EXPECT_EQ(int64_of("-9007199254740993"), -9007199254740993);
}

TEST(JsonValue, NestedStructures) {
  const Value v = parse_ok(R"({"name": "x", "tags": ["a", 1, null, {"deep": [true, []]}], "empty": {},
  "n": -3})");
  ASSERT_TRUE(v.is_object());
  const auto& members = v.members();
  ASSERT_EQ(members.size(), 4u);
  EXPECT_EQ(members[0].first, "name");
  EXPECT_EQ(members[1].first, "tags");
  EXPECT_EQ(members[2].first, "empty");
  EXPECT_EQ(members[3].first, "n");
  const auto& tags = v.find("tags")->items();
  ASSERT_EQ(tags.size(), 4u);
  EXPECT_EQ(tags[0].as_string(), "a");
  EXPECT_EQ(tags[1].as_int64(), 1);
  EXPECT_TRUE(tags[2].is_null());
  const auto& deep = tags[3].find("deep")->items();
  ASSERT_EQ(deep.size(), 2u);
  EXPECT_TRUE(deep[0].as_bool());
  EXPECT_TRUE(deep[1].is_array());
  EXPECT_TRUE(deep[1].items().empty());
  EXPECT_TRUE(v.find("empty")->is_object());
  EXPECT_TRUE(v.find("empty")->members().empty());
  EXPECT_EQ(v.find("n")->as_int64(), -3);
  EXPECT_EQ(v.find("n")->line(), 2u);
  EXPECT_TRUE(parse_ok("[]").items().empty());
  EXPECT_TRUE(parse_ok("{ }").members().empty());
  EXPECT_EQ(parse_ok("[ 1 , 2 ]").items().size(), 2u);
}

// What Go's json.Encoder with SetIndent("", "  ") writes: objects one after another, each ending
// in a newline.
constexpr std::string_view kGoStream = R"({
  "ClientId": 1,
  "Input": {
    "Key": "k1",
    "Value": "v\u00e9"
  },
  "Call": 1700000000123456789,
  "Return": 18446744073709551615
}
{
  "ClientId": 2,
  "Input": {
    "Key": "k2",
    "Value": null
  },
  "Call": -9223372036854775808,
  "Return": 5
}
{
  "ClientId": 3,
  "Input": {
    "Key": "k3",
    "Value": ""
  },
  "Call": 7,
  "Return": 8,
  "Flags": [
    true,
    false
  ]
}
)";

TEST(JsonValue, StreamOfPrettyPrintedObjects) {
  Result<std::vector<Value>> result = parse_stream(kGoStream, "ops.json");
  ASSERT_TRUE(result.is_ok()) << result.status().to_string();
  const std::vector<Value>& values = *result;
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0].line(), 1u);
  EXPECT_EQ(values[1].line(), 10u);
  EXPECT_EQ(values[2].line(), 19u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(values[i].find("ClientId")->as_int64(), static_cast<int64_t>(i + 1));
    EXPECT_EQ(values[i].find("Input")->find("Key")->as_string(), "k" + std::to_string(i + 1));
  }
  EXPECT_EQ(values[0].find("Input")->find("Value")->as_string(), "v\xC3\xA9");
  EXPECT_EQ(values[0].find("Input")->find("Value")->line(), 5u);
  EXPECT_EQ(values[0].find("Call")->as_int64(), 1700000000123456789);
  EXPECT_EQ(values[0].find("Return")->as_uint64(), UINT64_MAX);
  EXPECT_EQ(values[0].find("Return")->as_int64(), std::nullopt);
  EXPECT_TRUE(values[1].find("Input")->find("Value")->is_null());
  EXPECT_EQ(values[1].find("Call")->as_int64(), INT64_MIN);
  EXPECT_EQ(values[1].find("Return")->line(), 17u);
  const Value* flags = values[2].find("Flags");
  ASSERT_NE(flags, nullptr);
  EXPECT_EQ(flags->line(), 27u);
  ASSERT_EQ(flags->items().size(), 2u);
  EXPECT_EQ(flags->items()[1].line(), 29u);
  EXPECT_FALSE(flags->items()[1].as_bool());
}

TEST(JsonValue, StreamSeparators) {
  EXPECT_TRUE(parse_stream("", "s.json")->empty());
  EXPECT_TRUE(parse_stream(" \n\t\r\n ", "s.json")->empty());
  // Values may touch, as Go's json.Decoder reads them; CRLF line ends count lines by '\n'.
  Result<std::vector<Value>> touching = parse_stream("{}[1]\"s\"7 true\r\nnull", "s.json");
  ASSERT_TRUE(touching.is_ok()) << touching.status().to_string();
  ASSERT_EQ(touching->size(), 6u);
  EXPECT_EQ((*touching)[5].line(), 2u);
  EXPECT_EQ(stream_error("{\"a\": 1},\n{\"a\": 2}"),
            "s.json:1: expected whitespace or the next value after a value of the stream, found ','");
  EXPECT_EQ(stream_error("1\n2\n\nx"),
            "s.json:4: expected whitespace or the next value after a value of the stream, found 'x'");
  EXPECT_EQ(stream_error("{}\n// note\n{}"),
            "s.json:2: expected whitespace or the next value after a value of the stream, found '/'");
  EXPECT_EQ(stream_error("{}\n{\"a\": 1,}\n"),
            "s.json:2: expected a member name (a string) after ',', found '}'");
  EXPECT_EQ(stream_error("\n\n,"), "s.json:3: expected a value, found ','");
  EXPECT_EQ(stream_error("[1,\n2\n"),
            "s.json:3: expected ',' or ']' after an array element, found the end of the input");
}

TEST(JsonValue, LinesOfValues) {
  const Value v = parse_ok("\n[\n1,\n\n\"two\",\n{\"k\":\nnull}]");
  EXPECT_EQ(v.line(), 2u);
  ASSERT_EQ(v.items().size(), 3u);
  EXPECT_EQ(v.items()[0].line(), 3u);
  EXPECT_EQ(v.items()[1].line(), 5u);
  EXPECT_EQ(v.items()[2].line(), 6u);
  EXPECT_EQ(v.items()[2].find("k")->line(), 7u);
}

TEST(JsonValue, EmptyAndTrailingText) {
  EXPECT_EQ(parse_error(""), "t.json:1: expected a JSON value, found an empty text");
  EXPECT_EQ(parse_error(" \n \n"), "t.json:3: expected a JSON value, found an empty text");
  EXPECT_EQ(parse_error("{}\n\n}"), "t.json:3: expected the end of the text after the value, found '}'");
  EXPECT_EQ(parse_error("1 2"), "t.json:1: expected the end of the text after the value, found '2'");
  EXPECT_EQ(parse_error("truex"), "t.json:1: expected the end of the text after the value, found 'x'");
  EXPECT_EQ(parse_error("{} {}"), "t.json:1: expected the end of the text after the value, found '{'");
  EXPECT_EQ(parse_error("\xEF\xBB\xBF{}"), "t.json:1: expected a value, found byte 0xEF");  // a BOM
}

TEST(JsonValue, TrailingCommas) {
  EXPECT_EQ(parse_error("[1,\n2,\n]"), "t.json:3: expected a value after ',' in an array, found ']'");
  EXPECT_EQ(parse_error("{\n\"a\": 1,\n}"), "t.json:3: expected a member name (a string) after ',', found '}'");
  EXPECT_EQ(parse_error("[,]"), "t.json:1: expected a value, found ','");
  EXPECT_EQ(parse_error("{,}"), "t.json:1: expected a member name (a string) or '}', found ','");
  EXPECT_EQ(parse_error("[1 2]"), "t.json:1: expected ',' or ']' after an array element, found '2'");
  EXPECT_EQ(parse_error("{\"a\":1\n\"b\":2}"),
            "t.json:2: expected ',' or '}' after an object member, found '\"'");
  EXPECT_EQ(parse_error("{\"a\" 1}"), "t.json:1: expected ':' after a member name, found '1'");
  EXPECT_EQ(parse_error("{a: 1}"), "t.json:1: expected a member name (a string) or '}', found 'a'");
  EXPECT_EQ(parse_error("{\"a\":}"), "t.json:1: expected a value, found '}'");
  EXPECT_EQ(parse_error("[1,"), "t.json:1: expected a value, found the end of the input");
  EXPECT_EQ(parse_error("{\"a\":1"),
            "t.json:1: expected ',' or '}' after an object member, found the end of the input");
}

TEST(JsonValue, NumberGrammar) {
  EXPECT_EQ(parse_error("\n01"), "t.json:2: expected no digit after a leading 0 in a number, found '1'");
  EXPECT_EQ(parse_error("[-007]"), "t.json:1: expected no digit after a leading 0 in a number, found '0'");
  EXPECT_EQ(parse_error("-"), "t.json:1: expected a digit in a number, found the end of the input");
  EXPECT_EQ(parse_error("-a"), "t.json:1: expected a digit in a number, found 'a'");
  EXPECT_EQ(parse_error("1."), "t.json:1: expected a digit after '.' in a number, found the end of the input");
  EXPECT_EQ(parse_error("[1.e5]"), "t.json:1: expected a digit after '.' in a number, found 'e'");
  EXPECT_EQ(parse_error("1e"), "t.json:1: expected a digit in a number's exponent, found the end of the input");
  EXPECT_EQ(parse_error("1e+"),
            "t.json:1: expected a digit in a number's exponent, found the end of the input");
  EXPECT_EQ(parse_error(".5"), "t.json:1: expected a value, found '.'");
  EXPECT_EQ(parse_error("+1"), "t.json:1: expected a value, found '+'");
  EXPECT_EQ(parse_error("0x10"), "t.json:1: expected the end of the text after the value, found 'x'");
}

TEST(JsonValue, NanInfinityAndBadLiterals) {
  EXPECT_EQ(parse_error("[\nNaN]"), "t.json:2: expected a value, found 'NaN'");
  EXPECT_EQ(parse_error("Infinity"), "t.json:1: expected a value, found 'Infinity'");
  EXPECT_EQ(parse_error("-Infinity"), "t.json:1: expected a digit in a number, found 'I'");
  EXPECT_EQ(parse_error("{\"a\": nan}"), "t.json:1: expected a value, found 'nan'");
  EXPECT_EQ(parse_error("tru"), "t.json:1: expected a value, found 'tru'");
  EXPECT_EQ(parse_error("True"), "t.json:1: expected a value, found 'True'");
  EXPECT_EQ(parse_error("nul"), "t.json:1: expected a value, found 'nul'");
  EXPECT_EQ(parse_error("undefined"), "t.json:1: expected a value, found 'undefined'");
}

TEST(JsonValue, Comments) {
  EXPECT_EQ(parse_error("// c\n{}"), "t.json:1: expected a value, found '/'");
  EXPECT_EQ(parse_error("{\n\"a\": 1 /* c */}"),
            "t.json:2: expected ',' or '}' after an object member, found '/'");
  EXPECT_EQ(parse_error("[1]\n# c"), "t.json:2: expected the end of the text after the value, found '#'");
  EXPECT_EQ(parse_error("[1, // c\n2]"), "t.json:1: expected a value, found '/'");
}

TEST(JsonValue, StringRules) {
  EXPECT_EQ(parse_error("\n\"abc"), "t.json:2: expected '\"' to end the string, found the end of the input");
  EXPECT_EQ(parse_error("[\"a\nb\"]"),
            "t.json:1: expected control characters in a string escaped (\\n, \\u0001), found byte 0x0A");
  EXPECT_EQ(parse_error("\n\"a\tb\""),
            "t.json:2: expected control characters in a string escaped (\\n, \\u0001), found byte 0x09");
  EXPECT_EQ(parse_error(std::string_view("\"a\0\"", 4)),
            "t.json:1: expected control characters in a string escaped (\\n, \\u0001), found byte 0x00");
  EXPECT_EQ(parse_error(R"("\x")"),
            "t.json:1: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u in a string, found 'x'");
  EXPECT_EQ(parse_error(R"("\')"),
            "t.json:1: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u in a string, found '''");
  EXPECT_EQ(parse_error("\"\\"),
            "t.json:1: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u in a string, found the end of the input");
  EXPECT_EQ(parse_error(R"("\u12G4")"), "t.json:1: expected 4 hex digits after \\u, found 'G'");
  EXPECT_EQ(parse_error(R"("\u12")"), "t.json:1: expected 4 hex digits after \\u, found '\"'");
}

TEST(JsonValue, InvalidUtf8) {
  const std::string expected = "t.json:2: expected valid UTF-8 in a string, found byte 0x";
  EXPECT_EQ(parse_error("\n\"\xFF\""), expected + "FF");
  EXPECT_EQ(parse_error("\n\"a\x80\""), expected + "80");          // a lone continuation byte
  EXPECT_EQ(parse_error("\n\"\xC0\x80\""), expected + "C0");       // overlong NUL
  EXPECT_EQ(parse_error("\n\"\xE0\x80\xAF\""), expected + "E0");   // overlong '/'
  EXPECT_EQ(parse_error("\n\"\xED\xA0\x80\""), expected + "ED");   // an encoded surrogate
  EXPECT_EQ(parse_error("\n\"\xF4\x90\x80\x80\""), expected + "F4");  // past U+10FFFF
  EXPECT_EQ(parse_error("\n\"\xE2\x82\""), expected + "E2");       // cut short
  EXPECT_EQ(parse_error("\n\"\xE2\x82"), expected + "E2");         // cut short by the end of the input
  EXPECT_EQ(parse_error("\n{\"k\xC3\": 1}"), expected + "C3");     // in a member name too
  // The largest code point and the edges of each sequence length are accepted.
  EXPECT_EQ(parse_ok("\"\xF4\x8F\xBF\xBF \xC2\x80 \xEF\xBF\xBF \xF0\x90\x80\x80\"").as_string(),
            "\xF4\x8F\xBF\xBF \xC2\x80 \xEF\xBF\xBF \xF0\x90\x80\x80");
}

TEST(JsonValue, SurrogatePairs) {
  EXPECT_EQ(parse_ok(R"("\uD83D\uDE00")").as_string(), "\xF0\x9F\x98\x80");  // U+1F600
  EXPECT_EQ(parse_ok(R"("x\ud800\udc00y")").as_string(), "x\xF0\x90\x80\x80y");  // U+10000
  EXPECT_EQ(parse_ok(R"("\uDBFF\uDFFF")").as_string(), "\xF4\x8F\xBF\xBF");  // U+10FFFF
  EXPECT_EQ(parse_error("\n\"\\uDE00\""),
            "t.json:2: expected a high surrogate (\\uD800-\\uDBFF) before a low one, found a lone \\uDE00");
  EXPECT_EQ(parse_error(R"("\uD83D")"),
            "t.json:1: expected a low surrogate (\\uDC00-\\uDFFF) after \\uD83D, found '\"'");
  EXPECT_EQ(parse_error(R"("\uD83Dx")"),
            "t.json:1: expected a low surrogate (\\uDC00-\\uDFFF) after \\uD83D, found 'x'");
  EXPECT_EQ(parse_error(R"("\uD83D\n")"),
            "t.json:1: expected a low surrogate (\\uDC00-\\uDFFF) after \\uD83D, found '\\'");
  EXPECT_EQ(parse_error(R"("\uD83D\uD83D")"),
            "t.json:1: expected a low surrogate (\\uDC00-\\uDFFF) after \\uD83D, found \\uD83D");
  EXPECT_EQ(parse_error(R"("\uD83D\u0041")"),
            "t.json:1: expected a low surrogate (\\uDC00-\\uDFFF) after \\uD83D, found \\u0041");
}

TEST(JsonValue, DuplicateMemberNames) {
  EXPECT_EQ(parse_error("{\n  \"id\": 1,\n  \"x\": 2,\n  \"id\": 3\n}"),
            "t.json:4: expected unique member names in an object, found \"id\" again");
  EXPECT_EQ(parse_error(R"({"a": {"b": 1, "b": 2}})"),
            "t.json:1: expected unique member names in an object, found \"b\" again");
  // Names compare after decoding: "\u0061" is "a".
  EXPECT_EQ(parse_error(R"({"a": 1, "\u0061": 2})"),
            "t.json:1: expected unique member names in an object, found \"a\" again");
  EXPECT_EQ(parse_error(R"({"\n": 1, "\n": 2})"),
            "t.json:1: expected unique member names in an object, found \"\\u000A\" again");
  // Names differing in case only are distinct members.
  EXPECT_EQ(parse_error(R"({"a": 1, "A": 2})"), "ok");
  // Equal names in different objects are fine.
  EXPECT_EQ(parse_error(R"([{"a": 1}, {"a": 2}])"), "ok");
}

TEST(JsonValue, DuplicateInLargeObjectReportsTheFirstRepeat) {
  std::string text = "{\n";
  for (int i = 0; i < 1000; ++i) text += "\"m" + std::to_string(i) + "\": " + std::to_string(i) + ",\n";
  text += "\"m500\": 0,\n\"m7\": 0\n}";  // lines 1002 and 1003
  EXPECT_EQ(parse_error(text), "t.json:1002: expected unique member names in an object, found \"m500\" again");
}

TEST(JsonValue, LongDuplicateNameIsCutShort) {
  const std::string name(1000, 'n');
  const std::string message = parse_error("{\"" + name + "\": 1, \"" + name + "\": 2}");
  EXPECT_EQ(message, "t.json:1: expected unique member names in an object, found \"" + std::string(60, 'n') +
                         "...\" again");
}

TEST(JsonValue, DepthLimit) {
  EXPECT_EQ(parse_error(nested_arrays(kDepthMax)), "ok");
  EXPECT_EQ(parse_error(nested_arrays(kDepthMax + 1)),
            "t.json:1: expected at most 64 nested arrays and objects, found deeper nesting");
  std::string objects;
  for (size_t i = 0; i < kDepthMax; ++i) objects += "{\"k\":\n";
  EXPECT_EQ(parse_error(objects + "1" + std::string(kDepthMax, '}')), "ok");
  EXPECT_EQ(parse_error(objects + "{}" + std::string(kDepthMax, '}')),
            "t.json:65: expected at most 64 nested arrays and objects, found deeper nesting");
  // Hostile: a million open brackets end in the same error, not a stack overflow.
  EXPECT_EQ(parse_error(std::string(1'000'000, '[')),
            "t.json:1: expected at most 64 nested arrays and objects, found deeper nesting");
  EXPECT_EQ(stream_error("[]\n" + nested_arrays(kDepthMax + 1)),
            "s.json:2: expected at most 64 nested arrays and objects, found deeper nesting");
}

TEST(JsonValue, FindAndFindFolded) {
  const Value v = parse_ok(R"({"Key": 1, "key": 2, "KEY": 3, "Other": 4, "other2": 5})");
  EXPECT_EQ(v.find("key")->as_int64(), 2);
  EXPECT_EQ(v.find("Key")->as_int64(), 1);
  EXPECT_EQ(v.find("kEy"), nullptr);
  EXPECT_EQ(v.find("missing"), nullptr);
  // Exact match first, even when a folded match comes earlier.
  EXPECT_EQ(v.find_folded("KEY")->as_int64(), 3);
  EXPECT_EQ(v.find_folded("key")->as_int64(), 2);
  // Otherwise the first folded match in written order.
  EXPECT_EQ(v.find_folded("kEy")->as_int64(), 1);
  EXPECT_EQ(v.find_folded("OTHER")->as_int64(), 4);
  EXPECT_EQ(v.find_folded("OTHER2")->as_int64(), 5);
  EXPECT_EQ(v.find_folded("othe"), nullptr);
  EXPECT_EQ(v.find_folded(""), nullptr);
  // Non-ASCII bytes are compared as they are, not folded.
  const Value u = parse_ok("{\"\xC3\xA9t\xC3\xA9\": 1}");
  EXPECT_NE(u.find_folded("\xC3\xA9T\xC3\xA9"), nullptr);
  EXPECT_EQ(u.find_folded("\xC3\x89T\xC3\x89"), nullptr);
  // Other kinds have no members.
  EXPECT_EQ(parse_ok("[1]").find("a"), nullptr);
  EXPECT_EQ(parse_ok("\"a\"").find_folded("a"), nullptr);
  EXPECT_EQ(parse_ok("{}").find_folded("a"), nullptr);
}

TEST(JsonValue, Builders) {
  const Value v = Value::object({{"a", Value::array({Value::number("-1", 3), Value::string("s"), Value::null(),
                                                     Value::boolean(true)})}},
                                7);
  EXPECT_EQ(v.line(), 7u);
  const auto& items = v.find("a")->items();
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].as_int64(), -1);
  EXPECT_EQ(items[0].line(), 3u);
  EXPECT_EQ(items[1].as_string(), "s");
  EXPECT_TRUE(items[2].is_null());
  EXPECT_TRUE(items[3].as_bool());
}

TEST(JsonValueDeathTest, AccessorMisuseAsserts) {
  EXPECT_DEATH((void)parse_ok("1").as_string(), "as_string on a number");
  EXPECT_DEATH((void)parse_ok("\"1\"").number_text(), "number_text on a string");
  EXPECT_DEATH((void)parse_ok("\"1\"").as_int64(), "number_text on a string");
  EXPECT_DEATH((void)parse_ok("null").as_bool(), "as_bool on null");
  EXPECT_DEATH((void)parse_ok("{}").items(), "items on an object");
  EXPECT_DEATH((void)parse_ok("[]").members(), "members on an array");
  EXPECT_DEATH((void)Value::number("01"), "not a JSON number: 01");
  EXPECT_DEATH((void)Value::number(""), "not a JSON number");
}

// Tens of megabytes must read in linear time: long strings, long arrays, many lines, big objects.
TEST(JsonValue, LargeInputsReadInLinearTime) {
  const std::string long_string = "\"" + std::string(8 << 20, 'a') + "\"";
  EXPECT_EQ(parse_ok(long_string).as_string().size(), size_t{8} << 20);

  std::string stream;
  for (int i = 0; i < 200'000; ++i) stream += "{\n  \"i\": " + std::to_string(i) + "\n}\n";
  Result<std::vector<Value>> values = parse_stream(stream, "big.json");
  ASSERT_TRUE(values.is_ok()) << values.status().to_string();
  ASSERT_EQ(values->size(), 200'000u);
  EXPECT_EQ(values->back().line(), 199'999u * 3 + 1);
  EXPECT_EQ(stream_error(stream + "{\n  \"i\": 01\n}\n"),
            "s.json:600002: expected no digit after a leading 0 in a number, found '1'");

  std::string object = "{";
  for (int i = 0; i < 200'000; ++i) object += (i ? ",\"" : "\"") + std::to_string(i) + "\":0";
  EXPECT_EQ(parse_ok(object + "}").members().size(), 200'000u);
  EXPECT_EQ(parse_error(object + ",\"17\":1}"),
            "t.json:1: expected unique member names in an object, found \"17\" again");
}

}  // namespace
}  // namespace dst::json
