#include "kube/kube_client.h"

namespace dst::kube {

Result<std::unique_ptr<KubeConnection>> KubeConnection::open(sim::Simulator& sim, sim::Address apiserver) {
  auto mux = rpc::MuxConnection<KubeFrames>::open(sim.current_env(), apiserver);
  if (!mux.is_ok()) return mux.status();
  return std::unique_ptr<KubeConnection>(new KubeConnection(std::move(mux).value()));
}

Result<uint64_t> KubeConnection::watch(const kubeapi::WatchRequest& req) {
  const uint64_t call = mux_->open_stream();
  kubeapi::KubeRequest frame;
  *frame.mutable_watch() = req;
  if (Status sent = mux_->send_on(call, std::move(frame)); !sent.is_ok()) {
    mux_->close_stream(call);
    return sent;
  }
  return call;
}

}  // namespace dst::kube
