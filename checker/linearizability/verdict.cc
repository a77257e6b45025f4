// See verdict.h.
#include "checker/linearizability/verdict.h"

namespace dst::checker {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kLinearizable: return "linearizable";
    case Verdict::kViolation: return "NOT linearizable";
    case Verdict::kUnknown: return "unknown";
  }
  return "?";
}

}  // namespace dst::checker
