#include "kube/kube_client.h"

#include "base/assert.h"

namespace dst::kube {

namespace {
// Watch events a client buffers per watch before its reader stops reading the connection (HTTP/2
// flow control's role): the apiserver's watcher then sees its client fall behind.
constexpr size_t kWatchEventsBuffered = 1024;
}  // namespace

Result<std::unique_ptr<KubeConnection>> KubeConnection::open(sim::Simulator& sim, sim::Address apiserver) {
  auto stream = sim.net().connect(sim.current_process(), apiserver);
  if (!stream.is_ok()) return stream.status();
  std::unique_ptr<KubeConnection> c(new KubeConnection(sim, *stream, apiserver));
  const sim::StreamId id = *stream;
  std::shared_ptr<State> state = c->state_;
  sim.spawn(sim.current_process(), "kube-conn", [&sim, id, state] { read_loop(sim, id, state); });
  return c;
}

KubeConnection::~KubeConnection() { sim_.net().close_stream(stream_); }

Status KubeConnection::unavailable() const {
  return Status(StatusCode::kUnavailable, "connection to apiserver " + apiserver_.to_string() + " broken");
}

void KubeConnection::read_loop(sim::Simulator& sim, sim::StreamId stream, std::shared_ptr<State> state) {
  for (;;) {
    auto frame = sim.net().recv(stream);
    if (!frame.is_ok()) break;
    kubeapi::KubeResponse resp;
    if (!resp.ParseFromString(*frame)) break;  // garbage from the server: treat as broken
    if (resp.has_event()) {
      // Bounded: stop reading until the consumer catches up (or closes the watch).
      while (state->watches.contains(resp.call()) && state->watches[resp.call()].size() >= kWatchEventsBuffered) {
        if (sim.sleep(sim::milliseconds(1)) != sim::WaitResult::kOk) return;
      }
      auto it = state->watches.find(resp.call());
      if (it == state->watches.end()) continue;  // a watch the client closed
      it->second.push_back(std::move(*resp.mutable_event()));
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

Result<kubeapi::KubeResponse> KubeConnection::call(kubeapi::KubeRequest req, sim::DurationNs timeout) {
  if (state_->broken) return unavailable();
  const uint64_t id = next_call_++;
  req.set_call(id);
  auto promise = std::make_shared<sim::Promise<kubeapi::KubeResponse>>(sim_);
  sim::Future<kubeapi::KubeResponse> answer = promise->future();
  state_->unary.emplace(id, promise);
  promise.reset();  // the reader's copy is the only one: its destruction breaks the future
  if (Status sent = sim_.net().send(stream_, req.SerializeAsString()); !sent.is_ok()) {
    state_->unary.erase(id);
    return unavailable();
  }
  auto [r, resp] = answer.get(timeout);
  if (r == sim::WaitResult::kOk) return std::move(*resp);
  state_->unary.erase(id);
  if (r == sim::WaitResult::kTimeout)
    return Status(StatusCode::kTimeout, "no answer from apiserver " + apiserver_.to_string() + " in time");
  return unavailable();
}

Result<uint64_t> KubeConnection::watch(const kubeapi::WatchRequest& req) {
  if (state_->broken) return unavailable();
  const uint64_t id = next_call_++;
  state_->watches[id];
  kubeapi::KubeRequest frame;
  frame.set_call(id);
  *frame.mutable_watch() = req;
  if (Status sent = sim_.net().send(stream_, frame.SerializeAsString()); !sent.is_ok()) {
    state_->watches.erase(id);
    return unavailable();
  }
  return id;
}

Result<kubeapi::WatchEvent> KubeConnection::next_event(uint64_t call, sim::DurationNs timeout) {
  const sim::TimeNs deadline = sim_.deadline_after(timeout);
  for (;;) {
    auto it = state_->watches.find(call);
    DST_ASSERT_MSG(it != state_->watches.end(), "next_event on a watch that is not open");
    if (!it->second.empty()) {
      kubeapi::WatchEvent e = std::move(it->second.front());
      it->second.pop_front();
      return e;
    }
    if (state_->broken) return unavailable();
    const sim::WaitResult w = state_->wake.wait_until(deadline);
    if (w == sim::WaitResult::kTimeout) return Status(StatusCode::kTimeout, "no watch event in time");
    if (w != sim::WaitResult::kOk) return Status(StatusCode::kCancelled, "cancelled");
  }
}

void KubeConnection::close_watch(uint64_t call) { state_->watches.erase(call); }

}  // namespace dst::kube
