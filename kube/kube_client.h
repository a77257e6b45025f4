// A Kubernetes client's connection to one apiserver (client-go's REST client over one HTTP/2
// connection, rpc::MuxConnection with the apiserver's frames): unary calls (LIST, CREATE,
// UPDATE, DELETE) wait for their answer by call id; a WATCH is a server stream of events on its
// own call id. Transport failures are honest: kTimeout (no answer in time: a write may or may not
// have happened) and kUnavailable (the connection broke).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/status.h"
#include "rpc/mux_connection.h"
#include "proto/kube_api.pb.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::kube {

// The apiserver's port (Kubernetes' secure port).
inline constexpr uint16_t kApiserverPort = 6443;

// The Kubernetes frames on a connection: KubeRequest out, KubeResponse back; a WATCH's items
// are the events its KubeResponses carry.
struct KubeFrames {
  using Request = kubeapi::KubeRequest;
  using Response = kubeapi::KubeResponse;
  using Item = kubeapi::WatchEvent;
  static Item* stream_item(Response& r) { return r.has_event() ? r.mutable_event() : nullptr; }
  // Watch events buffered per watch before the reader stops reading the connection (HTTP/2 flow
  // control's role): the apiserver's watcher then sees its client fall behind.
  static constexpr size_t kItemsBuffered = 1024;
  static constexpr const char* kPeer = "apiserver";
  static constexpr const char* kReaderFiber = "kube-conn";
};

class KubeConnection {
 public:
  // Connects from the calling fiber's process and starts the connection's reader fiber there.
  // Destroying it closes the stream; calls in progress fail with kUnavailable.
  static Result<std::unique_ptr<KubeConnection>> open(sim::Simulator& sim, sim::Address apiserver);
  KubeConnection(const KubeConnection&) = delete;
  KubeConnection& operator=(const KubeConnection&) = delete;

  // One unary call; the answer may carry an error status (404, 409, 410, 504...).
  Result<kubeapi::KubeResponse> call(kubeapi::KubeRequest req, sim::DurationNs timeout) {
    return mux_->call(std::move(req), timeout);
  }
  // Starts a WATCH; its events come from next_event.
  Result<uint64_t> watch(const kubeapi::WatchRequest& req);
  // The watch's next event; kUnavailable once the connection broke, kTimeout if none came in time.
  Result<kubeapi::WatchEvent> next_event(uint64_t call, sim::DurationNs timeout) { return mux_->next_item(call, timeout); }
  void close_watch(uint64_t call) { mux_->close_stream(call); }

  bool broken() const { return mux_->broken(); }

 private:
  explicit KubeConnection(std::unique_ptr<rpc::MuxConnection<KubeFrames>> mux) : mux_(std::move(mux)) {}
  std::unique_ptr<rpc::MuxConnection<KubeFrames>> mux_;
};

}  // namespace dst::kube
