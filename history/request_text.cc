#include "history/request_text.h"

namespace dst::history {

std::string range_text(const std::string& key, const std::string& end) {
  if (end.empty()) return key;
  if (end == std::string(1, '\0')) return key + "..";
  return key + ".." + end;
}

std::string compare_text(const etcdserverpb::Compare& c) {
  using etcdserverpb::Compare;
  static const char* kTargets[] = {"version", "create", "mod", "value", "lease"};
  static const char* kResults[] = {"==", ">", "<", "!="};
  std::string v;
  switch (c.target()) {
    case Compare::VERSION: v = std::to_string(c.version()); break;
    case Compare::CREATE: v = std::to_string(c.create_revision()); break;
    case Compare::MOD: v = std::to_string(c.mod_revision()); break;
    case Compare::VALUE: v = "\"" + c.value() + "\""; break;
    case Compare::LEASE: v = std::to_string(c.lease()); break;
    default: v = "?";
  }
  const int t = static_cast<int>(c.target()), r = static_cast<int>(c.result());
  return std::string(t >= 0 && t < 5 ? kTargets[t] : "?") + "(" + range_text(c.key(), c.range_end()) + ") " +
         (r >= 0 && r < 4 ? kResults[r] : "?") + " " + v;
}

std::string range_request_text(const etcdserverpb::RangeRequest& r) {
  std::string s = "get " + range_text(r.key(), r.range_end());
  if (r.revision()) s += " @" + std::to_string(r.revision());
  if (r.limit()) s += " limit " + std::to_string(r.limit());
  if (r.serializable()) s += " serializable";
  if (r.count_only()) s += " count-only";
  if (r.keys_only()) s += " keys-only";
  return s;
}

std::string other_request_text(const etcdserverpb::ApiRequest& r) {
  using etcdserverpb::ApiRequest;
  switch (r.request_case()) {
    case ApiRequest::kCompaction: return "compact " + std::to_string(r.compaction().revision());
    case ApiRequest::kLeaseGrant: return "lease-grant ttl " + std::to_string(r.lease_grant().ttl());
    case ApiRequest::kLeaseRevoke: return "lease-revoke " + std::to_string(r.lease_revoke().id());
    default: return "request " + std::to_string(static_cast<int>(r.request_case()));
  }
}

}  // namespace dst::history
