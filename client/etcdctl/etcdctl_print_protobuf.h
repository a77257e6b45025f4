// etcdctl 3.4's `-w protobuf` (printer_protobuf.go): the response message's wire bytes on stdout,
// no newline. dst's protos carry etcd's field numbers, so the bytes have etcd's shape (the ids and
// sizes in them are dst's). etcdctl's quirks, kept because scripts see them:
//   - clientv3's lease responses embed *ResponseHeader, whose Marshal is the one found: lease
//     grant, keep-alive, timetolive and list print the header's bytes only;
//   - lease revoke's response has no Marshal: "Error: marshal unsupported for type
//     clientv3.LeaseRevokeResponse ({HEADER})", exit 4, after the lease was revoked;
//   - a watch response is rebuilt from clientv3's fields (header, events, compact revision,
//     canceled, created): no watch id;
//   - endpoint status/hashkv/health and snapshot status: "protobuf not supported as output format";
//   - compaction, defrag, version and snapshot save print their usual line.
// (etcdctl 3.4.23 crashes on a successful `member promote` in any format but simple: its printer
// has no MemberPromote; print_etcdctl_nil_panic.)
#pragma once

#include <google/protobuf/message_lite.h>

#include "client/etcdctl/etcdctl_print.h"

namespace dst::etcdctl {

Output protobuf_bytes(const google::protobuf::MessageLite& response);
// The embedded header's bytes (nothing when the response has none).
Output protobuf_header_only(const etcdserverpb::ResponseHeader* header);
Output protobuf_watch(const etcdserverpb::WatchResponse& r);
Output protobuf_lease_revoke(const etcdserverpb::LeaseRevokeResponse& r);
Output protobuf_unsupported();

// Go's %v of a *ResponseHeader inside a struct: gogo's compact text, each non-zero field as
// "name:value " ("<nil>" for no header).
std::string go_compact_header(const etcdserverpb::ResponseHeader* header);

}  // namespace dst::etcdctl
