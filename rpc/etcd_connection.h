// A connection to one member, from a client or from another member: what a gRPC channel to an
// etcd endpoint is, over one simulated stream (proto/etcd_api.proto frames). Many calls share it:
// unary calls wait for the answer with their call id; a watch call is a bidirectional stream of
// WatchRequests and WatchResponses.
//
// Outcomes are honest: an answer (which may be an etcd error), or a transport failure after which
// the caller cannot know whether a write took effect (kTimeout: no answer in time; kUnavailable:
// the connection broke). Issue-level retry policy lives above this (the KV client and workloads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/status.h"
#include "rpc/mux_connection.h"
#include "proto/etcd_api.pb.h"
#include "sim/env.h"
#include "sim/sockets.h"

namespace dst::rpc {

// etcd's frames on a connection: ApiRequest out, ApiResponse back; a watch call's items are the
// WatchResponses its ApiResponses carry.
struct EtcdFrames {
  using Request = etcdserverpb::ApiRequest;
  using Response = etcdserverpb::ApiResponse;
  using Item = etcdserverpb::WatchResponse;
  static Item* stream_item(Response& r) { return r.has_watch() ? r.mutable_watch() : nullptr; }
  // Watch responses buffered per watch call before the reader stops reading the connection
  // (gRPC flow control's role: a client's receive window is 64 KiB, a few dozen responses): the
  // member's own queue then fills and its watchers fall behind. Far more would hide a slow reader
  // from the member for the whole of a run.
  static constexpr size_t kItemsBuffered = 64;
  static constexpr const char* kPeer = "member";
  static constexpr const char* kReaderFiber = "client-conn";
};

class Connection {
 public:
  // Connects from the process of `env` (one of its fibers) and starts the connection's reader
  // fiber there. Destroying it closes the stream; calls in progress fail with kUnavailable.
  static Result<std::unique_ptr<Connection>> open(sim::Env& env, sim::Address member);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // One unary call. The response may carry an etcd error (ApiResponse.error).
  Result<etcdserverpb::ApiResponse> call(etcdserverpb::ApiRequest req, sim::DurationNs timeout) {
    return mux_->call(std::move(req), timeout);
  }

  // Watch calls: open one, send create/cancel/progress requests on it, receive its responses in
  // order. recv fails with kUnavailable once the connection broke (resume elsewhere from the
  // last revision seen + 1) and kTimeout when nothing came in time.
  uint64_t open_watch() { return mux_->open_stream(); }
  Status send_watch(uint64_t call, const etcdserverpb::WatchRequest& req);
  Result<etcdserverpb::WatchResponse> recv_watch(uint64_t call, sim::DurationNs timeout) {
    return mux_->next_item(call, timeout);
  }
  void close_watch(uint64_t call) { mux_->close_stream(call); }

  bool broken() const { return mux_->broken(); }
  sim::Address member() const { return mux_->peer(); }

 private:
  explicit Connection(std::unique_ptr<MuxConnection<EtcdFrames>> mux) : mux_(std::move(mux)) {}
  std::unique_ptr<MuxConnection<EtcdFrames>> mux_;
};

}  // namespace dst::rpc
