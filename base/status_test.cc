// Tests of Status and Result<T> (base/status.h): ok and error statuses, their text form, the name
// of every status code, and Result's value/status access including the assertions that guard it.
#include "base/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dst {
namespace {

// Every code, in declaration order. A new code must be added here (and to status_code_name).
const std::vector<StatusCode>& all_codes() {
  static const std::vector<StatusCode> codes = {
      StatusCode::kOk,
      StatusCode::kTimeout,
      StatusCode::kCancelled,
      StatusCode::kClosed,
      StatusCode::kUnavailable,
      StatusCode::kIoError,
      StatusCode::kNoSpace,
      StatusCode::kNotFound,
      StatusCode::kAlreadyExists,
      StatusCode::kInvalidArgument,
      StatusCode::kResourceExhausted,
      StatusCode::kCorruption,
  };
  return codes;
}

TEST(Status, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.is_ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.to_string(), "ok");
}

TEST(Status, OkFactoryEqualsDefault) {
  EXPECT_TRUE(Status::ok().is_ok());
  EXPECT_EQ(Status::ok(), Status());
  EXPECT_EQ(Status::ok().to_string(), "ok");
}

TEST(Status, ErrorKeepsCodeAndMessage) {
  Status s(StatusCode::kUnavailable, "stream 7 broken");
  EXPECT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "stream 7 broken");
}

TEST(Status, ToStringIsNameColonMessage) {
  EXPECT_EQ(
      Status(StatusCode::kUnavailable, "stream 7 broken: link 1->2 cut for 5.000s").to_string(),
      "unavailable: stream 7 broken: link 1->2 cut for 5.000s");
  EXPECT_EQ(Status(StatusCode::kIoError, "fsync failed").to_string(), "io error: fsync failed");
  EXPECT_EQ(Status(StatusCode::kNotFound, "no file named \"x\"").to_string(),
            "not found: no file named \"x\"");
}

TEST(Status, ToStringWithoutMessageIsJustTheName) {
  EXPECT_EQ(Status(StatusCode::kTimeout, "").to_string(), "timeout");
  EXPECT_EQ(Status(StatusCode::kCorruption, "").to_string(), "corruption");
}

TEST(Status, ToStringOfEveryErrorCodeStartsWithItsName) {
  for (StatusCode code : all_codes()) {
    if (code == StatusCode::kOk) continue;
    const Status s(code, "why");
    EXPECT_EQ(s.to_string(), std::string(status_code_name(code)) + ": why");
  }
}

TEST(Status, EqualityComparesCodeAndMessage) {
  EXPECT_EQ(Status(StatusCode::kTimeout, "a"), Status(StatusCode::kTimeout, "a"));
  EXPECT_NE(Status(StatusCode::kTimeout, "a"), Status(StatusCode::kTimeout, "b"));
  EXPECT_NE(Status(StatusCode::kTimeout, "a"), Status(StatusCode::kCancelled, "a"));
  EXPECT_NE(Status(StatusCode::kTimeout, ""), Status::ok());
}

TEST(Status, CopyAndMoveKeepContents) {
  const Status original(StatusCode::kNoSpace, "disk full");
  Status copy = original;
  EXPECT_EQ(copy, original);
  Status moved = std::move(copy);
  EXPECT_EQ(moved, original);
  EXPECT_EQ(moved.to_string(), "no space: disk full");
}

TEST(StatusCodeName, EveryCodeHasItsName) {
  EXPECT_STREQ(status_code_name(StatusCode::kOk), "ok");
  EXPECT_STREQ(status_code_name(StatusCode::kTimeout), "timeout");
  EXPECT_STREQ(status_code_name(StatusCode::kCancelled), "cancelled");
  EXPECT_STREQ(status_code_name(StatusCode::kClosed), "closed");
  EXPECT_STREQ(status_code_name(StatusCode::kUnavailable), "unavailable");
  EXPECT_STREQ(status_code_name(StatusCode::kIoError), "io error");
  EXPECT_STREQ(status_code_name(StatusCode::kNoSpace), "no space");
  EXPECT_STREQ(status_code_name(StatusCode::kNotFound), "not found");
  EXPECT_STREQ(status_code_name(StatusCode::kAlreadyExists), "already exists");
  EXPECT_STREQ(status_code_name(StatusCode::kInvalidArgument), "invalid argument");
  EXPECT_STREQ(status_code_name(StatusCode::kResourceExhausted), "resource exhausted");
  EXPECT_STREQ(status_code_name(StatusCode::kCorruption), "corruption");
}

