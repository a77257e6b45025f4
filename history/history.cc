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

int64_t response_revision(const etcdserverpb::ApiResponse& r) {
  switch (r.response_case()) {
    case etcdserverpb::ApiResponse::kRange: return r.range().header().revision();
    case etcdserverpb::ApiResponse::kPut: return r.put().header().revision();
    case etcdserverpb::ApiResponse::kDeleteRange: return r.delete_range().header().revision();
    case etcdserverpb::ApiResponse::kTxn: return r.txn().header().revision();
    case etcdserverpb::ApiResponse::kCompaction: return r.compaction().header().revision();
    case etcdserverpb::ApiResponse::kLeaseGrant: return r.lease_grant().header().revision();
    case etcdserverpb::ApiResponse::kLeaseRevoke: return r.lease_revoke().header().revision();
    default: return 0;
  }
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
