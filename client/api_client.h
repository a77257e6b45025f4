// A client's connection to one member: what a gRPC channel to an etcd endpoint is, over one
// simulated stream (proto/etcd_api.proto frames). Many calls share it: unary calls wait for the
// answer with their call id; a watch call is a bidirectional stream of WatchRequests and
// WatchResponses.
//
// Outcomes are honest: an answer (which may be an etcd error), or a transport failure after which
// the caller cannot know whether a write took effect (kTimeout: no answer in time; kUnavailable:
// the connection broke). Issue-level retry policy lives above this (the KV client and workloads).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>

#include "base/status.h"
#include "proto/etcd_api.pb.h"
#include "sim/network.h"
#include "sim/simulator.h"
#include "sim/sync.h"

namespace dst::client {

class Connection {
 public:
  // Connects from the calling fiber's process and starts the connection's reader fiber there.
  static Result<std::unique_ptr<Connection>> open(sim::Simulator& sim, sim::Address member);
  ~Connection();  // closes the stream; calls in progress fail with kUnavailable
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // One unary call. The response may carry an etcd error (ApiResponse.error).
  Result<etcdserverpb::ApiResponse> call(etcdserverpb::ApiRequest req, sim::DurationNs timeout);

  // Watch calls: open one, send create/cancel/progress requests on it, receive its responses in
  // order. recv fails with kUnavailable once the connection broke (resume elsewhere from the
  // last revision seen + 1) and kTimeout when nothing came in time.
  uint64_t open_watch();
  Status send_watch(uint64_t call, const etcdserverpb::WatchRequest& req);
  Result<etcdserverpb::WatchResponse> recv_watch(uint64_t call, sim::DurationNs timeout);
  void close_watch(uint64_t call);

  bool broken() const { return state_->broken; }
  sim::Address member() const { return member_; }

 private:
  // Shared with the reader fiber, which may outlive this object by a moment.
  struct State {
    explicit State(sim::Simulator& sim) : wake(sim) {}
    std::map<uint64_t, std::shared_ptr<sim::Promise<etcdserverpb::ApiResponse>>> unary;
    std::map<uint64_t, std::deque<etcdserverpb::WatchResponse>> watches;
    sim::WaitQueue wake;  // a watch response arrived, or the connection broke
    bool broken = false;
  };
  Connection(sim::Simulator& sim, sim::StreamId stream, sim::Address member)
      : sim_(sim), stream_(stream), member_(member), state_(std::make_shared<State>(sim)) {}
  static void read_loop(sim::Simulator& sim, sim::StreamId stream, std::shared_ptr<State> state);

  sim::Simulator& sim_;
  sim::StreamId stream_;
  sim::Address member_;
  std::shared_ptr<State> state_;
  uint64_t next_call_ = 1;
};

}  // namespace dst::client
