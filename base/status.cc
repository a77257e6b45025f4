#include "base/status.h"

namespace dst {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kTimeout: return "timeout";
    case StatusCode::kCancelled: return "cancelled";
    case StatusCode::kClosed: return "closed";
    case StatusCode::kUnavailable: return "unavailable";
    case StatusCode::kIoError: return "io error";
    case StatusCode::kNoSpace: return "no space";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kAlreadyExists: return "already exists";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kResourceExhausted: return "resource exhausted";
    case StatusCode::kCorruption: return "corruption";
    case StatusCode::kOutOfRange: return "out of range";
    case StatusCode::kFailedPrecondition: return "failed precondition";
    case StatusCode::kUnimplemented: return "unimplemented";
  }
  return "unknown status";
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  if (message_.empty()) return status_code_name(code_);
  return std::string(status_code_name(code_)) + ": " + message_;
}

}  // namespace dst
