#include "history/coverage.h"

#include <algorithm>

#include "base/assert.h"

namespace dst::history {

namespace {

using etcdserverpb::ApiRequest;
using etcdserverpb::Compare;

// One request type of the API surface and the options the coverage tells apart.
struct ApiType {
  const char* type;
  bool write;  // a write can end "unknown"; a read is "ok" or "failed"
  std::vector<std::pair<const char*, const char*>> options;  // name, meaning ("any" is implied)
};

const std::vector<ApiType>& api_types() {
  static const std::vector<ApiType> kTypes = {
      {"range", false, {{"limit", "with a limit"}, {"count-only", "count only"}, {"keys-only", "keys only"},
                        {"serializable", "serializable (local, maybe stale)"}, {"revision", "at a past revision"},
                        {"sort", "sorted"}, {"range", "over a key range or prefix"},
                        {"revision-filter", "with min/max mod or create revision filters"}}},
      {"put", true, {{"prev-kv", "asking for the previous value"}, {"lease", "attached to a lease"},
                     {"ignore-value", "keeping the value (ignore_value)"}, {"ignore-lease", "keeping the lease (ignore_lease)"}}},
      {"delete", true, {{"prev-kv", "asking for the deleted values"}, {"range", "over a key range or prefix"}}},
      {"txn", true, {{"compare-value", "comparing a value"}, {"compare-version", "comparing a version"},
                     {"compare-create", "comparing a create revision"}, {"compare-mod", "comparing a mod revision"},
                     {"compare-lease", "comparing a lease"}, {"then-read", "reading in its success branch"},
                     {"else-read", "reading in its failure branch"}, {"else-write", "writing in its failure branch"},
                     {"nested", "with a txn inside"}}},
      {"compaction", true, {{"physical", "physical (waits for the deletions)"}}},
      {"lease-grant", true, {}},
      {"lease-revoke", true, {}},
      {"lease-keepalive", false, {}},
      {"lease-ttl", false, {{"keys", "listing the lease's keys"}}},
      {"lease-leases", false, {}},
      {"alarm", true, {}},
      {"status", false, {}},
      {"defragment", false, {}},
      {"hash-kv", false, {}},
      {"member-list", false, {}},
      {"member-add", true, {{"learner", "as a learner"}}},
      {"member-remove", true, {}},
  };
  return kTypes;
}

const char* type_of(const ApiRequest& r) {
  switch (r.request_case()) {
    case ApiRequest::kRange: return "range";
    case ApiRequest::kPut: return "put";
    case ApiRequest::kDeleteRange: return "delete";
    case ApiRequest::kTxn: return "txn";
    case ApiRequest::kCompaction: return "compaction";
    case ApiRequest::kLeaseGrant: return "lease-grant";
    case ApiRequest::kLeaseRevoke: return "lease-revoke";
    case ApiRequest::kLeaseKeepAlive: return "lease-keepalive";
    case ApiRequest::kLeaseTimeToLive: return "lease-ttl";
    case ApiRequest::kLeaseLeases: return "lease-leases";
    case ApiRequest::kAlarm: return "alarm";
    case ApiRequest::kStatus: return "status";
    case ApiRequest::kDefragment: return "defragment";
    case ApiRequest::kHashKv: return "hash-kv";
    case ApiRequest::kMemberList: return "member-list";
    case ApiRequest::kMemberAdd: return "member-add";
    case ApiRequest::kMemberRemove: return "member-remove";
    case ApiRequest::kMoveLeader: return "move-leader";
    case ApiRequest::kMemberPromote: return "member-promote";
    case ApiRequest::kMemberUpdate: return "member-update";
    default: return nullptr;
  }
}

void range_options(const etcdserverpb::RangeRequest& r, std::vector<const char*>& out) {
  if (r.limit() > 0) out.push_back("limit");
  if (r.count_only()) out.push_back("count-only");
  if (r.keys_only()) out.push_back("keys-only");
  if (r.serializable()) out.push_back("serializable");
  if (r.revision() > 0) out.push_back("revision");
  if (r.sort_order() != etcdserverpb::RangeRequest::NONE) out.push_back("sort");
  if (!r.range_end().empty()) out.push_back("range");
  if (r.min_mod_revision() || r.max_mod_revision() || r.min_create_revision() || r.max_create_revision())
    out.push_back("revision-filter");
}

void txn_options(const etcdserverpb::TxnRequest& t, std::vector<const char*>& out) {
  static constexpr std::pair<Compare::CompareTarget, const char*> kTargets[] = {
      {Compare::VALUE, "compare-value"}, {Compare::VERSION, "compare-version"}, {Compare::CREATE, "compare-create"},
      {Compare::MOD, "compare-mod"},     {Compare::LEASE, "compare-lease"}};
  for (const auto& [target, name] : kTargets) {
    const Compare::CompareTarget wanted = target;  // clang 14 cannot capture a structured binding
    if (std::any_of(t.compare().begin(), t.compare().end(), [&](const Compare& c) { return c.target() == wanted; }))
      out.push_back(name);
  }
  auto has = [](const auto& ops, auto pred) { return std::any_of(ops.begin(), ops.end(), pred); };
  auto reads = [](const etcdserverpb::RequestOp& op) { return op.has_request_range(); };
  auto writes = [](const etcdserverpb::RequestOp& op) { return op.has_request_put() || op.has_request_delete_range(); };
  auto nested = [](const etcdserverpb::RequestOp& op) { return op.has_request_txn(); };
  if (has(t.success(), reads)) out.push_back("then-read");
  if (has(t.failure(), reads)) out.push_back("else-read");
  if (has(t.failure(), writes)) out.push_back("else-write");
  if (has(t.success(), nested) || has(t.failure(), nested)) out.push_back("nested");
}

// The options of `r` the coverage tells apart (see api_types()).
std::vector<const char*> options_of(const ApiRequest& r) {
  std::vector<const char*> out;
  switch (r.request_case()) {
    case ApiRequest::kRange: range_options(r.range(), out); break;
    case ApiRequest::kPut:
      if (r.put().prev_kv()) out.push_back("prev-kv");
      if (r.put().lease() != 0) out.push_back("lease");
      if (r.put().ignore_value()) out.push_back("ignore-value");
      if (r.put().ignore_lease()) out.push_back("ignore-lease");
      break;
    case ApiRequest::kDeleteRange:
      if (r.delete_range().prev_kv()) out.push_back("prev-kv");
      if (!r.delete_range().range_end().empty()) out.push_back("range");
      break;
    case ApiRequest::kTxn: txn_options(r.txn(), out); break;
    case ApiRequest::kCompaction:
      if (r.compaction().physical()) out.push_back("physical");
      break;
    case ApiRequest::kLeaseTimeToLive:
      if (r.lease_time_to_live().keys()) out.push_back("keys");
      break;
    case ApiRequest::kMemberAdd:
      if (r.member_add().islearner()) out.push_back("learner");
      break;
    default: break;
  }
  return out;
}

// Watch options and what a watch received: "api.watch.<name>".
constexpr std::pair<const char*, const char*> kWatchItems[] = {
    {"any", "a watch stream was created"},
    {"range", "a watch over a key range or prefix"},
    {"prev-kv", "a watch asking for previous values"},
    {"progress-notify", "a watch asking for progress notifications"},
    {"filter-noput", "a watch filtering out puts (NOPUT)"},
    {"filter-nodelete", "a watch filtering out deletes (NODELETE)"},
    {"start-past", "a watch starting at a past revision"},
    {"start-now", "a watch starting at the current revision"},
    {"resumed", "a watch resumed on a new stream after a break"},
    {"events", "a watch received events"},
    {"progress", "a watch received a progress notification"},
    {"canceled-compacted", "a watch was canceled by compaction"},
};

void add_watch_coverage(const Watch& w, Coverage& out) {
  auto count = [&](const char* item) { ++out[std::string("api.watch.") + item]; };
  for (size_t i = 0; i < w.segments.size(); ++i) {
    const WatchSegment& s = w.segments[i];
    const etcdserverpb::WatchCreateRequest& c = s.request;
    count("any");
    if (!c.range_end().empty()) count("range");
    if (c.prev_kv()) count("prev-kv");
    if (c.progress_notify()) count("progress-notify");
    for (int f : c.filters()) count(f == etcdserverpb::WatchCreateRequest::NOPUT ? "filter-noput" : "filter-nodelete");
    count(c.start_revision() > 0 ? "start-past" : "start-now");
    if (i > 0) count("resumed");
    for (const WatchResponse& r : s.responses) {
      const etcdserverpb::WatchResponse& resp = r.response;
      if (resp.events_size() > 0) count("events");
      else if (resp.canceled() && resp.compact_revision() > 0) count("canceled-compacted");
      else if (!resp.created() && !resp.canceled()) count("progress");
    }
  }
}

std::vector<CoverageItem> build_catalogue() {
  std::vector<CoverageItem> items;
  for (Probe p : all_probes())
    items.push_back({std::string(probe_name(p)), std::string(probe_info(p).meaning)});
  for (const ApiType& t : api_types()) {
    std::vector<std::pair<const char*, const char*>> options = {{"any", "any"}};
    options.insert(options.end(), t.options.begin(), t.options.end());
    for (const char* outcome : {"ok", "failed", "unknown"}) {
      if (!t.write && std::string_view(outcome) == "unknown") continue;
      for (const auto& [option, meaning] : options) {
        const std::string what = std::string(option) == "any" ? "" : std::string(" ") + meaning;
        items.push_back({std::string("api.") + t.type + "." + option + "." + outcome,
                         std::string("a ") + t.type + " request" + what + " ended " + outcome});
      }
    }
  }
  for (const auto& [item, meaning] : kWatchItems) items.push_back({std::string("api.watch.") + item, meaning});
  return items;
}

}  // namespace

void add_probe_coverage(const ProbeCounts& counts, Coverage& out) {
  for (Probe p : all_probes())
    if (counts[p] > 0) out[std::string(probe_name(p))] += counts[p];
  for (const auto& [name, n] : counts.named) out[name] += n;
}

void add_api_coverage(const History& history, Coverage& out) {
  for (const Operation& op : history.operations) {
    const char* type = type_of(op.request);
    if (type == nullptr) continue;
    const std::string prefix = std::string("api.") + type + ".";
    const std::string outcome = outcome_name(op.outcome);
    ++out[prefix + "any." + outcome];
    for (const char* option : options_of(op.request)) ++out[prefix + option + "." + outcome];
  }
  for (const Watch& w : history.watches) add_watch_coverage(w, out);
}

const std::vector<CoverageItem>& coverage_catalogue() {
  static const std::vector<CoverageItem> kCatalogue = build_catalogue();
  return kCatalogue;
}

std::string coverage_meaning(const std::string& name) {
  for (const CoverageItem& item : coverage_catalogue())
    if (item.name == name) return item.meaning;
  return "";
}

}  // namespace dst::history
