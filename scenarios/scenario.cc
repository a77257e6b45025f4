#include "scenarios/scenario.h"

#include <lua.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "base/assert.h"
#include "client/kv_client.h"
#include "node/server/membership.h"
#include "sim/fault_log.h"

namespace dst::scenarios {

Scenario::Scenario(std::string path, uint64_t seed, const LuaLimits& limits)
    : path_(std::move(path)),
      lua_(std::make_unique<LuaHost>(limits, seed)),
      rng_(std::make_unique<sim::Rng>(sim::Rng::substream(seed, "scenario"))) {
  config_.run.faults = false;  // faults come from the script (or its swarm{}), not the built-in nemesis
}

Result<std::unique_ptr<Scenario>> Scenario::load(const std::string& path, uint64_t seed, const LuaLimits& limits) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kNotFound, path + ": cannot read the scenario file");
  std::ostringstream text;
  text << in.rdbuf();
  return load_source(path, text.str(), seed, limits);
}

Result<std::unique_ptr<Scenario>> Scenario::load_source(const std::string& path, const std::string& code,
                                                        uint64_t seed, const LuaLimits& limits) {
  std::unique_ptr<Scenario> s(new Scenario(path, seed, limits));
  register_api(s->lua_->state(), s.get());
  if (Status st = s->lua_->run_string(code, path); !st.is_ok()) return st;
  s->loading_ = false;
  ScenarioConfig& c = s->config_;
  if (!c.run_for_set)
    return Status(StatusCode::kInvalidArgument,
                  path + ": the scenario never calls run_for(d): how long should the clients and faults run?");
  for (const Timed& t : c.timed)
    if (t.at > c.run.duration)
      return Status(StatusCode::kInvalidArgument, t.where + ": scheduled at " + sim::format_duration(t.at) +
                                                      ", after the end of run_for(" +
                                                      sim::format_duration(c.run.duration) + ")");
  return s;
}

node::KvRunOptions Scenario::run_options() {
  node::KvRunOptions o = config_.run;
  o.configure_cluster = [this](node::ClusterOptions& co) {
    co.link = config_.link;
    co.server.raft = config_.raft;
    co.server.tick = config_.tick;
    if (config_.quota_bytes > 0) co.server.api.quota_bytes = config_.quota_bytes;
    if (config_.snapshot_every > 0) co.server.snapshot_every = config_.snapshot_every;
    co.fsync_latency = config_.fsync_latency;
  };
  o.on_start = [this](node::SimCluster& cluster, history::Recorder& recorder, const client::Workload&,
                      sim::TimeNs until) { start(cluster, recorder, until); };
  o.on_heal = [this] {
    if (nemesis_) nemesis_->finish();
    if (kube_) kube_->heal();
  };
  return o;
}

void Scenario::start(node::SimCluster& cluster, history::Recorder& recorder, sim::TimeNs until) {
  sim_ = &cluster.simulator();
  nemesis_ = std::make_unique<faults::Nemesis>(*sim_, cluster, recorder);
  cluster_ = &cluster;
  recorder_ = &recorder;
  for (size_t i = 0; i < cluster.size(); ++i) members_.push_back(sim::Address{cluster.host(i), node::ApiOptions{}.port});
  phase_start_ = sim_->now();
  phase_end_ = until;
  for (const auto& [member, ppm] : config_.clock_drift_ppm) {
    Status st = nemesis_->clock_drift(member, ppm);
    DST_ASSERT_MSG(st.is_ok(), st.message());  // checked when the script set it
  }
  if (config_.kube) {
    // Controllers write while the faults run; informers follow until just before the run ends
    // (the recovery bound and the settle time after the heal), when they record their stores.
    kube_ = std::make_unique<kube::KubeWorld>(*sim_, *config_.kube, members_, recorder);
    const sim::TimeNs informers_until = until + config_.run.recovery_bound + config_.run.settle - sim::milliseconds(100);
    kube_->start(until, std::max(until, informers_until));
  }
  runtime_timed_ = config_.timed;
  for (size_t i = 0; i < runtime_timed_.size(); ++i) {
    const sim::TimeNs at = phase_start_ + runtime_timed_[i].at;
    sim_->schedule_at(at, sim::kNoProcess, [this, i, at] { fire(i, at); });
  }
}

void Scenario::schedule(const Timed& t, sim::TimeNs first) {
  DST_ASSERT(sim_ != nullptr);
  DST_ASSERT_LE(runtime_timed_.size(), size_t{1'000'000});  // a script scheduling without bound
  const size_t i = runtime_timed_.size();
  runtime_timed_.push_back(t);
  if (first >= phase_end_) return;  // the fault phase is over by then
  sim_->schedule_at(first, sim::kNoProcess, [this, i, first] { fire(i, first); });
}

// The scenario's client ids start far above the workload's (clients, watchers, compactor).
constexpr uint32_t kScenarioClientIdBase = 1'000'000;

