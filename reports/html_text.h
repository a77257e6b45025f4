// Text helpers for the HTML reports: escaping (keys and values are arbitrary bytes, a key may be
// "<script>"), truncation, and time formatting. Everything is deterministic: no locale, no clock.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dst::reports {

// Escapes &, <, >, " and ' for use in element text and attribute values; control characters
// (a range_end of "\0", a binary value) become visible "\xNN".
std::string html_escape(std::string_view text);

// At most `chars_max` bytes, with "..." when cut (never in the middle of a UTF-8 sequence).
std::string truncate_text(std::string_view text, size_t chars_max);

// Virtual nanoseconds as seconds with microseconds ("1.250000s"); "never" for a missing return.
std::string seconds_text(int64_t ns);

// Virtual nanoseconds as milliseconds or seconds with three decimals, no unit ("12.345").
std::string ms3_text(int64_t ns);
std::string secs3_text(int64_t ns);

// A number with a fixed count of decimals, e.g. for SVG coordinates ("12.5").
std::string fixed(double v, int decimals = 1);

}  // namespace dst::reports
