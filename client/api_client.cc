#include "client/api_client.h"

#include "base/limits.h"

namespace dst::client {

namespace {
// Watch responses a client buffers per watch call before the reader stops reading the connection
// (gRPC flow control's role): the member's own queue then fills and its watchers fall behind.
constexpr size_t kWatchResponsesBuffered = 1024;
}  // namespace

Result<std::unique_ptr<Connection>> Connection::open(sim::Simulator& sim, sim::Address member) {
  auto stream = sim.net().connect(sim.current_process(), member);
  if (!stream.is_ok()) return stream.status();
  std::unique_ptr<Connection> c(new Connection(sim, *stream, member));
  sim::StreamId id = *stream;
  std::shared_ptr<State> state = c->state_;
  sim.spawn(sim.current_process(), "client-conn", [&sim, id, state] { read_loop(sim, id, state); });
  return c;
}

Connection::~Connection() { sim_.net().close_stream(stream_); }

void Connection::read_loop(sim::Simulator& sim, sim::StreamId stream, std::shared_ptr<State> state) {
  for (;;) {
    auto frame = sim.net().recv(stream);
    if (!frame.is_ok()) break;
    etcdserverpb::ApiResponse resp;
    if (!resp.ParseFromString(*frame)) break;  // a member speaking garbage: treat as broken
    if (resp.has_watch()) {
      auto it = state->watches.find(resp.call());
      if (it == state->watches.end()) continue;  // a watch call the client closed
      // Bounded: stop reading until the consumer catches up.
      while (it->second.size() >= kWatchResponsesBuffered) {
        if (sim.sleep(sim::milliseconds(1)) != sim::WaitResult::kOk) return;
        it = state->watches.find(resp.call());
        if (it == state->watches.end()) break;
      }
      if (it == state->watches.end()) continue;
      it->second.push_back(std::move(*resp.mutable_watch()));
      state->wake.notify_all();
      continue;
    }
    auto it = state->unary.find(resp.call());
    if (it == state->unary.end()) continue;  // the caller gave up (timeout)
    it->second->set(std::move(resp));
    state->unary.erase(it);
  }
  state->broken = true;
  state->unary.clear();  // destroying the promises tells their callers: kClosed
  state->wake.notify_all();
}

Result<etcdserverpb::ApiResponse> Connection::call(etcdserverpb::ApiRequest req, sim::DurationNs timeout) {
  if (state_->broken) return Status(StatusCode::kUnavailable, "connection to " + member_.to_string() + " broken");
  const uint64_t id = next_call_++;
  req.set_call(id);
  auto promise = std::make_shared<sim::Promise<etcdserverpb::ApiResponse>>(sim_);
  sim::Future<etcdserverpb::ApiResponse> answer = promise->future();
  state_->unary.emplace(id, promise);
  promise.reset();  // the reader's copy is the only one: its destruction breaks the future
  Status sent = sim_.net().send(stream_, req.SerializeAsString());
  if (!sent.is_ok()) {
    state_->unary.erase(id);
    return Status(StatusCode::kUnavailable, "send to " + member_.to_string() + ": " + sent.message());
  }
  auto [r, resp] = answer.get(timeout);
  if (r == sim::WaitResult::kOk) return std::move(*resp);
  state_->unary.erase(id);
  if (r == sim::WaitResult::kTimeout)
    return Status(StatusCode::kTimeout, "no answer from " + member_.to_string() + " in time");
  return Status(StatusCode::kUnavailable, "connection to " + member_.to_string() + " broken");
}

uint64_t Connection::open_watch() {
  const uint64_t id = next_call_++;
  state_->watches[id];
  return id;
}

Status Connection::send_watch(uint64_t call, const etcdserverpb::WatchRequest& req) {
  if (state_->broken) return Status(StatusCode::kUnavailable, "connection to " + member_.to_string() + " broken");
  etcdserverpb::ApiRequest frame;
  frame.set_call(call);
  *frame.mutable_watch() = req;
  return sim_.net().send(stream_, frame.SerializeAsString());
}

Result<etcdserverpb::WatchResponse> Connection::recv_watch(uint64_t call, sim::DurationNs timeout) {
  const sim::TimeNs deadline = sim_.deadline_after(timeout);
  for (;;) {
    auto it = state_->watches.find(call);
    DST_ASSERT_MSG(it != state_->watches.end(), "recv_watch on a watch call that is not open");
    if (!it->second.empty()) {
      etcdserverpb::WatchResponse r = std::move(it->second.front());
      it->second.pop_front();
      return r;
    }
    if (state_->broken) return Status(StatusCode::kUnavailable, "connection to " + member_.to_string() + " broken");
    sim::WaitResult w = state_->wake.wait_until(deadline);
    if (w == sim::WaitResult::kTimeout) return Status(StatusCode::kTimeout, "no watch response in time");
    if (w != sim::WaitResult::kOk) return Status(StatusCode::kCancelled, "cancelled");
  }
}

void Connection::close_watch(uint64_t call) { state_->watches.erase(call); }

}  // namespace dst::client
