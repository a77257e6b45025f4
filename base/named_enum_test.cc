#include "base/named_enum.h"

#include <gtest/gtest.h>

namespace dst {
namespace {

enum class Color { kRed, kGreen };
constexpr NamedValue<Color> kColors[] = {{Color::kRed, "red"}, {Color::kGreen, "green"}};

TEST(NamedEnum, NamesParsesAndListsInTableOrder) {
  EXPECT_EQ(name_of(kColors, Color::kGreen), "green");
  Result<Color> g = parse_named(kColors, "green", "color");
  ASSERT_TRUE(g.is_ok());
  EXPECT_EQ(*g, Color::kGreen);
  EXPECT_EQ(values_of(kColors), (std::vector<Color>{Color::kRed, Color::kGreen}));
}

TEST(NamedEnum, AnUnknownNameListsTheValidOnes) {
  Result<Color> b = parse_named(kColors, "blue", "color");
  ASSERT_FALSE(b.is_ok());
  EXPECT_EQ(b.status().message(), "unknown color 'blue' (expected one of: red, green)");
}

}  // namespace
}  // namespace dst
