// The client end of one simulated stream that carries many calls, told apart by a call id (what
// an HTTP/2 connection carries for gRPC or for a Kubernetes client): unary calls wait for the
// answer with their id; a streaming call (an etcd watch, a Kubernetes WATCH) queues the items
// that arrive for it. A reader fiber in the caller's process demultiplexes the frames.
//
// Outcomes are honest: an answer, or kTimeout (no answer in time: the caller cannot know whether
// a write took effect) or kUnavailable (the connection broke). rpc::Connection (etcd) and
// kube::KubeConnection (an apiserver) are this with their frame types.
//
// `Frames` names the types and how to tell a streamed item from a unary answer:
//   using Request = ...;   // has set_call(uint64_t)
//   using Response = ...;  // has call()
//   using Item = ...;      // what a streaming call receives
//   static Item* stream_item(Response& r);  // the item r carries, or nullptr for a unary answer
//   static constexpr size_t kItemsBuffered;  // per streaming call, before the reader stops reading
//   static constexpr const char* kPeer;      // "member", "apiserver": for messages
//   static constexpr const char* kReaderFiber;  // the reader fiber's name
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "base/assert.h"
#include "base/status.h"
#include "sim/env.h"
#include "sim/sockets.h"
#include "sim/sync.h"

namespace dst::rpc {

template <typename Frames>
class MuxConnection {
 public:
  using Request = typename Frames::Request;
  using Response = typename Frames::Response;
  using Item = typename Frames::Item;

  // Connects from the process of `env` (from one of its fibers) and starts the reader fiber
  // there. `env` must outlive the connection and the process's fibers.
  static Result<std::unique_ptr<MuxConnection>> open(sim::Env& env, sim::Address peer) {
    auto stream = env.sockets().connect(peer);
    if (!stream.is_ok()) return stream.status();
    std::unique_ptr<MuxConnection> c(new MuxConnection(env, *stream, peer));
    const sim::StreamId id = *stream;
    std::shared_ptr<State> state = c->state_;
    env.spawn(Frames::kReaderFiber, [&env, id, state] { read_loop(env, id, state); });
    return c;
  }
  ~MuxConnection() { env_.sockets().close_stream(stream_); }  // calls in progress fail: kUnavailable
  MuxConnection(const MuxConnection&) = delete;
  MuxConnection& operator=(const MuxConnection&) = delete;

  // One unary call: its answer, kTimeout or kUnavailable.
  Result<Response> call(Request req, sim::DurationNs timeout) {
    if (state_->broken) return broken_status();
    const uint64_t id = next_call_++;
    req.set_call(id);
    auto promise = std::make_shared<sim::Promise<Response>>(env_);
    sim::Future<Response> answer = promise->future();
    state_->unary.emplace(id, promise);
    promise.reset();  // the reader's copy is the only one: its destruction breaks the future
    if (Status sent = env_.sockets().send(stream_, req.SerializeAsString()); !sent.is_ok()) {
      state_->unary.erase(id);
      return Status(StatusCode::kUnavailable, "send to " + peer_name() + ": " + sent.message());
    }
    auto [r, resp] = answer.get(timeout);
    if (r == sim::WaitResult::kOk) return std::move(*resp);
    state_->unary.erase(id);
    if (r == sim::WaitResult::kTimeout) return Status(StatusCode::kTimeout, "no answer from " + peer_name() + " in time");
    return broken_status();
  }

  // A streaming call: opened here, fed with send_on, read with next_item.
  uint64_t open_stream() {
    const uint64_t id = next_call_++;
    state_->streams[id];
    return id;
  }
  Status send_on(uint64_t call, Request req) {
    if (state_->broken) return broken_status();
    req.set_call(call);
    return env_.sockets().send(stream_, req.SerializeAsString());
  }
  // The call's next item; kUnavailable once the connection broke, kTimeout if none came in time.
  Result<Item> next_item(uint64_t call, sim::DurationNs timeout) {
    const sim::TimeNs deadline = env_.deadline_after(timeout);
    for (;;) {
      auto it = state_->streams.find(call);
      DST_ASSERT_MSG(it != state_->streams.end(), "next_item on a streaming call that is not open");
      if (!it->second.empty()) {
        Item item = std::move(it->second.front());
        it->second.pop_front();
        return item;
      }
      if (state_->broken) return broken_status();
      const sim::WaitResult w = state_->wake.wait_until(deadline);
      if (w == sim::WaitResult::kTimeout) return Status(StatusCode::kTimeout, "nothing from " + peer_name() + " in time");
      if (w != sim::WaitResult::kOk) return Status(StatusCode::kCancelled, "cancelled");
    }
  }
  void close_stream(uint64_t call) { state_->streams.erase(call); }

  bool broken() const { return state_->broken; }
  sim::Address peer() const { return peer_; }

 private:
  // Shared with the reader fiber, which may outlive the connection by a moment.
  struct State {
    explicit State(sim::Env& env) : wake(env) {}
    std::map<uint64_t, std::shared_ptr<sim::Promise<Response>>> unary;
    std::map<uint64_t, std::deque<Item>> streams;
    sim::WaitQueue wake;  // an item arrived, or the connection broke
    bool broken = false;
  };

  MuxConnection(sim::Env& env, sim::StreamId stream, sim::Address peer)
      : env_(env), stream_(stream), peer_(peer), state_(std::make_shared<State>(env)) {}

  std::string peer_name() const { return std::string(Frames::kPeer) + " " + peer_.to_string(); }
  Status broken_status() const { return Status(StatusCode::kUnavailable, "connection to " + peer_name() + " broken"); }

  static void read_loop(sim::Env& env, sim::StreamId stream, std::shared_ptr<State> state) {
    for (;;) {
      auto frame = env.sockets().recv(stream);
      if (!frame.is_ok()) break;
      Response resp;
      if (!resp.ParseFromString(*frame)) break;  // a peer speaking garbage: treat as broken
      if (Item* item = Frames::stream_item(resp)) {
        // Bounded: stop reading until the consumer catches up (flow control's role), or closes
        // the call.
        for (;;) {
          auto it = state->streams.find(resp.call());
          if (it == state->streams.end() || it->second.size() < Frames::kItemsBuffered) break;
          if (env.sleep(sim::milliseconds(1)) != sim::WaitResult::kOk) return;
        }
        auto it = state->streams.find(resp.call());
        if (it == state->streams.end()) continue;  // a call the client closed
        it->second.push_back(std::move(*item));
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

  sim::Env& env_;
  sim::StreamId stream_;
  sim::Address peer_;
  std::shared_ptr<State> state_;
  uint64_t next_call_ = 1;
};

}  // namespace dst::rpc
