// JSON text exactly as Go's encoding/json writes it with json.MarshalIndent(x, "", "  "): what the
// exporters of other tools' histories need when the other tool reads (or diffs) files that Go
// wrote, e.g. etcd's robustness test reports (export_etcd_report.h).
//
// Byte for byte, as Go 1.22 and later (etcd builds with 1.26) encode:
// - layout: a non-empty object or array opens, puts each member on its own line indented two
//   spaces per depth, `"name": value`, and closes on its own line; an empty one stays `{}` / `[]`.
// - strings: `"` and `\` escaped; \b \f \n \r \t short; other bytes below 0x20 as \u00XX
//   (lowercase hex); < > & as \u003c \u003e \u0026 (Marshal's HTML escaping); U+2028 and U+2029 as
//   \u2028 \u2029; each byte that does not start a valid UTF-8 sequence (Go's utf8.DecodeRune
//   rules: no overlongs, no surrogates, nothing above U+10FFFF) as \ufffd. So arbitrary bytes go in
//   and valid JSON always comes out, though invalid UTF-8 does not survive the trip (nor in Go).
// - numbers: integers in decimal.
// Which members a struct has, in which order, and which are left out (omitempty) is the caller's
// business: the writer only lays out what it is given.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dst::history {

class GoJsonWriter {
 public:
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  // The next member's name, inside an object; its value follows.
  void key(std::string_view name);

  void string(std::string_view bytes);
  void number(int64_t v);
  void number_unsigned(uint64_t v);
  void boolean(bool v);
  void null();

  // A member: key(name) and its value.
  void member_string(std::string_view name, std::string_view bytes) { key(name); string(bytes); }
  void member_number(std::string_view name, int64_t v) { key(name); number(v); }
  void member_unsigned(std::string_view name, uint64_t v) { key(name); number_unsigned(v); }
  void member_bool(std::string_view name, bool v) { key(name); boolean(v); }

  // The finished document (one complete value); the writer is empty afterwards.
  std::string take();

 private:
  struct Open {
    bool object = false;
    bool empty = true;      // nothing written inside yet
    bool key_done = false;  // objects: a key was written, its value is due
  };
  void before_value();
  void newline_indent(size_t depth);

  std::string out_;
  std::vector<Open> open_;
  bool done_ = false;  // a top-level value is complete
};

// `bytes` as a Go JSON string literal, quotes included (the rules above).
void append_go_json_string(std::string& out, std::string_view bytes);

}  // namespace dst::history
