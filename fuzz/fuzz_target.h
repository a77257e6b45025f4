// What every fuzz target shares: the entry point libFuzzer calls (and fuzz_replay_main.cc when
// the compiler has no libFuzzer), and a check that stays on in every build: a target that finds a
// broken promise (an error without the file's name, a verdict out of range) aborts, which the
// fuzzer reports as a crash with the input that caused it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace dst::fuzz {

inline void require(bool ok, const char* what, std::string_view detail = {}) {
  if (ok) return;
  const std::string text(detail);  // (an empty view may have no data pointer)
  std::fprintf(stderr, "fuzz target: broken promise: %s\n%s\n", what, text.c_str());
  std::abort();
}

inline bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace dst::fuzz
