// Expected failures as values: Status (code + message) and Result<T> (a value or a Status).
//
// Used wherever a caller is expected to handle the failure: a disk write that hits ENOSPC, a stream
// broken by a partition, a receive that timed out. Bugs are assertions (base/assert.h), not Statuses.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "base/assert.h"

namespace dst {

enum class StatusCode {
  kOk = 0,
  kTimeout,            // a deadline passed before the operation completed
  kCancelled,          // the waiting fiber was cancelled or its process is being killed
  kClosed,             // the channel, socket or stream was closed by its owner
  kUnavailable,        // the peer cannot be reached: partition, no listener, stream broken
  kIoError,            // the (simulated) device reported an I/O error, e.g. a failed fsync
  kNoSpace,            // the (simulated) device is full
  kNotFound,           // a named thing (file, port, process) does not exist
  kAlreadyExists,      // a named thing already exists
  kInvalidArgument,    // the caller passed something impossible; the message says what
  kResourceExhausted,  // a bounded queue or table is full
  kCorruption,         // stored data failed a checksum or could not be parsed
  kOutOfRange,         // a revision outside what is available (compacted, or in the future)
  kFailedPrecondition, // the system is not in a state the operation needs (e.g. too few members started)
  kUnimplemented,      // a well-formed request for something not supported (etcdctl's "bad sort order")
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {
    DST_ASSERT_MSG(code != StatusCode::kOk || message_.empty(), "an ok Status carries no message");
  }

  static Status ok() { return Status(); }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "unavailable: stream 7 broken: link 1->2 cut for 5.000s"
  std::string to_string() const;

  bool operator==(const Status& other) const = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design, like absl::StatusOr
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    DST_ASSERT_MSG(!status_.is_ok(), "Result constructed from an ok Status without a value");
  }

  bool is_ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & {
    DST_ASSERT_MSG(value_.has_value(), status_.to_string());
    return *value_;
  }
  const T& value() const& {
    DST_ASSERT_MSG(value_.has_value(), status_.to_string());
    return *value_;
  }
  T&& value() && {
    DST_ASSERT_MSG(value_.has_value(), status_.to_string());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace dst
