// The member's client API: etcd v3's KV, Lease, Maintenance and Watch services over simulated
// streams (proto/etcd_api.proto frames), with etcd 3.4's semantics and error strings.
//
// - Writes (Put, DeleteRange, Txn, Compaction, LeaseGrant/Revoke, alarm changes) are proposed
//   through Raft and answered once this member has applied them. A follower forwards the proposal
//   to its leader inside Raft, as etcd does, so clients may talk to any member. A write that is not
//   applied within the request timeout is answered "etcdserver: request timed out": the client
//   cannot know whether it happened (it may still be applied later).
// - Range is linearizable by default (ReadIndex, then wait for the apply) and served from local
//   state when `serializable` is set (possibly stale).
// - Requests that can grow the store are checked against the backend quota first; over it they
//   raise the NOSPACE alarm and fail (etcd's quotaKVServer).
// - Status, Defragment, HashKV and alarm GET are member-local, as in etcd.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "node/server/server.h"
#include "proto/etcd_api.pb.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::node {

// The gRPC status codes etcd's clients see (google.golang.org/grpc/codes).
enum class GrpcCode : int32_t {
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kFailedPrecondition = 9,
  kResourceExhausted = 8,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kUnavailable = 14,
};
GrpcCode grpc_code(const Status& s);

// The etcd version whose semantics this member copies (Status reports it; clients gate features
// on it, and the reference page's outputs name it).
inline constexpr char kEtcdVersion[] = "3.4.23";

class ApiServer {
 public:
  // Serves clients on options().api.port until the process dies. Call from a fiber of the
  // member's process once the Server runs.
  static void run(sim::Simulator& sim, Server& server);

  // One unary request, answered (tests call it directly too).
  etcdserverpb::ApiResponse handle(const etcdserverpb::ApiRequest& req);

 private:
  ApiServer(sim::Simulator& sim, Server& server) : sim_(sim), server_(server) {}
  void accept_loop(sim::ListenerId listener);
  void serve_connection(sim::StreamId conn);
  void reply(sim::StreamId conn, const etcdserverpb::ApiResponse& resp);

  // Fills in the header fields every response carries (cluster, member, term; and the revision
  // unless the handler set it).
  void fill_header(etcdserverpb::ResponseHeader* h, int64_t revision) const;
  void range(const etcdserverpb::RangeRequest& r, etcdserverpb::ApiResponse& out);
  // Proposes a write and waits for its apply; quota and size checks first.
  Result<ApplyResult> write(etcdserverpb::InternalRequest req);
  void alarm(const etcdserverpb::AlarmRequest& r, etcdserverpb::ApiResponse& out);
  void status(etcdserverpb::ApiResponse& out);
  void defragment(etcdserverpb::ApiResponse& out);
  void hash_kv(const etcdserverpb::HashKVRequest& r, etcdserverpb::ApiResponse& out);
  void member_list(etcdserverpb::ApiResponse& out);

  sim::Simulator& sim_;
  Server& server_;
  size_t connections_ = 0;
};

}  // namespace dst::node
