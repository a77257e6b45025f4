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

#include "node/server/repeat_txn_event.h"
#include "node/server/server.h"
#include "proto/etcd_api.pb.h"
#include "sim/env.h"
#include "sim/sockets.h"
#include "sim/sync.h"

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
// Sets `out`'s error to the status, as etcd's gRPC layer would send it.
void fail_with(etcdserverpb::ApiResponse& out, const Status& s);

// The etcd version whose semantics this member copies (Status reports it; clients gate features
// on it, and the reference page's outputs name it).
inline constexpr char kEtcdVersion[] = "3.4.23";

class ApiServer {
 public:
  // Serves clients on options().api.port until the process dies. Call from a fiber of the
  // member's process once the Server runs.
  static void run(sim::Env& env, Server& server);

  // One unary request, answered (tests call it directly too).
  etcdserverpb::ApiResponse handle(const etcdserverpb::ApiRequest& req);

 private:
  ApiServer(sim::Env& env, Server& server) : env_(env), server_(server) {}
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
  // Maintenance.Snapshot: the backend's image at one applied index, as a snapshot file.
  void snapshot(etcdserverpb::ApiResponse& out);
  void member_list(etcdserverpb::ApiResponse& out);
  void member_add(const etcdserverpb::MemberAddRequest& r, etcdserverpb::ApiResponse& out);
  void member_remove(const etcdserverpb::MemberRemoveRequest& r, etcdserverpb::ApiResponse& out);
  void member_update(const etcdserverpb::MemberUpdateRequest& r, etcdserverpb::ApiResponse& out);
  // The Cluster service's requests and MoveLeader.
  void cluster_request(const etcdserverpb::ApiRequest& req, etcdserverpb::ApiResponse& out);
  void member_promote(const etcdserverpb::ApiRequest& req, etcdserverpb::ApiResponse& out);
  // etcd's forwarding loops (PromoteMember, LeaseRenew, LeaseTimeToLive): sends `req` to the
  // leader over a connection of its own (etcd uses its peer port) until an answer is `final`,
  // then puts it in `out`; waits an election timeout for a leader and 50 ms after a failed
  // attempt. After the request timeout: false, `out` failed with "etcdserver: request timed out".
  bool forward_to_leader(const etcdserverpb::ApiRequest& req, etcdserverpb::ApiResponse& out,
                         const std::function<bool(const etcdserverpb::ApiResponse&)>& final);
  void move_leader(const etcdserverpb::MoveLeaderRequest& r, etcdserverpb::ApiResponse& out);
  void lease_grant(const etcdserverpb::LeaseGrantRequest& r, etcdserverpb::ApiResponse& out);
  void lease_revoke(const etcdserverpb::LeaseRevokeRequest& r, etcdserverpb::ApiResponse& out);
  // Leader-only lease work (keep-alive, time-to-live): answered here when this member leads,
  // forwarded to the leader otherwise (etcd forwards them to the leader over its peer port).
  void lease_on_leader(const etcdserverpb::ApiRequest& req, etcdserverpb::ApiResponse& out);
  void lease_keep_alive(const etcdserverpb::LeaseKeepAliveRequest& r, etcdserverpb::ApiResponse& out);
  void lease_time_to_live(const etcdserverpb::LeaseTimeToLiveRequest& r, etcdserverpb::ApiResponse& out);
  void lease_leases(etcdserverpb::ApiResponse& out);

  // One watch call: a stream of the member's watchable store and its sender fiber's wake-up.
  struct WatchCall {
    explicit WatchCall(sim::Env& env) : ready(env) {}
    uint64_t call_id = 0;
    watch::StreamId stream = 0;
    sim::Event ready;  // the store queued a response for this call
    bool closed = false;
    // Only with the watch-duplicate-event bug (base/bugs.h): between the store and the client.
    std::unique_ptr<RepeatLastTxnEvent> repeat_bug;
  };
  // One client connection: its unary calls in flight and its watch calls (api_watch.cc).
  struct ConnectionState {
    sim::StreamId stream = 0;
    size_t in_flight = 0;
    std::map<uint64_t, std::shared_ptr<WatchCall>> watches;  // by call id
  };
  void watch_request(ConnectionState& conn, uint64_t call, const etcdserverpb::WatchRequest& req);
  void watch_sender(std::shared_ptr<ConnectionState> conn, std::shared_ptr<WatchCall> call);
  void close_watches(ConnectionState& conn);

  sim::Env& env_;
  Server& server_;
  std::map<sim::StreamId, std::shared_ptr<ConnectionState>> connections_;
};

}  // namespace dst::node
