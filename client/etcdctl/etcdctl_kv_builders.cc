// get, put and del: the requests etcdctl 3.4 builds from their arguments and flags (getGetOp,
// getPutOp, getDelOp), including the clientv3 option rules for --prefix, --from-key and sorting.
#include <algorithm>
#include <cctype>

#include "client/etcdctl/etcdctl_parse.h"
#include "client/etcdctl/etcdctl_parse_internal.h"
#include "client/etcdctl/go_format.h"

namespace dst::etcdctl {


namespace internal {

namespace {

using etcdserverpb::RangeRequest;

const std::vector<FlagSpec> kGetFlags = {
    {"consistency", 0, FlagKind::kString}, {"order", 0, FlagKind::kString},   {"sort-by", 0, FlagKind::kString},
    {"limit", 0, FlagKind::kInt64},        {"prefix", 0, FlagKind::kBool},    {"from-key", 0, FlagKind::kBool},
    {"rev", 0, FlagKind::kInt64},          {"keys-only", 0, FlagKind::kBool}, {"count-only", 0, FlagKind::kBool},
    {"print-value-only", 0, FlagKind::kBool}};
const std::vector<FlagSpec> kPutFlags = {{"lease", 0, FlagKind::kString},
                                         {"prev-kv", 0, FlagKind::kBool},
                                         {"ignore-value", 0, FlagKind::kBool},
                                         {"ignore-lease", 0, FlagKind::kBool}};
const std::vector<FlagSpec> kDelFlags = {
    {"prefix", 0, FlagKind::kBool}, {"prev-kv", 0, FlagKind::kBool}, {"from-key", 0, FlagKind::kBool}};

// --prefix / --from-key on key, as etcdctl's getGetOp/getDelOp and clientv3's WithPrefix/WithFromKey
// combine them: an empty key means "every key" (key = range_end = "\0").
void apply_prefix_or_from_key(bool prefix, bool from_key, std::string* key, std::string* range_end) {
  if (prefix) {
    if (key->empty()) {
      *key = std::string(1, '\0');
      *range_end = std::string(1, '\0');
    } else {
      *range_end = prefix_range_end(*key);
    }
  }
  if (from_key) {
    if (key->empty()) *key = std::string(1, '\0');
    *range_end = std::string(1, '\0');
  }
}

Status check_key_and_range_flags(const ParsedFlags& f) {
  if (f.get_bool("prefix") && f.get_bool("from-key"))
    return usage("`--prefix` and `--from-key` cannot be set at the same time, choose one");
  if (f.positional().size() > 1 && (f.get_bool("prefix") || f.get_bool("from-key")))
    return usage("too many arguments, only accept one argument when `--prefix` or `--from-key` is set");
  return Status::ok();
}

Result<RangeRequest::SortOrder> sort_order(const std::string& text) {
  std::string upper = text;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  if (upper.empty()) return RangeRequest::NONE;
  if (upper == "ASCEND") return RangeRequest::ASCEND;
  if (upper == "DESCEND") return RangeRequest::DESCEND;
  return bad_feature("bad sort order " + text);
}

Result<RangeRequest::SortTarget> sort_target(const std::string& text) {
  std::string upper = text;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  if (upper.empty() || upper == "KEY") return RangeRequest::KEY;
  if (upper == "CREATE") return RangeRequest::CREATE;
  if (upper == "MODIFY") return RangeRequest::MOD;
  if (upper == "VALUE") return RangeRequest::VALUE;
  if (upper == "VERSION") return RangeRequest::VERSION;
  return bad_feature("bad sort target " + text);
}

}  // namespace

const std::vector<FlagSpec>& get_flags() { return kGetFlags; }
const std::vector<FlagSpec>& put_flags() { return kPutFlags; }
const std::vector<FlagSpec>& del_flags() { return kDelFlags; }

Result<RangeRequest> build_range(const ParsedFlags& f) {
  const auto& pos = f.positional();
  // etcdctl ignores arguments after range_end; so do we.
  if (pos.empty()) return usage("get command needs one argument as key and an optional argument as range_end");
  if (Status s = check_key_and_range_flags(f); !s.is_ok()) return s;
  if (f.get_bool("keys-only") && f.get_bool("count-only"))
    return usage("`--keys-only` and `--count-only` cannot be set at the same time, choose one");
  RangeRequest r;
  const std::string consistency = f.get_string("consistency", "l");
  if (consistency == "s") {
    r.set_serializable(true);
  } else if (consistency != "l") {
    return usage("unknown consistency flag " + go_quote(consistency));
  }
  std::string key = pos[0];
  std::string range_end = pos.size() > 1 ? pos[1] : "";
  r.set_limit(f.get_int("limit"));
  if (f.get_int("rev") > 0) r.set_revision(f.get_int("rev"));
  auto order = sort_order(f.get_string("order"));
  if (!order.is_ok()) return order.status();
  auto target = sort_target(f.get_string("sort-by"));
  if (!target.is_ok()) return target.status();
  // clientv3.WithSort: ascending by key is what the server does anyway, so it is sent as NONE.
  r.set_sort_order(*target == RangeRequest::KEY && *order == RangeRequest::ASCEND ? RangeRequest::NONE : *order);
  r.set_sort_target(*target);
  apply_prefix_or_from_key(f.get_bool("prefix"), f.get_bool("from-key"), &key, &range_end);
  r.set_key(key);
  r.set_range_end(range_end);
  r.set_keys_only(f.get_bool("keys-only"));
  r.set_count_only(f.get_bool("count-only"));
  return r;
}

Result<etcdserverpb::PutRequest> build_put(const ParsedFlags& f) {
  const auto& pos = f.positional();
  const char* kNeeds = "put command needs 1 argument and input from stdin or 2 arguments";
  if (pos.empty()) return usage(kNeeds);
  const bool ignore_value = f.get_bool("ignore-value");
  if (ignore_value && pos.size() > 1) return usage("put command needs only 1 argument when 'ignore-value' is set");
  // etcdctl would read a missing value from stdin; `dst shell`'s stdin is the script, so no.
  if (!ignore_value && pos.size() < 2) return usage(kNeeds);
  auto lease = go_parse_int(f.get_string("lease", "0"), 16);
  if (!lease.is_ok()) return usage("bad lease ID (" + lease.status().message() + "), expecting ID in Hex");
  etcdserverpb::PutRequest r;
  r.set_key(pos[0]);
  if (!ignore_value) r.set_value(pos[1]);
  r.set_lease(*lease);
  r.set_prev_kv(f.get_bool("prev-kv"));
  r.set_ignore_value(ignore_value);
  r.set_ignore_lease(f.get_bool("ignore-lease"));
  return r;
}

Result<etcdserverpb::DeleteRangeRequest> build_delete(const ParsedFlags& f) {
  const auto& pos = f.positional();
  if (pos.empty() || pos.size() > 2)
    return usage("del command needs one argument as key and an optional argument as range_end");
  if (Status s = check_key_and_range_flags(f); !s.is_ok()) return s;
  std::string key = pos[0];
  std::string range_end = pos.size() > 1 ? pos[1] : "";
  apply_prefix_or_from_key(f.get_bool("prefix"), f.get_bool("from-key"), &key, &range_end);
  etcdserverpb::DeleteRangeRequest r;
  r.set_key(key);
  r.set_range_end(range_end);
  r.set_prev_kv(f.get_bool("prev-kv"));
  return r;
}

}  // namespace internal
}  // namespace dst::etcdctl
