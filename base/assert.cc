#include "base/assert.h"

#include <cstdio>
#include <cstdlib>

namespace dst {

void assert_fail(const char* file, int line, const char* expr, const std::string& message) {
  std::fflush(stdout);
  if (message.empty()) {
    std::fprintf(stderr, "%s:%d: assertion failed: %s\n", file, line, expr);
  } else {
    std::fprintf(stderr, "%s:%d: assertion failed: %s (%s)\n", file, line, expr, message.c_str());
  }
  std::fflush(stderr);
  std::abort();
}

std::string assert_describe(const char* lhs_expr, const char* op, const char* rhs_expr, int64_t lhs,
                            int64_t rhs) {
  return std::string(lhs_expr) + " = " + std::to_string(lhs) + ", " + rhs_expr + " = " +
         std::to_string(rhs);
}

}  // namespace dst
