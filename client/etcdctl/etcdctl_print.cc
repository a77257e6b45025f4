#include "client/etcdctl/etcdctl_print.h"

#include "client/etcdctl/table.h"

#include "client/etcdctl/etcd_json.h"
#include "client/etcdctl/etcdctl_print_fields.h"
#include "client/etcdctl/etcdctl_print_protobuf.h"
#include "client/etcdctl/go_format.h"

namespace dst::etcdctl {

namespace {

Output stdout_text(std::string text) { return Output{std::move(text), "", kExitSuccess}; }

Output json_line(const std::string& json) { return stdout_text(json + "\n"); }

// etcdctl's addHexPrefix(hex.EncodeToString(b)): every byte as \x and two lower-case digits.
std::string hex_escaped(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 4);
  for (unsigned char c : bytes) {
    out += "\\x";
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// printKV: the key line (unless --print-value-only), then the value line, even when empty.
void print_kv(const mvccpb::KeyValue& kv, const PrintOptions& p, std::string* out) {
  if (!p.print_value_only) *out += (p.hex ? hex_escaped(kv.key()) : kv.key()) + "\n";
  *out += (p.hex ? hex_escaped(kv.value()) : kv.value()) + "\n";
}

std::string simple_get(const etcdserverpb::RangeResponse& r, const PrintOptions& p) {
  std::string out;
  for (const auto& kv : r.kvs()) print_kv(kv, p, &out);
  return out;
}

std::string simple_put(const etcdserverpb::PutResponse& r, const PrintOptions& p) {
  std::string out = "OK\n";
  if (r.has_prev_kv()) print_kv(r.prev_kv(), p, &out);
  return out;
}

std::string simple_del(const etcdserverpb::DeleteRangeResponse& r, const PrintOptions& p) {
  std::string out = std::to_string(r.deleted()) + "\n";
  for (const auto& kv : r.prev_kvs()) print_kv(kv, p, &out);
  return out;
}

std::string simple_txn(const etcdserverpb::TxnResponse& r, const PrintOptions& p) {
  std::string out = r.succeeded() ? "SUCCESS\n" : "FAILURE\n";
  for (const auto& op : r.responses()) {
    out += "\n";
    switch (op.response_case()) {
      case etcdserverpb::ResponseOp::kResponseRange: out += simple_get(op.response_range(), p); break;
      case etcdserverpb::ResponseOp::kResponsePut: out += simple_put(op.response_put(), p); break;
      case etcdserverpb::ResponseOp::kResponseDeleteRange: out += simple_del(op.response_delete_range(), p); break;
      // etcdctl's txn syntax cannot nest a txn; a nested response is printed like a top-level one.
      case etcdserverpb::ResponseOp::kResponseTxn: out += simple_txn(op.response_txn(), p); break;
      case etcdserverpb::ResponseOp::RESPONSE_NOT_SET: break;
    }
  }
  return out;
}

// WatchResponse.Err() in clientv3 3.4: a compact revision means ErrCompacted; a cancel reason the
// server gave is shown as is when it is one of etcd's own error strings, else as the gRPC error
// clientv3 wraps it in; no reason at all means ErrFutureRev.
std::string watch_cancel_reason(const etcdserverpb::WatchResponse& r) {
  if (r.compact_revision() != 0) return "etcdserver: mvcc: required revision has been compacted";
  if (r.cancel_reason().empty()) return "etcdserver: mvcc: required revision is a future revision";
  if (r.cancel_reason().rfind("etcdserver: ", 0) == 0) return r.cancel_reason();
  return "rpc error: code = FailedPrecondition desc = " + r.cancel_reason();
}

// clientv3.WatchResponse.IsProgressNotify.
bool is_progress_notify(const etcdserverpb::WatchResponse& r) {
  return r.events().empty() && !r.canceled() && !r.created() && r.compact_revision() == 0 &&
         r.header().revision() != 0;
}

// protobuf's compact text format of an AlarmMember, which Go's %+v prints via its String().
std::string alarm_text(const etcdserverpb::AlarmMember& a) {
  std::string out;
  if (a.memberid() != 0) out += "memberID:" + std::to_string(a.memberid()) + " ";
  if (a.alarm() != etcdserverpb::NONE) out += "alarm:" + etcdserverpb::AlarmType_Name(a.alarm()) + " ";
  return out;
}

// Go's strings.Join: empty items keep their separators.
std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : sep) + items[i];
  return out;
}

}  // namespace

