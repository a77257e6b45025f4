// See etcdctl_print_protobuf.h.
#include "client/etcdctl/etcdctl_print_protobuf.h"

namespace dst::etcdctl {

Output protobuf_bytes(const google::protobuf::MessageLite& response) {
  return Output{response.SerializeAsString(), "", kExitSuccess};
}

Output protobuf_header_only(const etcdserverpb::ResponseHeader* header) {
  if (header == nullptr) return Output{};
  return protobuf_bytes(*header);
}

Output protobuf_watch(const etcdserverpb::WatchResponse& r) {
  etcdserverpb::WatchResponse shown;
  if (r.has_header()) *shown.mutable_header() = r.header();
  *shown.mutable_events() = r.events();
  shown.set_compact_revision(r.compact_revision());
  shown.set_canceled(r.canceled());
  shown.set_created(r.created());
  return protobuf_bytes(shown);
}

std::string go_compact_header(const etcdserverpb::ResponseHeader* header) {
  if (header == nullptr) return "<nil>";
  std::string s;
  auto field = [&](const char* name, std::string value, bool nonzero) {
    if (nonzero) s += std::string(name) + ":" + value + " ";
  };
  field("cluster_id", std::to_string(header->cluster_id()), header->cluster_id() != 0);
  field("member_id", std::to_string(header->member_id()), header->member_id() != 0);
  field("revision", std::to_string(header->revision()), header->revision() != 0);
  field("raft_term", std::to_string(header->raft_term()), header->raft_term() != 0);
  return s;
}

Output protobuf_lease_revoke(const etcdserverpb::LeaseRevokeResponse& r) {
  return print_error("marshal unsupported for type clientv3.LeaseRevokeResponse ({" +
                         go_compact_header(r.has_header() ? &r.header() : nullptr) + "})",
                     kExitBadFeature);
}

Output protobuf_unsupported() { return print_error("protobuf not supported as output format", kExitBadFeature); }

}  // namespace dst::etcdctl