client::KvClientOptions Scenario::client_options(int64_t member) {
  DST_ASSERT(sim_ != nullptr);
  if (client_process_ == sim::kNoProcess)
    client_process_ = sim_->start_process(sim_->add_host("scenario-client"), "scenario-client");
  client::KvClientOptions ko;
  ko.id = kScenarioClientIdBase + client_requests_++;
  ko.members = members_;
  ko.pinned = member >= 0;
  ko.pinned_member = member >= 0 ? static_cast<size_t>(member) : 0;
  ko.timeout = config_.run.workload.request_timeout;
  return ko;
}

void Scenario::send(etcdserverpb::ApiRequest req, int64_t member) {
  const client::KvClientOptions ko = client_options(member);
  sim_->spawn(client_process_, "scenario-request", [sim = sim_, ko, recorder = recorder_, req = std::move(req)]() mutable {
    client::KvClient kv(*sim, ko, *recorder);
    kv.execute(std::move(req));
  });
}

void Scenario::compact(int64_t keep, bool physical) {
  const client::KvClientOptions ko = client_options(-1);
  sim_->spawn(client_process_, "scenario-compact", [sim = sim_, ko, recorder = recorder_, keep, physical] {
    client::KvClient kv(*sim, ko, *recorder);
    etcdserverpb::ApiRequest probe;
    probe.mutable_range()->set_key("scenario/compact-probe");
    history::Operation r = kv.execute(probe);
    if (r.outcome != history::Outcome::kOk) return;
    const int64_t rev = r.response.range().header().revision() - keep;
    if (rev <= 1) return;
    etcdserverpb::ApiRequest c;
    c.mutable_compaction()->set_revision(rev);
    c.mutable_compaction()->set_physical(physical);
    kv.execute(c);
  });
}

void Scenario::alarm_disarm() {
  const client::KvClientOptions ko = client_options(-1);
  sim_->spawn(client_process_, "scenario-alarm-disarm", [sim = sim_, ko, recorder = recorder_] {
    client::KvClient kv(*sim, ko, *recorder);
    etcdserverpb::ApiRequest list;
    list.mutable_alarm()->set_action(etcdserverpb::AlarmRequest::GET);
    const history::Operation listed = kv.execute(list);
    if (listed.outcome != history::Outcome::kOk) return;
    for (const etcdserverpb::AlarmMember& a : listed.response.alarm().alarms()) {
      etcdserverpb::ApiRequest off;
      off.mutable_alarm()->set_action(etcdserverpb::AlarmRequest::DEACTIVATE);
      off.mutable_alarm()->set_memberid(a.memberid());
      off.mutable_alarm()->set_alarm(a.alarm());
      kv.execute(off);
    }
  });
}

Result<size_t> Scenario::member_add(bool learner) {
  Result<size_t> added = cluster_->add_node();
  if (!added.is_ok()) return added.status();
  const size_t index = *added;
  // Clients of the scenario's own may talk to the new member from now on.
  members_.push_back(sim::Address{cluster_->host(index), node::ApiOptions{}.port});
  etcdserverpb::ApiRequest req;
  req.mutable_member_add()->add_peerurls(node::member_peer_url(index + 1, node::ServerOptions{}.raft_port));
  req.mutable_member_add()->set_islearner(learner);
  const client::KvClientOptions ko = client_options(-1);
  sim_->spawn(client_process_, "scenario-member-add",
              [sim = sim_, ko, recorder = recorder_, req = std::move(req), cluster = cluster_, index]() mutable {
                client::KvClient kv(*sim, ko, *recorder);
                const history::Operation r = kv.execute(std::move(req));
                if (r.outcome == history::Outcome::kFailed) return;  // not added: the node stays down
                if (!cluster->up(index) && !cluster->removed(index)) cluster->start(index);
              });
  return index + 1;
}

void Scenario::member_remove(size_t n) {
  etcdserverpb::ApiRequest req;
  req.mutable_member_remove()->set_id(n);  // node n is member ID n
  send(std::move(req), -1);
}

void Scenario::fire(size_t i, sim::TimeNs at) {
  if (runtime_error_ || at >= phase_end_) return;
  const Timed t = runtime_timed_[i];
  if (Status st = lua_->call_ref(t.ref); !st.is_ok()) {
    runtime_error_ = st.message() + " (in the function scheduled at " + t.where + ")";
    return;
  }
  if (t.every > 0 && at + t.every < phase_end_)
    sim_->schedule_at(at + t.every, sim::kNoProcess, [this, i, next = at + t.every] { fire(i, next); });
}

std::vector<std::string> Scenario::fault_log() const {
  return sim::FaultLog::merge(nemesis_ ? nemesis_->log() : sim::FaultLog{},
                              kube_ ? kube_->fault_log() : sim::FaultLog{});
}

void Scenario::set_kube_bugs(uint32_t bugs) {
  DST_ASSERT(sim_ == nullptr);  // before the run starts
  if (config_.kube) config_.kube->bugs |= bugs;
}

std::vector<std::string> Scenario::kube_summary() const {
  return kube_ ? kube_->summary() : std::vector<std::string>{};
}

}  // namespace dst::scenarios
