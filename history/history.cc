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

const char* kube_event_type_name(KubeWatchEvent::Type t) {
  switch (t) {
    case KubeWatchEvent::Type::kAdded: return "ADDED";
    case KubeWatchEvent::Type::kModified: return "MODIFIED";
    case KubeWatchEvent::Type::kDeleted: return "DELETED";
    case KubeWatchEvent::Type::kBookmark: return "BOOKMARK";
  }
  return "?";
}

}  // namespace dst::history
