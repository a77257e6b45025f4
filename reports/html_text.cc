// See html_text.h.
#include "reports/html_text.h"

#include <cstdio>
#include <limits>

namespace dst::reports {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out;
}

std::string truncate_text(std::string_view text, size_t chars_max) {
  if (text.size() <= chars_max) return std::string(text);
  size_t cut = chars_max > 3 ? chars_max - 3 : 0;
  // Back up over UTF-8 continuation bytes so the cut never splits a character.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

std::string seconds_text(int64_t ns) {
  if (ns == std::numeric_limits<int64_t>::max()) return "never";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6fs", static_cast<double>(ns) / 1e9);
  return buf;
}

std::string ms3_text(int64_t ns) { return fixed(static_cast<double>(ns) / 1e6, 3); }
std::string secs3_text(int64_t ns) { return fixed(static_cast<double>(ns) / 1e9, 3); }

std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s == "-0.0" || s == "-0") s = s.substr(1);
  return s;
}

}  // namespace dst::reports
