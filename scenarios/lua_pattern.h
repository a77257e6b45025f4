// Lua 5.4 string patterns (the manual's section 6.4.1), matched by our own backtracking matcher
// that counts its steps, so string.find/match/gmatch/gsub in a scenario are bounded by the
// instruction budget however much a pattern backtracks (Lua's own matcher runs in C, uncounted).
//
// The matcher is pure C++ on a subject and a pattern: character classes (%a %c %d %g %l %p %s %u
// %w %x and their complements, in the C locale), sets [...] with ranges and classes, the
// quantifiers * + - ?, captures (...) and position captures (), back-references %1-%9, balanced
// matches %bxy, frontiers %f[set], and $ at the end of the pattern. Recursion is bounded as in
// Lua (200 nested calls: "pattern too complex"), captures at 32. Errors use Lua's messages.
// The caller handles a leading '^' (an anchor for find, match and gsub; an ordinary character for
// gmatch) and turns captures into Lua values (lua_sandbox_string.cc).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dst::scenarios {

struct PatternCapture {
  static constexpr int64_t kUnfinished = -1;  // opened, not yet closed
  static constexpr int64_t kPosition = -2;    // a position capture "()"
  size_t begin = 0;                           // offset in the subject
  int64_t length = kUnfinished;               // or a byte count
};

class PatternMatcher {
 public:
  static constexpr size_t kCapturesMax = 32;  // Lua's LUA_MAXCAPTURES
  static constexpr int kDepthMax = 200;       // Lua's MAXCCALLS

  // `subject` and `pattern` must outlive the matcher. `pattern` is the whole pattern after any
  // anchor the caller removed.
  PatternMatcher(std::string_view subject, std::string_view pattern) : s_(subject), p_(pattern) {}

  // Tries a match starting at subject offset `start` with at most `steps_max` steps; the end
  // offset of the match, or nullopt (no match, an error, or out of steps: see failed()).
  std::optional<size_t> match_at(size_t start, uint64_t steps_max);

  bool failed() const { return out_of_steps_ || !error_.empty(); }
  bool out_of_steps() const { return out_of_steps_; }
  const std::string& error() const { return error_; }  // Lua's message, e.g. "malformed pattern (missing ']')"
  uint64_t steps() const { return steps_; }             // of the last match_at
  size_t capture_count() const { return level_; }
  const PatternCapture& capture(size_t i) const { return captures_[i]; }

 private:
  static constexpr size_t kNoMatch = SIZE_MAX;

  unsigned char pat(size_t i) const { return i < p_.size() ? static_cast<unsigned char>(p_[i]) : '\0'; }
  unsigned char subj(size_t i) const { return i < s_.size() ? static_cast<unsigned char>(s_[i]) : '\0'; }
  bool stopped() const { return out_of_steps_ || !error_.empty(); }
  bool step();
  size_t fail(const std::string& message);

  size_t match(size_t s, size_t p);
  size_t match_items(size_t s, size_t p);
  size_t greedy(size_t s, size_t p, size_t class_end);
  size_t lazy(size_t s, size_t p, size_t class_end);
  size_t open_capture(size_t s, size_t p, int64_t kind);
  size_t close_capture(size_t s, size_t p);
  size_t balanced(size_t s, size_t p);
  size_t back_reference(size_t s, unsigned char digit);
  size_t frontier(size_t s, size_t p, size_t* next_p);

  // One character class starting at p: where it ends, and whether subject byte c belongs to it.
  size_t class_end(size_t p);
  bool single_matches(size_t s, size_t p, size_t class_end) const;
  bool in_set(unsigned char c, size_t open, size_t close) const;
  // Charges a scan of `bytes` pattern bytes (a set of up to 4 KiB is read at every step that
  // tests it): one step per kSetBytesPerStep.
  void charge_scan(size_t bytes) const;
  static constexpr size_t kSetBytesPerStep = 16;

  std::string_view s_, p_;
  mutable uint64_t steps_ = 0;  // mutable: testing a set (const) costs steps too
  uint64_t steps_max_ = 0;
  int depth_left_ = kDepthMax;
  mutable bool out_of_steps_ = false;
  std::string error_;
  size_t level_ = 0;
  std::array<PatternCapture, kCapturesMax> captures_{};
};

// Whether a byte of the C locale belongs to a class letter (a c d g l p s u w x, or an upper-case
// one for the complement); any other letter or symbol stands for itself.
bool pattern_class_matches(unsigned char c, unsigned char class_letter);
// True if the pattern has none of Lua's magic characters ^$*+?.([%- (find then searches plainly).
bool pattern_is_plain(std::string_view pattern);

}  // namespace dst::scenarios
