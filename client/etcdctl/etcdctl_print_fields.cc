#include "client/etcdctl/etcdctl_print_fields.h"

#include "client/etcdctl/go_format.h"

namespace dst::etcdctl {

namespace {

std::string header(const etcdserverpb::ResponseHeader& h) {
  return "\"ClusterID\" : " + std::to_string(h.cluster_id()) + "\n\"MemberID\" : " + std::to_string(h.member_id()) +
         "\n\"Revision\" : " + std::to_string(h.revision()) + "\n\"RaftTerm\" : " + std::to_string(h.raft_term()) +
         "\n";
}

std::string field_line(const char* name, const std::string& value) { return "\"" + std::string(name) + "\" : " + value + "\n"; }

std::string boolean(bool b) { return b ? "true" : "false"; }

std::string kv(const std::string& prefix, const mvccpb::KeyValue& kv) {
  auto line = [&](const char* name, const std::string& value) {
    return "\"" + prefix + name + "\" : " + value + "\n";
  };
  return line("Key", go_quote(kv.key())) + line("CreateRevision", std::to_string(kv.create_revision())) +
         line("ModRevision", std::to_string(kv.mod_revision())) + line("Version", std::to_string(kv.version())) +
         line("Value", go_quote(kv.value())) + line("Lease", std::to_string(kv.lease()));
}

// clientv3's lease answers: the header, then ID and TTL.
template <typename LeaseResponse>
std::string lease_id_ttl(const LeaseResponse& r) {
  return header(r.header()) + field_line("ID", std::to_string(r.id())) + field_line("TTL", std::to_string(r.ttl()));
}

}  // namespace

std::string fields_text(const etcdserverpb::RangeResponse& r) {
  std::string out = header(r.header());
  for (const auto& k : r.kvs()) out += kv("", k);
  out += std::string("\"More\" : ") + (r.more() ? "true" : "false") + "\n";
  return out + "\"Count\" : " + std::to_string(r.count()) + "\n";
}

std::string fields_text(const etcdserverpb::PutResponse& r) {
  std::string out = header(r.header());
  if (r.has_prev_kv()) out += kv("Prev", r.prev_kv());
  return out;
}

std::string fields_text(const etcdserverpb::DeleteRangeResponse& r) {
  std::string out = header(r.header()) + "\"Deleted\" : " + std::to_string(r.deleted()) + "\n";
  for (const auto& k : r.prev_kvs()) out += kv("Prev", k);
  return out;
}

std::string fields_text(const etcdserverpb::TxnResponse& r) {
  std::string out = header(r.header()) + "\"Succeeded\" : " + (r.succeeded() ? "true" : "false") + "\n";
  for (const auto& op : r.responses()) {
    switch (op.response_case()) {
      case etcdserverpb::ResponseOp::kResponseRange: out += fields_text(op.response_range()); break;
      case etcdserverpb::ResponseOp::kResponsePut: out += fields_text(op.response_put()); break;
      case etcdserverpb::ResponseOp::kResponseDeleteRange: out += fields_text(op.response_delete_range()); break;
      case etcdserverpb::ResponseOp::kResponseTxn: out += fields_text(op.response_txn()); break;
      case etcdserverpb::ResponseOp::RESPONSE_NOT_SET: break;
    }
  }
  return out;
}

std::string fields_text(const etcdserverpb::WatchResponse& r) {
  std::string out = header(r.header());
  for (const auto& e : r.events()) {
    out += field_line("Type", mvccpb::Event::EventType_Name(e.type()));
    if (e.has_prev_kv()) out += kv("Prev", e.prev_kv());
    out += kv("", e.kv());
  }
  return out;
}

std::string fields_text(const etcdserverpb::LeaseGrantResponse& r) { return lease_id_ttl(r); }

std::string fields_text(const etcdserverpb::LeaseRevokeResponse& r) { return header(r.header()); }

std::string fields_text(const etcdserverpb::LeaseKeepAliveResponse& r) { return lease_id_ttl(r); }

std::string fields_text(const etcdserverpb::LeaseTimeToLiveResponse& r) {
  std::string out = lease_id_ttl(r) + field_line("GrantedTTL", std::to_string(r.grantedttl()));
  for (const std::string& k : r.keys()) out += field_line("Key", go_quote(k));
  return out;
}

std::string fields_text(const etcdserverpb::LeaseLeasesResponse& r) {
  std::string out = header(r.header());
  for (const auto& l : r.leases()) out += field_line("ID", std::to_string(l.id()));
  return out;
}

std::string fields_text(const etcdserverpb::MemberListResponse& r) {
  std::string out = header(r.header());
  for (const auto& m : r.members()) {
    out += field_line("ID", std::to_string(m.id())) + field_line("Name", go_quote(m.name()));
    for (const std::string& u : m.peerurls()) out += field_line("PeerURL", go_quote(u));
    for (const std::string& u : m.clienturls()) out += field_line("ClientURL", go_quote(u));
    out += field_line("IsLearner", boolean(m.islearner())) + "\n";
  }
  return out;
}

std::string fields_text(const etcdserverpb::AlarmResponse& r) {
  std::string out = header(r.header());
  for (const auto& a : r.alarms())
    out += field_line("MemberID", std::to_string(a.memberid())) + field_line("AlarmType", etcdserverpb::AlarmType_Name(a.alarm())) + "\n";
  return out;
}

std::string fields_text(const std::vector<EndpointStatus>& statuses) {
  std::string out;
  for (const EndpointStatus& e : statuses) {
    const etcdserverpb::StatusResponse& s = e.status;
    std::string errors;  // Go's %v of a []string: [a b]
    for (const std::string& x : s.errors()) errors += (errors.empty() ? "" : " ") + x;
    out += header(s.header()) + field_line("Version", go_quote(s.version())) + field_line("DBSize", std::to_string(s.dbsize())) +
           field_line("Leader", std::to_string(s.leader())) + field_line("IsLearner", boolean(s.islearner())) +
           field_line("RaftIndex", std::to_string(s.raftindex())) + field_line("RaftTerm", std::to_string(s.raftterm())) +
           field_line("RaftAppliedIndex", std::to_string(s.raftappliedindex())) + field_line("Errors", "[" + errors + "]") +
           field_line("Endpoint", go_quote(e.endpoint)) + "\n";
  }
  return out;
}

std::string fields_text(const std::vector<EndpointHashKV>& hashes) {
  std::string out;
  for (const EndpointHashKV& h : hashes)
    out += header(h.hash_kv.header()) + field_line("Endpoint", go_quote(h.endpoint)) +
           field_line("Hash", std::to_string(h.hash_kv.hash())) + "\n";
  return out;
}

}  // namespace dst::etcdctl