Output print_error(std::string_view message, int exit_code) {
  return Output{"", "Error: " + std::string(message) + "\n", exit_code};
}

Output print_request_error(const Command& command, std::string_view message, std::string_view endpoint) {
  const std::string msg(message);
  const std::string ep(endpoint);
  if (std::holds_alternative<LeaseGrantCommand>(command)) return print_error("failed to grant lease (" + msg + ")");
  if (std::holds_alternative<LeaseRevokeCommand>(command)) return print_error("failed to revoke lease (" + msg + ")");
  if (std::holds_alternative<LeaseTimeToLiveCommand>(command) || std::holds_alternative<LeaseKeepAliveCommand>(command) ||
      std::holds_alternative<LeaseListCommand>(command)) {
    return print_error(msg, kExitBadConnection);
  }
  if (std::holds_alternative<DefragCommand>(command))
    return Output{"", "Failed to defragment etcd member[" + ep + "] (" + msg + ")\n", kExitError};
  if (std::holds_alternative<EndpointStatusCommand>(command))
    return Output{"", "Failed to get the status of endpoint " + ep + " (" + msg + ")\n", kExitError};
  if (std::holds_alternative<EndpointHashKVCommand>(command))
    return Output{"", "Failed to get the hash of endpoint " + ep + " (" + msg + ")\n", kExitError};
  // endpoint health reports a failure in its list (print_endpoint_health), not on a line of its own.
  if (std::holds_alternative<EndpointHealthCommand>(command)) return Output{};
  // snapshot save exits with ExitInterrupted on any failure (snapshot_command.go).
  if (std::holds_alternative<SnapshotSaveCommand>(command)) return print_error(msg, kExitInterrupted);
  return print_error(msg);
}

Output print_table_unsupported() { return print_error("table not supported as output format", kExitBadFeature); }

Output print_fields_unsupported() { return print_error("fields not supported as output format", kExitBadFeature); }

Output print_etcdctl_nil_panic() {
  return Output{"", "panic: runtime error: invalid memory address or nil pointer dereference\n", kExitBadConnection};
}

Output print_endpoints_failed(const Command& command, std::string_view last_message) {
  if (std::holds_alternative<EndpointHashKVCommand>(command)) return print_error(last_message);
  return Output{"", "", kExitError};
}

Output print_get(const etcdserverpb::RangeResponse& r, const PrintOptions& p) {
  if (p.format == OutputFormat::kProtobuf) return protobuf_bytes(r);
  if (p.format == OutputFormat::kJson) return json_line(to_json(r));
  if (p.format == OutputFormat::kFields) return stdout_text(fields_text(r));
  // get --count-only (a dst extension for 3.4; 3.5 allows it with -w fields only) prints the count.
  if (p.count_only) return stdout_text(std::to_string(r.count()) + "\n");
  return stdout_text(simple_get(r, p));
}

Output print_put(const etcdserverpb::PutResponse& r, const PrintOptions& p) {
  if (p.format == OutputFormat::kProtobuf) return protobuf_bytes(r);
  if (p.format == OutputFormat::kJson) return json_line(to_json(r));
  if (p.format == OutputFormat::kFields) return stdout_text(fields_text(r));
  return stdout_text(simple_put(r, p));
}