TEST(StatusCodeName, NamesAreDistinctAndKnown) {
  std::set<std::string> names;
  for (StatusCode code : all_codes()) {
    const std::string name = status_code_name(code);
    EXPECT_NE(name, "unknown status") << static_cast<int>(code);
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
  }
  EXPECT_EQ(names.size(), all_codes().size());
}

TEST(StatusCodeName, OutOfRangeCodeIsUnknown) {
  EXPECT_STREQ(status_code_name(static_cast<StatusCode>(999)), "unknown status");
}

TEST(Result, HoldsValue) {
  Result<int> r = 42;
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r.value(), 42);
  EXPECT_EQ(*r, 42);
  EXPECT_TRUE(r.status().is_ok());
  EXPECT_EQ(r.status(), Status::ok());
}

TEST(Result, HoldsError) {
  Result<int> r = Status(StatusCode::kNotFound, "no such key");
  EXPECT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "no such key");
}

TEST(Result, ValueIsMutableThroughReferenceAndArrow) {
  Result<std::string> r = std::string("abc");
  r.value() += "d";
  EXPECT_EQ(*r, "abcd");
  EXPECT_EQ(r->size(), 4u);
  *r = "x";
  EXPECT_EQ(r.value(), "x");
}

TEST(Result, ConstAccess) {
  const Result<std::string> r = std::string("hello");
  EXPECT_EQ(r.value(), "hello");
  EXPECT_EQ(*r, "hello");
  EXPECT_EQ(r->size(), 5u);
}

TEST(Result, RvalueValueMovesOut) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  std::unique_ptr<int> p = std::move(r).value();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 7);
}

TEST(Result, ReturnedFromFunctionBothWays) {
  auto divide = [](int a, int b) -> Result<int> {
    if (b == 0) return Status(StatusCode::kInvalidArgument, "division by zero");
    return a / b;
  };
  Result<int> good = divide(10, 2);
  ASSERT_TRUE(good.is_ok());
  EXPECT_EQ(*good, 5);
  Result<int> bad = divide(1, 0);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().to_string(), "invalid argument: division by zero");
}

TEST(ResultDeathTest, ConstructingFromOkStatusDies) {
  EXPECT_DEATH(
      {
        Result<int> r(Status::ok());
        (void)r;
      },
      "Result constructed from an ok Status without a value");
}

TEST(ResultDeathTest, ValueOfErrorDiesWithStatusText) {
  Result<int> r = Status(StatusCode::kNotFound, "no file named wal-7");
  EXPECT_DEATH((void)r.value(), "not found: no file named wal-7");
}

TEST(ResultDeathTest, ConstValueOfErrorDiesWithStatusText) {
  const Result<int> r = Status(StatusCode::kTimeout, "deadline passed");
  EXPECT_DEATH((void)r.value(), "timeout: deadline passed");
}

TEST(ResultDeathTest, DereferenceOfErrorDies) {
  Result<std::string> r = Status(StatusCode::kCorruption, "bad crc");
  EXPECT_DEATH((void)*r, "corruption: bad crc");
  EXPECT_DEATH((void)r->size(), "corruption: bad crc");
}

TEST(ResultDeathTest, RvalueValueOfErrorDies) {
  Result<std::unique_ptr<int>> r = Status(StatusCode::kClosed, "channel closed");
  EXPECT_DEATH((void)std::move(r).value(), "closed: channel closed");
}

}  // namespace
}  // namespace dst
