#include "history/history.h"

namespace dst::history {

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kOk: return "ok";
    case Outcome::kFailed: return "failed";
    case Outcome::kUnknown: return "unknown";
  }
  return "?";
}

}  // namespace dst::history