Output print_del(const etcdserverpb::DeleteRangeResponse& r, const PrintOptions& p) {
  if (p.format == OutputFormat::kProtobuf) return protobuf_bytes(r);
  if (p.format == OutputFormat::kJson) return json_line(to_json(r));
  if (p.format == OutputFormat::kFields) return stdout_text(fields_text(r));
  return stdout_text(simple_del(r, p));
}

Output print_txn(const etcdserverpb::TxnResponse& r, const PrintOptions& p) {
  if (p.format == OutputFormat::kProtobuf) return protobuf_bytes(r);
  if (p.format == OutputFormat::kJson) return json_line(to_json(r));
  if (p.format == OutputFormat::kFields) return stdout_text(fields_text(r));
  return stdout_text(simple_txn(r, p));
}

Output print_compaction(int64_t revision) { return stdout_text("compacted revision " + std::to_string(revision) + "\n"); }

Output print_watch_response(const etcdserverpb::WatchResponse& r, const PrintOptions& p) {
  Output o;
  if (r.created() && r.events().empty() && !r.canceled()) return o;  // clientv3 keeps the ack to itself
  if (r.canceled()) o.err = "watch was canceled (" + watch_cancel_reason(r) + ")\n";
  if (is_progress_notify(r)) o.out = "progress notify: " + std::to_string(r.header().revision()) + "\n";
  if (p.format == OutputFormat::kProtobuf) {
    o.out += protobuf_watch(r).out;
    return o;
  }
  if (p.format == OutputFormat::kFields) {
    o.out += fields_text(r);
    return o;
  }
  if (p.format == OutputFormat::kJson) {
    o.out += watch_response_json(r) + "\n";
    return o;
  }
  for (const auto& e : r.events()) {
    o.out += mvccpb::Event::EventType_Name(e.type()) + "\n";
    if (e.has_prev_kv()) print_kv(e.prev_kv(), p, &o.out);
    print_kv(e.kv(), p, &o.out);
  }
  return o;
}

Output print_watch_ended() { return print_error("watch is canceled by the server", kExitInterrupted); }

Output print_lease_grant(const etcdserverpb::LeaseGrantResponse& r, const PrintOptions& p) {
  if (p.format == OutputFormat::kFields) return stdout_text(fields_text(r));
  if (p.format == OutputFormat::kProtobuf) return protobuf_header_only(r.has_header() ? &r.header() : nullptr);
  if (p.format == OutputFormat::kJson) return json_line(lease_grant_json(r));
  return stdout_text("lease " + hex16(r.id()) + " granted with TTL(" + std::to_string(r.ttl()) + "s)\n");
}

Output print_lease_revoke(int64_t id, const etcdserverpb::LeaseRevokeResponse& r, const PrintOptions& p) {
  if (p.format == OutputFormat::kFields) return stdout_text(fields_text(r));
  if (p.format == OutputFormat::kProtobuf) return protobuf_lease_revoke(r);
  if (p.format == OutputFormat::kJson) return json_line(lease_revoke_json(r));
  return stdout_text("lease " + hex16(id) + " revoked\n");
}

Output print_lease_time_to_live(const etcdserverpb::LeaseTimeToLiveResponse& r, bool with_keys,
                                const PrintOptions& p) {
  if (p.format == OutputFormat::kFields) return stdout_text(fields_text(r));
  if (p.format == OutputFormat::kProtobuf) return protobuf_header_only(r.has_header() ? &r.header() : nullptr);
  if (p.format == OutputFormat::kJson) return json_line(lease_time_to_live_json(r));
  // The server answers an unknown lease with TTL -1 and no granted TTL.
  if (r.grantedttl() == 0 && r.ttl() == -1) return stdout_text("lease " + hex16(r.id()) + " already expired\n");
  std::string text = "lease " + hex16(r.id()) + " granted with TTL(" + std::to_string(r.grantedttl()) +
                     "s), remaining(" + std::to_string(r.ttl()) + "s)";
  if (with_keys) {
    std::vector<std::string> keys(r.keys().begin(), r.keys().end());
    text += ", attached keys([" + join(keys, " ") + "])";  // Go's %v of a []string
  }
  return stdout_text(text + "\n");
}

