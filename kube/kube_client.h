// A Kubernetes client's connection to one apiserver (client-go's REST client over one HTTP/2
// connection): unary calls (LIST, CREATE, UPDATE, DELETE) wait for their answer by call id; a
// WATCH is a server stream of events on its own call id. Transport failures are honest: kTimeout
// (no answer in time: a write may or may not have happened) and kUnavailable (the connection
// broke).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>

#include "base/status.h"
#include "proto/kube_api.pb.h"
#include "sim/network.h"
#include "sim/simulator.h"
#include "sim/sync.h"

namespace dst::kube {

// The apiserver's port (Kubernetes' secure port).
inline constexpr uint16_t kApiserverPort = 6443;

class KubeConnection {
 public:
  // Connects from the calling fiber's process and starts the connection's reader fiber there.
  static Result<std::unique_ptr<KubeConnection>> open(sim::Simulator& sim, sim::Address apiserver);
  ~KubeConnection();  // closes the stream; calls in progress fail with kUnavailable
  KubeConnection(const KubeConnection&) = delete;
  KubeConnection& operator=(const KubeConnection&) = delete;

  // One unary call; the answer may carry an error status (404, 409, 410, 504...).
  Result<kubeapi::KubeResponse> call(kubeapi::KubeRequest req, sim::DurationNs timeout);
  // Starts a WATCH; its events come from next_event.
  Result<uint64_t> watch(const kubeapi::WatchRequest& req);
  // The watch's next event; kUnavailable once the connection broke, kTimeout if none came in time.
  Result<kubeapi::WatchEvent> next_event(uint64_t call, sim::DurationNs timeout);
  void close_watch(uint64_t call);

  bool broken() const { return state_->broken; }

 private:
  struct State {
    explicit State(sim::Simulator& sim) : wake(sim) {}
    std::map<uint64_t, std::shared_ptr<sim::Promise<kubeapi::KubeResponse>>> unary;
    std::map<uint64_t, std::deque<kubeapi::WatchEvent>> watches;
    sim::WaitQueue wake;  // a watch event arrived, or the connection broke
    bool broken = false;
  };
  KubeConnection(sim::Simulator& sim, sim::StreamId stream, sim::Address apiserver)
      : sim_(sim), stream_(stream), apiserver_(apiserver), state_(std::make_shared<State>(sim)) {}
  static void read_loop(sim::Simulator& sim, sim::StreamId stream, std::shared_ptr<State> state);
  Status unavailable() const;

  sim::Simulator& sim_;
  sim::StreamId stream_;
  sim::Address apiserver_;
  std::shared_ptr<State> state_;
  uint64_t next_call_ = 1;
};

}  // namespace dst::kube
