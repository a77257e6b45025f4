#include "rpc/etcd_connection.h"

namespace dst::rpc {

Result<std::unique_ptr<Connection>> Connection::open(sim::Env& env, sim::Address member) {
  auto mux = MuxConnection<EtcdFrames>::open(env, member);
  if (!mux.is_ok()) return mux.status();
  return std::unique_ptr<Connection>(new Connection(std::move(mux).value()));
}

Status Connection::send_watch(uint64_t call, const etcdserverpb::WatchRequest& req) {
  etcdserverpb::ApiRequest frame;
  *frame.mutable_watch() = req;
  return mux_->send_on(call, std::move(frame));
}

}  // namespace dst::rpc