Output print_lease_keep_alive(const etcdserverpb::LeaseKeepAliveResponse& r, const PrintOptions& p) {
  if (p.format == OutputFormat::kFields) return stdout_text(fields_text(r));
  if (p.format == OutputFormat::kProtobuf) return protobuf_header_only(r.has_header() ? &r.header() : nullptr);
  if (p.format == OutputFormat::kJson) return json_line(lease_keep_alive_json(r));
  return stdout_text("lease " + hex16(r.id()) + " keepalived with TTL(" + std::to_string(r.ttl()) + ")\n");
}

Output print_lease_keep_alive_ended(int64_t id, const PrintOptions& p) {
  if (p.format != OutputFormat::kSimple) return Output{};
  return stdout_text("lease " + hex16(id) + " expired or revoked.\n");
}

Output print_lease_list(const etcdserverpb::LeaseLeasesResponse& r, const PrintOptions& p) {
  if (p.format == OutputFormat::kFields) return stdout_text(fields_text(r));
  if (p.format == OutputFormat::kProtobuf) return protobuf_header_only(r.has_header() ? &r.header() : nullptr);
  if (p.format == OutputFormat::kJson) return json_line(lease_leases_json(r));
  std::string out = "found " + std::to_string(r.leases_size()) + " leases\n";
  for (const auto& l : r.leases()) out += hex16(l.id()) + "\n";
  return stdout_text(out);
}

Output print_defrag(std::string_view endpoint) {
  return stdout_text("Finished defragmenting etcd member[" + std::string(endpoint) + "]\n");
}

Output print_alarm(const etcdserverpb::AlarmResponse& r, const PrintOptions& p) {
  if (p.format == OutputFormat::kFields) return r.has_header() ? stdout_text(fields_text(r)) : print_etcdctl_nil_panic();
  if (p.format == OutputFormat::kProtobuf) return protobuf_bytes(r);
  if (p.format == OutputFormat::kJson) return json_line(to_json(r));
  std::string out;
  for (const auto& a : r.alarms()) out += alarm_text(a) + "\n";
  return stdout_text(out);
}

Output print_endpoint_status(const std::vector<EndpointStatus>& statuses, const PrintOptions& p) {
  if (p.format == OutputFormat::kFields) return stdout_text(fields_text(statuses));
  if (p.format == OutputFormat::kProtobuf) return protobuf_unsupported();
  if (p.format == OutputFormat::kJson) return json_line(endpoint_status_json(statuses));
  std::vector<std::vector<std::string>> rows;
  for (const EndpointStatus& e : statuses) {
    const auto& s = e.status;
    std::vector<std::string> errors(s.errors().begin(), s.errors().end());
    rows.push_back({e.endpoint, hex(s.header().member_id()), s.version(), humanize_bytes(static_cast<uint64_t>(s.dbsize())),
                    s.leader() == s.header().member_id() ? "true" : "false", s.islearner() ? "true" : "false",
                    std::to_string(s.raftterm()), std::to_string(s.raftindex()), std::to_string(s.raftappliedindex()),
                    join(errors, ", ")});
  }
  if (p.format == OutputFormat::kTable) {
    return stdout_text(render_table({"endpoint", "ID", "version", "db size", "is leader", "is learner", "raft term",
                                     "raft index", "raft applied index", "errors"},
                                    rows));
  }
  std::string out;
  for (const auto& row : rows) out += join(row, ", ") + "\n";
  return stdout_text(out);
}

