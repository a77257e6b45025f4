// Invariant assertions that stay on in every build type.
//
// Two error channels (see DESIGN.md): expected failures are values (base/status.h); a broken
// invariant is a bug in dst or in the system under test's harness glue, and stops the process at
// once with the file, line and the failed condition, so the seed that reproduces it is still on
// screen. Never compiled out: NDEBUG has no effect here.
#pragma once

#include <cstdint>
#include <string>

namespace dst {

// Prints "file:line: assertion failed: expr (message)" to stderr and aborts.
[[noreturn]] void assert_fail(const char* file, int line, const char* expr, const std::string& message);

// Used by DST_ASSERT_EQ and friends to render the operands of a failed comparison.
std::string assert_describe(const char* lhs_expr, const char* op, const char* rhs_expr, int64_t lhs,
                            int64_t rhs);

}  // namespace dst

#define DST_ASSERT(cond)                                                  \
  do {                                                                    \
    if (__builtin_expect(!(cond), 0)) ::dst::assert_fail(__FILE__, __LINE__, #cond, ""); \
  } while (0)

#define DST_ASSERT_MSG(cond, msg)                                          \
  do {                                                                     \
    if (__builtin_expect(!(cond), 0)) ::dst::assert_fail(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

#define DST_ASSERT_CMP_(a, op, b)                                                              \
  do {                                                                                         \
    const auto dst_assert_a_ = (a);                                                            \
    const auto dst_assert_b_ = (b);                                                            \
    if (__builtin_expect(!(dst_assert_a_ op dst_assert_b_), 0))                                \
      ::dst::assert_fail(__FILE__, __LINE__, #a " " #op " " #b,                                \
                         ::dst::assert_describe(#a, #op, #b, static_cast<int64_t>(dst_assert_a_), \
                                                static_cast<int64_t>(dst_assert_b_)));         \
  } while (0)

#define DST_ASSERT_EQ(a, b) DST_ASSERT_CMP_(a, ==, b)
#define DST_ASSERT_NE(a, b) DST_ASSERT_CMP_(a, !=, b)
#define DST_ASSERT_LT(a, b) DST_ASSERT_CMP_(a, <, b)
#define DST_ASSERT_LE(a, b) DST_ASSERT_CMP_(a, <=, b)
#define DST_ASSERT_GT(a, b) DST_ASSERT_CMP_(a, >, b)
#define DST_ASSERT_GE(a, b) DST_ASSERT_CMP_(a, >=, b)

#define DST_UNREACHABLE(msg) ::dst::assert_fail(__FILE__, __LINE__, "unreachable", (msg))
