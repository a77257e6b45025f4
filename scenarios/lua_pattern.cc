// See lua_pattern.h. The recursion mirrors where Lua's matcher recurses (quantifiers, captures,
// '?'), so "pattern too complex" comes at the same depth; sequences of plain items loop.
#include "scenarios/lua_pattern.h"

#include <cstring>

namespace dst::scenarios {

namespace {

bool is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
bool is_alpha(unsigned char c) { return is_upper(c) || is_lower(c); }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_alnum(unsigned char c) { return is_alpha(c) || is_digit(c); }
bool is_graph(unsigned char c) { return c >= 33 && c <= 126; }
bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_cntrl(unsigned char c) { return c < 32 || c == 127; }
bool is_xdigit(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
unsigned char to_lower(unsigned char c) { return is_upper(c) ? static_cast<unsigned char>(c - 'A' + 'a') : c; }

}  // namespace

bool pattern_class_matches(unsigned char c, unsigned char class_letter) {
  bool in = false;
  switch (to_lower(class_letter)) {
    case 'a': in = is_alpha(c); break;
    case 'c': in = is_cntrl(c); break;
    case 'd': in = is_digit(c); break;
    case 'g': in = is_graph(c); break;
    case 'l': in = is_lower(c); break;
    case 'p': in = is_graph(c) && !is_alnum(c); break;
    case 's': in = is_space(c); break;
    case 'u': in = is_upper(c); break;
    case 'w': in = is_alnum(c); break;
    case 'x': in = is_xdigit(c); break;
    default: return class_letter == c;  // %. %% %z ...: the character itself
  }
  return is_upper(class_letter) ? !in : in;
}

bool pattern_is_plain(std::string_view pattern) { return pattern.find_first_of("^$*+?.([%-") == std::string_view::npos; }

std::optional<size_t> PatternMatcher::match_at(size_t start, uint64_t steps_max) {
  steps_ = 0;
  steps_max_ = steps_max;
  depth_left_ = kDepthMax;
  level_ = 0;
  out_of_steps_ = false;
  error_.clear();
  const size_t end = match(start, 0);
  if (end == kNoMatch || failed()) return std::nullopt;
  return end;
}

bool PatternMatcher::step() {
  if (++steps_ > steps_max_) out_of_steps_ = true;
  return !stopped();
}

void PatternMatcher::charge_scan(size_t bytes) const {
  steps_ += bytes / kSetBytesPerStep;
  if (steps_ > steps_max_) out_of_steps_ = true;
}

size_t PatternMatcher::fail(const std::string& message) {
  if (error_.empty()) error_ = message;
  return kNoMatch;
}

size_t PatternMatcher::match(size_t s, size_t p) {
  if (depth_left_ == 0) return fail("pattern too complex");
  --depth_left_;
  const size_t end = match_items(s, p);
  ++depth_left_;
  return end;
}

// Matches the pattern from p against the subject from s, item after item; recurses only where
// an item may match in more than one way (as Lua's matcher does, so the depth limit agrees).
size_t PatternMatcher::match_items(size_t s, size_t p) {
  for (;;) {
    if (!step()) return kNoMatch;
    if (p == p_.size()) return s;
    switch (pat(p)) {
      case '(':
        return pat(p + 1) == ')' ? open_capture(s, p + 2, PatternCapture::kPosition)
                                 : open_capture(s, p + 1, PatternCapture::kUnfinished);
      case ')':
        return close_capture(s, p + 1);
      case '$':
        if (p + 1 == p_.size()) return s == s_.size() ? s : kNoMatch;
        break;  // a '$' before the end is an ordinary character
      case '%': {
        const unsigned char c = pat(p + 1);
        size_t next_p = p + 2;
        if (c == 'b') {
          s = balanced(s, p + 2);
          next_p = p + 4;
        } else if (c == 'f') {
          s = frontier(s, p + 2, &next_p);
        } else if (is_digit(c)) {
          s = back_reference(s, c);
        } else {
          break;  // %a, %., ...: a single-character class
        }
        if (s == kNoMatch) return kNoMatch;
        p = next_p;
        continue;
      }
      default:
        break;
    }
    const size_t ep = class_end(p);
    if (stopped()) return kNoMatch;
    const unsigned char q = pat(ep);
    if (!single_matches(s, p, ep)) {
      if (q != '*' && q != '?' && q != '-') return kNoMatch;
      p = ep + 1;  // zero repetitions
      continue;
    }
    switch (q) {
      case '?': {
        const size_t end = match(s + 1, ep + 1);
        if (end != kNoMatch || stopped()) return end;
        p = ep + 1;  // without it
        continue;
      }
      case '+': return greedy(s + 1, p, ep);
      case '*': return greedy(s, p, ep);
      case '-': return lazy(s, p, ep);
      default:
        ++s;
        p = ep;
    }
  }
}

size_t PatternMatcher::greedy(size_t s, size_t p, size_t ep) {
  size_t count = 0;
  while (single_matches(s + count, p, ep)) {
    ++count;
    if (!step()) return kNoMatch;
  }
  for (;;) {  // the longest run first, then shorter ones
    const size_t end = match(s + count, ep + 1);
    if (end != kNoMatch || stopped()) return end;
    if (count == 0) return kNoMatch;
    --count;
  }
}

size_t PatternMatcher::lazy(size_t s, size_t p, size_t ep) {
  for (;;) {  // the shortest run first, then longer ones
    const size_t end = match(s, ep + 1);
    if (end != kNoMatch || stopped()) return end;
    if (!single_matches(s, p, ep)) return kNoMatch;
    ++s;
    if (!step()) return kNoMatch;
  }
}

size_t PatternMatcher::open_capture(size_t s, size_t p, int64_t kind) {
  if (level_ >= kCapturesMax) return fail("too many captures");
  captures_[level_] = PatternCapture{s, kind};
  ++level_;
  const size_t end = match(s, p);
  if (end == kNoMatch) --level_;
  return end;
}

size_t PatternMatcher::close_capture(size_t s, size_t p) {
  size_t open = level_;
  while (open > 0 && captures_[open - 1].length != PatternCapture::kUnfinished) --open;
  if (open == 0) return fail("invalid pattern capture");
  PatternCapture& c = captures_[open - 1];
  c.length = static_cast<int64_t>(s - c.begin);
  const size_t end = match(s, p);
  if (end == kNoMatch) c.length = PatternCapture::kUnfinished;
  return end;
}

size_t PatternMatcher::balanced(size_t s, size_t p) {
  if (p + 1 >= p_.size()) return fail("malformed pattern (missing arguments to '%b')");
  if (s >= s_.size() || subj(s) != pat(p)) return kNoMatch;
  const unsigned char open = pat(p), close = pat(p + 1);
  int depth = 1;
  while (++s < s_.size()) {
    if (!step()) return kNoMatch;
    const unsigned char c = subj(s);
    if (c == close) {
      if (--depth == 0) return s + 1;
    } else if (c == open) {
      ++depth;
    }
  }
  return kNoMatch;
}

size_t PatternMatcher::back_reference(size_t s, unsigned char digit) {
  const int l = digit - '1';
  if (l < 0 || static_cast<size_t>(l) >= level_ || captures_[l].length == PatternCapture::kUnfinished)
    return fail("invalid capture index %" + std::to_string(l + 1));
  const int64_t len = captures_[l].length;
  if (len == PatternCapture::kPosition) return kNoMatch;  // a position never repeats
  const size_t n = static_cast<size_t>(len);
  if (s_.size() - s < n || std::memcmp(s_.data() + captures_[l].begin, s_.data() + s, n) != 0) return kNoMatch;
  if (!step()) return kNoMatch;
  return s + n;
}

// %f[set] at p (the '[' follows at p): matches the empty string between a byte not in the set
// and one in it (the subject's ends count as '\0').
size_t PatternMatcher::frontier(size_t s, size_t p, size_t* next_p) {
  if (pat(p) != '[') return fail("missing '[' after '%f' in pattern");
  const size_t ep = class_end(p);
  if (stopped()) return kNoMatch;
  const unsigned char before = s == 0 ? '\0' : subj(s - 1);
  if (in_set(before, p, ep - 1) || !in_set(subj(s), p, ep - 1)) return kNoMatch;
  *next_p = ep;
  return s;
}

size_t PatternMatcher::class_end(size_t p) {
  const unsigned char c = pat(p++);
  if (c == '%') {
    if (p >= p_.size()) return fail("malformed pattern (ends with '%')");
    return p + 1;
  }
  if (c == '[') {
    const size_t open = p;
    if (pat(p) == '^') ++p;
    do {  // the first character of a set is a member even if it is ']'
      if (p >= p_.size()) return fail("malformed pattern (missing ']')");
      const unsigned char x = pat(p++);
      if (x == '%' && p < p_.size()) ++p;
    } while (pat(p) != ']');
    charge_scan(p - open);
    return p + 1;
  }
  return p;
}

bool PatternMatcher::single_matches(size_t s, size_t p, size_t ep) const {
  if (s >= s_.size()) return false;
  const unsigned char c = subj(s);
  switch (pat(p)) {
    case '.': return true;
    case '%': return pattern_class_matches(c, pat(p + 1));
    case '[': return in_set(c, p, ep - 1);
    default: return pat(p) == c;
  }
}

// The set [open .. close] (open at '[', close at its ']').
bool PatternMatcher::in_set(unsigned char c, size_t open, size_t close) const {
  charge_scan(close - open);
  bool member = true;
  size_t p = open;
  if (pat(p + 1) == '^') {
    member = false;
    ++p;
  }
  while (++p < close) {
    if (pat(p) == '%') {
      ++p;
      if (pattern_class_matches(c, pat(p))) return member;
    } else if (pat(p + 1) == '-' && p + 2 < close) {
      p += 2;
      if (pat(p - 2) <= c && c <= pat(p)) return member;
    } else if (pat(p) == c) {
      return member;
    }
  }
  return !member;
}

}  // namespace dst::scenarios