Output print_endpoint_hashkv(const std::vector<EndpointHashKV>& hashes, const PrintOptions& p) {
  if (p.format == OutputFormat::kFields) return stdout_text(fields_text(hashes));
  if (p.format == OutputFormat::kProtobuf) return protobuf_unsupported();
  if (p.format == OutputFormat::kJson) return json_line(endpoint_hashkv_json(hashes));
  std::vector<std::vector<std::string>> rows;
  for (const EndpointHashKV& h : hashes) rows.push_back({h.endpoint, std::to_string(h.hash_kv.hash())});
  if (p.format == OutputFormat::kTable) return stdout_text(render_table({"endpoint", "hash"}, rows));
  std::string out;
  for (const auto& row : rows) out += join(row, ", ") + "\n";
  return stdout_text(out);
}

namespace {

std::string endpoint_health_text(const std::vector<EndpointHealth>& healths, OutputFormat format) {
  std::string out;
  if (format == OutputFormat::kJson) return endpoint_health_json(healths) + "\n";
  if (format == OutputFormat::kTable) {
    std::vector<std::vector<std::string>> rows;
    for (const EndpointHealth& h : healths)
      rows.push_back({h.endpoint, h.health ? "true" : "false", h.took, h.error});
    return render_table({"endpoint", "health", "took", "error"}, rows);
  }
  for (const EndpointHealth& h : healths) {
    if (format == OutputFormat::kFields) {
      out += "\"Endpoint\" : " + go_quote(h.endpoint) + "\n\"Health\" : " + (h.health ? "true" : "false") +
             "\n\"Took\" : " + h.took + "\n\"Error\" : " + h.error + "\n\n";
    } else if (h.error.empty()) {
      out += h.endpoint + " is healthy: successfully committed proposal: took = " + h.took + "\n";
    } else {
      out += h.endpoint + " is unhealthy: failed to commit proposal: " + h.error + "\n";
    }
  }
  return out;
}

}  // namespace

Output print_endpoint_health(const std::vector<EndpointHealth>& healths, const PrintOptions& p) {
  if (p.format == OutputFormat::kProtobuf) return protobuf_unsupported();
  Output o;
  // The simple printer writes to stderr, every other format to stdout.
  (p.format == OutputFormat::kSimple ? o.err : o.out) = endpoint_health_text(healths, p.format);
  for (const EndpointHealth& h : healths) {
    if (h.error.empty()) continue;
    o.err += print_error("unhealthy cluster").err;
    o.exit_code = kExitError;
    break;
  }
  return o;
}

namespace {

// fmt's "%16x": hex, space-padded on the left to 16 characters.
std::string hex_width16(uint64_t id) {
  std::string h = hex(id);
  return std::string(h.size() < 16 ? 16 - h.size() : 0, ' ') + h;
}

}  // namespace

Output print_member_add(const etcdserverpb::MemberAddResponse& r, const MemberAddCommand& c, const PrintOptions& p) {
  if (p.format == OutputFormat::kProtobuf) return protobuf_bytes(r);
  if (p.format == OutputFormat::kJson) return json_line(to_json(r));
  std::string out = "Member " + hex_width16(r.member().id()) + " added to cluster " +
                    hex_width16(r.header().cluster_id()) + "\n";
  if (p.format != OutputFormat::kSimple) return stdout_text(out);
  std::vector<std::string> conf;
  for (const auto& m : r.members()) {
    for (const std::string& url : m.peerurls())
      conf.push_back((m.id() == r.member().id() ? c.name : m.name()) + "=" + url);
  }
  out += "\nETCD_NAME=" + go_quote(c.name) + "\nETCD_INITIAL_CLUSTER=" + go_quote(join(conf, ",")) +
         "\nETCD_INITIAL_ADVERTISE_PEER_URLS=" + go_quote(c.peer_urls) + "\nETCD_INITIAL_CLUSTER_STATE=\"existing\"\n";
  return stdout_text(out);
}

Output print_member_promote(uint64_t id, const etcdserverpb::MemberPromoteResponse& r, const PrintOptions& p) {
  if (p.format != OutputFormat::kSimple) return print_etcdctl_nil_panic();
  return stdout_text("Member " + hex_width16(id) + " promoted in cluster " + hex_width16(r.header().cluster_id()) + "\n");
}

