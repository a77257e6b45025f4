// etcd 3.4's server flags; see etcd_server_flags.h.
#include "client/etcdctl/etcd_server_flags.h"
#include "base/parse_number.h"

#include <charconv>
#include <limits>

#include "client/etcdctl/go_format.h"
#include "node/server/kv_apply.h"

namespace dst::etcdctl {
namespace {

constexpr int64_t kDefaultQuotaBytes = int64_t{2} << 30;     // etcd's DefaultQuotaBytes
constexpr int64_t kQuotaBytesMax = int64_t{1} << 40;          // 1 TiB: far past etcd's 8 GiB maximum
constexpr uint64_t kMaxRequestBytesMax = uint64_t{1} << 31;   // gRPC's message sizes are int32
constexpr uint64_t kDefaultSnapshotCount = 100'000;           // etcd 3.4's DefaultSnapshotCount
constexpr uint64_t kSnapshotCountMax = 10'000'000;
constexpr int64_t kRevisionRetentionMax = int64_t{1} << 62;

Status invalid(std::string_view flag, const std::string& what) {
  return Status(StatusCode::kInvalidArgument, "--" + std::string(flag) + ": " + what);
}

// Go's strconv.ParseInt(s, 0, 64) for the forms people type: decimal with a sign, or 0x hex.
std::optional<int64_t> go_int(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  const std::optional<uint64_t> v = parse_u64(s, base);
  if (!v || *v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return negative ? -static_cast<int64_t>(*v) : static_cast<int64_t>(*v);
}

// An unsigned flag within [0, max].
Result<uint64_t> unsigned_flag(std::string_view flag, std::string_view value, uint64_t max) {
  std::optional<int64_t> v = go_int(value);
  if (!v || *v < 0) return invalid(flag, "expected a non-negative integer, got " + go_quote(value));
  if (static_cast<uint64_t>(*v) > max)
    return invalid(flag, "at most " + std::to_string(max) + ", got " + std::string(value));
  return static_cast<uint64_t>(*v);
}

Status set_number(std::string_view name, std::string_view value, node::ServerOptions& o) {
  if (name == "quota-backend-bytes") {
    std::optional<int64_t> v = go_int(value);
    if (!v) return invalid(name, "expected an integer (0: etcd's 2 GiB, negative: no quota), got " + go_quote(value));
    if (*v > kQuotaBytesMax) return invalid(name, "at most " + std::to_string(kQuotaBytesMax) + ", got " + std::string(value));
    o.api.quota_bytes = *v < 0 ? std::numeric_limits<uint64_t>::max()
                               : static_cast<uint64_t>(*v == 0 ? kDefaultQuotaBytes : *v);
    return Status::ok();
  }
  if (name == "max-txn-ops") {
    Result<uint64_t> v = unsigned_flag(name, value, node::kMaxTxnOpsCeiling);
    if (!v.is_ok()) return v.status();
    o.api.max_txn_ops = *v;
    return Status::ok();
  }
  if (name == "max-request-bytes") {
    Result<uint64_t> v = unsigned_flag(name, value, kMaxRequestBytesMax);
    if (!v.is_ok()) return v.status();
    o.api.max_request_bytes = *v;
    return Status::ok();
  }
  if (name != "snapshot-count") return invalid(name, "not a server flag dst knows");
  Result<uint64_t> v = unsigned_flag(name, value, kSnapshotCountMax);
  if (!v.is_ok()) return v.status();
  o.snapshot_every = *v == 0 ? kDefaultSnapshotCount : *v;
  return Status::ok();
}

}  // namespace

const std::vector<std::string_view>& etcd_server_flag_names() {
  static const std::vector<std::string_view> names = {"quota-backend-bytes", "max-txn-ops", "max-request-bytes",
                                                      "snapshot-count", "auto-compaction-mode",
                                                      "auto-compaction-retention"};
  return names;
}

Result<node::AutoCompaction> parse_auto_compaction(std::string_view mode, std::string_view retention) {
  node::AutoCompaction c;
  if (mode == "periodic") {
    c.mode = node::AutoCompaction::Mode::kPeriodic;
  } else if (mode == "revision") {
    c.mode = node::AutoCompaction::Mode::kRevision;
  } else {
    return invalid("auto-compaction-mode", "expected periodic or revision, got " + go_quote(mode));
  }
  // embed/etcd.go parseCompactionRetention: an integer first (hours, or revisions), else a duration.
  int64_t amount = 0;  // hours or revisions for an integer; nanoseconds for a duration
  bool integer = false;
  if (std::optional<int64_t> n = go_int(retention); n && *n >= 0 && retention.find_first_of("xX") == std::string_view::npos) {
    amount = *n;
    integer = true;
  } else {
    Result<int64_t> d = go_parse_duration(retention);
    if (!d.is_ok()) return invalid("auto-compaction-retention", "error parsing CompactionRetention: " + d.status().message());
    if (*d < 0) return invalid("auto-compaction-retention", "expected a retention of 0 or more, got " + go_quote(retention));
    amount = *d;
  }
  if (c.mode == node::AutoCompaction::Mode::kRevision) {
    if (amount > kRevisionRetentionMax) return invalid("auto-compaction-retention", "too large: " + std::string(retention));
    c.revisions = amount;
    return c;
  }
  const int64_t hours_max = node::kAutoCompactionPeriodMax / sim::seconds(3600);
  if (integer ? amount > hours_max : amount > node::kAutoCompactionPeriodMax)
    return invalid("auto-compaction-retention",
                   "a periodic retention of at most " + std::to_string(hours_max) + "h, got " + std::string(retention));
  c.period = integer ? amount * sim::seconds(3600) : amount;
  return c;
}

Status apply_etcd_server_flags(const EtcdServerFlags& flags, node::ServerOptions& options) {
  std::string mode = "periodic";  // etcd's defaults
  std::string retention = "0";
  for (const auto& [name, value] : flags.given) {
    if (name == "auto-compaction-mode") {
      mode = value;
    } else if (name == "auto-compaction-retention") {
      retention = value;
    } else {
      Status s = set_number(name, value, options);
      if (!s.is_ok()) return s;
    }
  }
  Result<node::AutoCompaction> ac = parse_auto_compaction(mode, retention);
  if (!ac.is_ok()) return ac.status();
  options.api.auto_compaction = *ac;
  return Status::ok();
}

}  // namespace dst::etcdctl
