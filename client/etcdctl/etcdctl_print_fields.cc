#include "client/etcdctl/etcdctl_print_fields.h"

#include "client/etcdctl/go_format.h"

namespace dst::etcdctl {

namespace {

std::string header(const etcdserverpb::ResponseHeader& h) {
  return "\"ClusterID\" : " + std::to_string(h.cluster_id()) + "\n\"MemberID\" : " + std::to_string(h.member_id()) +
         "\n\"Revision\" : " + std::to_string(h.revision()) + "\n\"RaftTerm\" : " + std::to_string(h.raft_term()) +
         "\n";
}

std::string kv(const std::string& prefix, const mvccpb::KeyValue& kv) {
  auto line = [&](const char* name, const std::string& value) {
    return "\"" + prefix + name + "\" : " + value + "\n";
  };
  return line("Key", go_quote(kv.key())) + line("CreateRevision", std::to_string(kv.create_revision())) +
         line("ModRevision", std::to_string(kv.mod_revision())) + line("Version", std::to_string(kv.version())) +
         line("Value", go_quote(kv.value())) + line("Lease", std::to_string(kv.lease()));
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

}  // namespace dst::etcdctl
