// See service_probe.h.
#include "world/service_probe.h"

#include <memory>
#include <vector>

#include "client/kv_client.h"

namespace dst::world {

namespace {

// Per request: short enough that a member still electing does not use the whole bound.
constexpr sim::DurationNs kProbeRequestTimeout = sim::seconds(2);
constexpr sim::DurationNs kProbeRetryPause = sim::milliseconds(100);

struct ProbeState {
  bool done = false;
  sim::TimeNs done_at = 0;
  bool wrote = false;
  std::vector<size_t> answered;  // members (0-based) that answered the read
  std::string waiting_for;       // what the probe was doing when the bound passed
};

}  // namespace

ServiceReport probe_service(sim::Simulator& sim, SimCluster& cluster, history::Recorder& recorder, uint16_t api_port,
                            sim::DurationNs bound) {
  const sim::TimeNs start = sim.now();
  const sim::TimeNs deadline = start + bound;
  std::vector<sim::Address> members;
  std::vector<size_t> current;  // who must answer: the members now
  for (size_t i = 0; i < cluster.size(); ++i) {
    members.push_back(sim::Address{cluster.host(i), api_port});
    if (cluster.counts_as_member(i)) current.push_back(i);
  }
  ServiceReport report;
  if (current.empty()) {
    report.detail = "no member to probe";
    return report;
  }
  auto state = std::make_shared<ProbeState>();
  const sim::ProcessId process = sim.start_process(sim.add_host("liveness-probe"), "liveness-probe");
  sim.spawn(process, "probe", [&sim, &recorder, members, current, state, deadline] {
    auto options = [&](uint32_t k, size_t member, bool pinned) {
      client::KvClientOptions o;
      o.id = kServiceProbeClientIdBase + k;
      o.members = members;
      o.pinned = pinned;
      o.pinned_member = member;
      o.timeout = kProbeRequestTimeout;
      return o;
    };
    // A write, through any member (the client moves on when one cannot be reached).
    client::KvClient writer(sim, options(0, current.front(), false), recorder);
    etcdserverpb::ApiRequest put;
    put.mutable_put()->set_key("dst/liveness-probe");
    state->waiting_for = "a client write to be acknowledged";
    while (sim.now() < deadline) {
      // A value of its own per attempt: an attempt whose answer was lost may still be applied,
      // and the etcd checker tells writes apart by their values (a retry with the same value
      // made the lost attempt's revision unexplainable: swarm.lua seed 96, "future-revision").
      put.mutable_put()->set_value("probe@" + std::to_string(sim.now()));
      if (writer.execute(put).outcome == history::Outcome::kOk) {
        state->wrote = true;
        break;
      }
      if (sim.sleep(kProbeRetryPause) != sim::WaitResult::kOk) return;
    }
    if (!state->wrote) return;
    // Then a linearizable read from each member, each on its own.
    etcdserverpb::ApiRequest get;
    get.mutable_range()->set_key("dst/liveness-probe");
    for (size_t k = 0; k < current.size(); ++k) {
      client::KvClient reader(sim, options(static_cast<uint32_t>(1 + k), current[k], true), recorder);
      state->waiting_for = "n" + std::to_string(current[k] + 1) + " to answer a linearizable read";
      bool answered = false;
      while (!answered && sim.now() < deadline) {
        answered = reader.execute(get).outcome == history::Outcome::kOk;
        if (!answered && sim.sleep(kProbeRetryPause) != sim::WaitResult::kOk) return;
      }
      if (!answered) return;
      state->answered.push_back(current[k]);
    }
    state->done = true;
    state->done_at = sim.now();
  });
  while (!state->done && sim.now() < deadline) sim.run_until(std::min(deadline, sim.now() + sim::milliseconds(20)));
  if (sim.alive(process)) sim.kill(process);
  report.ok = state->done;
  report.took = (report.ok ? state->done_at : sim.now()) - start;
  if (!report.ok)
    report.detail = "no service within " + sim::format_duration(bound) + " of the recovery: waiting for " +
                    state->waiting_for;
  return report;
}

}  // namespace dst::world
