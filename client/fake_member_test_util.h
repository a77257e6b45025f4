// For the client tests: scripted stand-ins for etcd members, each a process on a host of its own
// that accepts connections on the client port and does, per request, what the test's script says:
// answer, say nothing, close the connection, or die. There is no Raft and no store behind them: the
// clients' own rules (outcomes, retries, failover, watch resumption) are what these tests hold,
// against every transport outcome a real member can produce, each on cue.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "history/recorder.h"
#include "proto/etcd_api.pb.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::client::testing {

inline constexpr uint16_t kClientPort = 2379;

// What a fake member does with one request.
struct Reply {
  enum class Act { kAnswer, kSilence, kCloseConnection, kDie };
  Act act = Act::kAnswer;
  etcdserverpb::ApiResponse response;  // kAnswer only (its call id is filled in)
  // kAnswer on a watch call: every response to send, in order, then (if set) close the connection.
  std::vector<etcdserverpb::WatchResponse> watch_responses;
  bool close_after = false;

  static Reply answer(etcdserverpb::ApiResponse r) { return Reply{Act::kAnswer, std::move(r), {}, false}; }
  static Reply error(int32_t grpc_code, std::string message) {
    etcdserverpb::ApiResponse r;
    r.mutable_error()->set_code(grpc_code);
    r.mutable_error()->set_message(std::move(message));
    return answer(std::move(r));
  }
  static Reply silence() { return Reply{Act::kSilence, {}, {}, false}; }
  static Reply close_connection() { return Reply{Act::kCloseConnection, {}, {}, false}; }
  static Reply die() { return Reply{Act::kDie, {}, {}, false}; }
  static Reply watch(std::vector<etcdserverpb::WatchResponse> responses, bool then_close) {
    return Reply{Act::kAnswer, {}, std::move(responses), then_close};
  }
};

// Called for every request a member receives (unary or watch), with the member's index.
using Script = std::function<Reply(size_t member, const etcdserverpb::ApiRequest& request)>;

class FakeMembers {
 public:
  FakeMembers(sim::Simulator& sim, size_t n) : sim_(sim) {
    for (size_t i = 0; i < n; ++i) hosts_.push_back(sim.add_host("m" + std::to_string(i + 1)));
    processes_.assign(n, sim::kNoProcess);
  }

  std::vector<sim::Address> addresses() const {
    std::vector<sim::Address> out;
    for (sim::HostId h : hosts_) out.push_back(sim::Address{h, kClientPort});
    return out;
  }
  // Starts member i's process, serving `script` (a member never started refuses connections).
  void start(size_t i, Script script) {
    processes_[i] = sim_.start_process(hosts_[i], "m" + std::to_string(i + 1));
    sim_.spawn(processes_[i], "accept", [this, i, script] { accept_loop(i, script); });
  }
  void kill(size_t i) {
    if (processes_[i] != sim::kNoProcess) sim_.kill(processes_[i]);
  }
  // Requests each member received, in order (watch requests included).
  const std::vector<etcdserverpb::ApiRequest>& received(size_t i) { return received_[i]; }

 private:
  void accept_loop(size_t i, Script script) {
    auto listener = sim_.net().listen(processes_[i], kClientPort);
    ASSERT_TRUE(listener.is_ok()) << listener.status().to_string();
    for (;;) {
      auto stream = sim_.net().accept(*listener);
      if (!stream.is_ok()) return;
      const sim::StreamId s = *stream;
      sim_.spawn(processes_[i], "conn", [this, i, s, script] { serve(i, s, script); });
    }
  }

  void serve(size_t i, sim::StreamId s, const Script& script) {
    for (;;) {
      auto frame = sim_.net().recv(s);
      if (!frame.is_ok()) return;
      etcdserverpb::ApiRequest req;
      ASSERT_TRUE(req.ParseFromString(*frame));
      received_[i].push_back(req);
      Reply reply = script(i, req);
      switch (reply.act) {
        case Reply::Act::kSilence: continue;
        case Reply::Act::kCloseConnection: sim_.net().close_stream(s); return;
        case Reply::Act::kDie: sim_.kill(processes_[i]); return;
        case Reply::Act::kAnswer: break;
      }
      if (!send_answer(s, req.call(), reply)) return;
    }
  }

  bool send_answer(sim::StreamId s, uint64_t call, Reply& reply) {
    if (reply.watch_responses.empty() && !reply.close_after) {
      reply.response.set_call(call);
      return sim_.net().send(s, reply.response.SerializeAsString()).is_ok();
    }
    for (auto& w : reply.watch_responses) {
      etcdserverpb::ApiResponse out;
      out.set_call(call);
      *out.mutable_watch() = std::move(w);
      if (!sim_.net().send(s, out.SerializeAsString()).is_ok()) return false;
    }
    if (!reply.close_after) return true;
    sim_.net().close_stream(s);
    return false;
  }

  sim::Simulator& sim_;
  std::vector<sim::HostId> hosts_;
  std::vector<sim::ProcessId> processes_;
  std::map<size_t, std::vector<etcdserverpb::ApiRequest>> received_;
};

// Runs `body` in a fiber of a fresh client process (on a host of its own) for `bound` of virtual
// time (the members keep serving meanwhile), then kills the process, so that a body that did not
// finish never runs on with references to this frame.
template <typename F>
void run_client(sim::Simulator& sim, F body, sim::DurationNs bound = sim::seconds(600)) {
  const sim::HostId h = sim.add_host("client" + std::to_string(sim.host_count()));
  const sim::ProcessId p = sim.start_process(h, "client");
  bool done = false;
  sim.spawn(p, "client", [&] {
    body();
    done = true;
  });
  sim.run_until(sim.now() + bound);
  EXPECT_TRUE(done) << "the client did not finish within the bound";
  sim.kill(p);
}

inline etcdserverpb::ApiRequest put_request(const std::string& key, const std::string& value) {
  etcdserverpb::ApiRequest r;
  r.mutable_put()->set_key(key);
  r.mutable_put()->set_value(value);
  return r;
}

inline etcdserverpb::ApiRequest get_request(const std::string& key) {
  etcdserverpb::ApiRequest r;
  r.mutable_range()->set_key(key);
  return r;
}

inline etcdserverpb::ApiResponse put_answer(int64_t revision) {
  etcdserverpb::ApiResponse r;
  r.mutable_put()->mutable_header()->set_revision(revision);
  return r;
}

}  // namespace dst::client::testing