Output print_member_update(uint64_t id, const etcdserverpb::MemberUpdateResponse& r, const PrintOptions& p) {
  if (p.format == OutputFormat::kProtobuf) return protobuf_bytes(r);
  if (p.format == OutputFormat::kJson) return json_line(to_json(r));
  return stdout_text("Member " + hex_width16(id) + " updated in cluster " + hex_width16(r.header().cluster_id()) + "\n");
}

Output print_member_remove(uint64_t id, const etcdserverpb::MemberRemoveResponse& r, const PrintOptions& p) {
  if (p.format == OutputFormat::kProtobuf) return protobuf_bytes(r);
  if (p.format == OutputFormat::kJson) return json_line(to_json(r));
  return stdout_text("Member " + hex_width16(id) + " removed from cluster " + hex_width16(r.header().cluster_id()) + "\n");
}

Output print_move_leader(uint64_t leader, uint64_t target, const etcdserverpb::MoveLeaderResponse& r, const PrintOptions& p) {
  switch (p.format) {
    case OutputFormat::kProtobuf: return protobuf_bytes(r);
    case OutputFormat::kJson: return json_line(r.has_header() ? "{\"header\":" + to_json(r.header()) + "}" : "{}");
    case OutputFormat::kTable: return print_table_unsupported();
    case OutputFormat::kFields: return print_fields_unsupported();
    default: return stdout_text("Leadership transferred from " + hex(leader) + " to " + hex(target) + "\n");
  }
}

Output print_version() { return stdout_text("etcdctl version: 3.4.23\nAPI version: 3.4\n"); }

Output print_snapshot_saved(std::string_view path) { return stdout_text("Snapshot saved at " + std::string(path) + "\n"); }

Output print_snapshot_status(const DbStatus& s, const PrintOptions& p) {
  const std::string hash = std::to_string(s.hash), rev = std::to_string(s.revision),
                    keys = std::to_string(s.total_key), size = std::to_string(s.total_size);
  switch (p.format) {
    case OutputFormat::kJson:
      return json_line("{\"hash\":" + hash + ",\"revision\":" + rev + ",\"totalKey\":" + keys +
                       ",\"totalSize\":" + size + "}");
    case OutputFormat::kFields:
      return stdout_text("\"Hash\" : " + hash + "\n\"Revision\" : " + rev + "\n\"Keys\" : " + keys +
                         "\n\"Size\" : " + size + "\n");
    case OutputFormat::kTable:
      return stdout_text(render_table({"hash", "revision", "total keys", "total size"},
                                      {{hex(s.hash), rev, keys, humanize_bytes(s.total_size)}}));
    case OutputFormat::kProtobuf: return protobuf_unsupported();
    case OutputFormat::kSimple:
      break;
  }
  return stdout_text(hex(s.hash) + ", " + rev + ", " + keys + ", " + humanize_bytes(s.total_size) + "\n");
}

Output print_member_list(const etcdserverpb::MemberListResponse& r, const PrintOptions& p) {
  if (p.format == OutputFormat::kFields) return stdout_text(fields_text(r));
  if (p.format == OutputFormat::kProtobuf) return protobuf_bytes(r);
  if (p.format == OutputFormat::kJson) return json_line(to_json(r));
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : r.members()) {
    const std::vector<std::string> peers(m.peerurls().begin(), m.peerurls().end());
    const std::vector<std::string> clients(m.clienturls().begin(), m.clienturls().end());
    rows.push_back({hex(m.id()), m.name().empty() ? "unstarted" : "started", m.name(), join(peers, ","),
                    join(clients, ","), m.islearner() ? "true" : "false"});
  }
  if (p.format == OutputFormat::kTable)
    return stdout_text(render_table({"ID", "Status", "Name", "Peer Addrs", "Client Addrs", "Is Learner"}, rows));
  std::string out;
  for (const auto& row : rows) out += join(row, ", ") + "\n";
  return stdout_text(out);
}

}  // namespace dst::etcdctl
