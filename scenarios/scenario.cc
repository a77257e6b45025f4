#include "scenarios/scenario.h"

#include <lua.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/assert.h"
#include "base/hash.h"
#include "base/limits.h"
#include "client/kv_client.h"
#include "client/mix_draw.h"
#include "node/server/membership.h"

namespace dst::scenarios {

Scenario::Scenario(std::string path, uint64_t seed, const LuaLimits& limits)
    : path_(std::move(path)),
      lua_(std::make_unique<LuaHost>(limits, seed)),
      rng_(std::make_unique<sim::Rng>(sim::Rng::substream(seed, "scenario"))),
      seed_(seed) {
  config_.run.faults = false;  // faults come from the script (or its swarm{}), not the built-in nemesis
}

Result<std::string> Scenario::read_file(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) return Status(StatusCode::kNotFound, path + ": cannot read the scenario file");
  if (std::filesystem::is_directory(st))
    return Status(StatusCode::kInvalidArgument, path + ": is a directory, not a scenario file");
  if (!std::filesystem::is_regular_file(st))
    return Status(StatusCode::kInvalidArgument, path + ": not a regular file (a scenario is a .lua file)");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kNotFound, path + ": cannot read the scenario file");
  std::string text(limits::kScenarioFileBytesMax + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > limits::kScenarioFileBytesMax)
    return Status(StatusCode::kInvalidArgument, path + ": larger than " + std::to_string(limits::kScenarioFileBytesMax) +
                                                    " bytes; a scenario is a script of a few KiB");
  return text;
}

Result<std::unique_ptr<Scenario>> Scenario::load(const std::string& path, uint64_t seed, const LuaLimits& limits) {
  Result<std::string> text = read_file(path);
  if (!text.is_ok()) return text.status();
  return load_source(path, *text, seed, limits);
}

Result<std::unique_ptr<Scenario>> Scenario::load_source(const std::string& path, const std::string& code,
                                                        uint64_t seed, const LuaLimits& limits, PrintSink print,
                                                        const SwarmSalts& salts) {
  std::unique_ptr<Scenario> s(new Scenario(path, seed, limits));
  s->salts_ = salts;
  if (print) s->lua_->set_print_sink(std::move(print));
  register_api(s->lua_->state(), s.get());
  if (Status st = s->lua_->run_string(code, path); !st.is_ok()) return st;
  s->loading_ = false;
  if (Status st = s->check_loaded_config(); !st.is_ok()) return st;
  return s;
}

// What only the whole configuration can tell: run_for() was called, nothing is scheduled past
// its end, and the load it asks for can finish.
Status Scenario::check_loaded_config() const {
  const ScenarioConfig& c = config_;
  if (!c.run_for_set)
    return Status(StatusCode::kInvalidArgument,
                  path_ + ": the scenario never calls run_for(d): how long should the clients and faults run?");
  for (const Timed& t : c.timed)
    if (t.at > c.run.duration)
      return Status(StatusCode::kInvalidArgument, t.where + ": scheduled at " + sim::format_duration(t.at) +
                                                      ", after the end of run_for(" +
                                                      sim::format_duration(c.run.duration) + ")");
  return check_offered_load();
}

// The operations the configuration offers stay under the bound a run may offer.
Status Scenario::check_offered_load() const {
  const ScenarioConfig& c = config_;
  const client::WorkloadOptions& w = c.run.workload;
  const double per_second = static_cast<double>(w.clients) * w.rate +
                            (c.kube ? static_cast<double>(c.kube->controllers) * c.kube->writes_per_second : 0.0);
  const double offered = per_second * static_cast<double>(c.run.duration) / 1e9;
  if (offered > static_cast<double>(limits::kScenarioOperationsOfferedMax)) {
    auto it = c.configured_at.find("workload{}");
    const std::string at = it != c.configured_at.end() ? it->second : path_;
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  ": workload{}: %zu clients at %g/s%s for %s offer %.0f operations; a run may offer at most %llu "
                  "((clients x rate + controllers x writes) x run_for): fewer clients, a lower rate or a shorter run",
                  w.clients, w.rate, c.kube ? " plus the kube writers" : "", sim::format_duration(c.run.duration).c_str(),
                  offered, static_cast<unsigned long long>(limits::kScenarioOperationsOfferedMax));
    return Status(StatusCode::kInvalidArgument, at + buf);
  }
  return Status::ok();
}

world::KvRunOptions Scenario::run_options() {
  world::KvRunOptions o = config_.run;
  o.configure_cluster = [this](world::ClusterOptions& co) {
    co.link = config_.link;
    co.server.raft = config_.raft;
    co.server.tick = config_.tick;
    if (config_.quota_bytes > 0) co.server.api.quota_bytes = config_.quota_bytes;
    if (config_.snapshot_every > 0) co.server.snapshot_every = config_.snapshot_every;
    co.fsync_latency = config_.fsync_latency;
    const Status flags = etcdctl::apply_etcd_server_flags(config_.etcd_flags, co.server);
    DST_ASSERT_MSG(flags.is_ok(), flags.to_string());  // l_cluster checked them
  };
  o.on_start = [this](world::SimCluster& cluster, faults::Nemesis& nemesis, history::Recorder& recorder,
                      const client::Workload&, sim::TimeNs until) { start(cluster, nemesis, recorder, until); };
  o.on_heal = [this] {
    phase_over_ = true;  // from here on no scheduled function runs and no fault acts
    if (kube_) kube_->heal();
    if (nemesis_) nemesis_->set_kube(nullptr);
    nemesis_ = nullptr;  // the world's: it ends its windows now and is gone after the run
  };
  if (replay_calls_) {
    o.faults = false;  // a replay draws nothing: the schedule's timed steps replace the random ones
    if (!replay_timed_.empty()) o.replay = replay_timed_;
  }
  return o;
}

void Scenario::set_replay(const faults::Schedule& schedule) {
  DST_ASSERT(sim_ == nullptr);  // before the run starts
  replay_calls_.emplace();
  replay_timed_.clear();
  for (const faults::FaultStep& step : schedule.steps) {
    if (step.origin == faults::Origin::kScript) (*replay_calls_)[step.call] = step;
    else if (step.origin != faults::Origin::kConfig) replay_timed_.push_back(step);
  }
  std::stable_sort(replay_timed_.begin(), replay_timed_.end(),
                   [](const faults::FaultStep& a, const faults::FaultStep& b) { return a.at < b.at; });
}

Status Scenario::set_reduction(const faults::Reduction& r) {
  DST_ASSERT(sim_ == nullptr);  // before the run starts
  ScenarioConfig& c = config_;
  const std::string where = path_ + ": reduce{}: ";
  if (r.nodes) {
    for (const auto& [node, ppm] : c.clock_drift_ppm)
      if (node > *r.nodes)
        return Status(StatusCode::kInvalidArgument, where + "nodes=" + std::to_string(*r.nodes) + ", but cluster{clock=} drifts node " +
                                                        std::to_string(node));
    c.run.nodes = *r.nodes;
  }
  client::WorkloadOptions& w = c.run.workload;
  if (r.clients) w.clients = *r.clients;
  if (r.watchers) w.watchers = *r.watchers;
  if (r.keys) w.keys = *r.keys;
  if (r.rate) w.rate = *r.rate;
  // Timers scheduled past a shorter end never run (Scenario::fire), as a run's last ones do.
  if (r.run_for_ns) c.run.duration = *r.run_for_ns;
  for (const std::string& kind : r.without)
    if (!client::drop_kv_kind(w.kv_mix, kind))
      return Status(StatusCode::kInvalidArgument, where + "unknown request kind '" + kind + "'");
  if (!r.without.empty() && client::kv_kinds_sent(w.kv_mix).empty())
    return Status(StatusCode::kInvalidArgument, where + "without={...} leaves the etcd-kv clients no request kind to send");
  const Status offered = check_offered_load();
  return offered.is_ok() ? offered : Status(StatusCode::kInvalidArgument, where + offered.message());
}

Status Scenario::apply_fault(faults::FaultStep step) {
  DST_ASSERT(nemesis_ != nullptr);
  step.origin = faults::Origin::kScript;
  step.call = ++fault_calls_;
  if (!replay_calls_) {
    const Status st = nemesis_->apply(step);
    if (st.code() == StatusCode::kInvalidArgument) nemesis_->record_refused(step, st.message());
    return st;
  }
  const auto it = replay_calls_->find(step.call);
  if (it == replay_calls_->end()) return Status::ok();  // not in the schedule: the call does nothing
  return nemesis_->apply(it->second);
}

void Scenario::start(world::SimCluster& cluster, faults::Nemesis& nemesis, history::Recorder& recorder,
                     sim::TimeNs until) {
  sim_ = &cluster.simulator();
  nemesis_ = &nemesis;
  cluster_ = &cluster;
  recorder_ = &recorder;
  for (size_t i = 0; i < cluster.size(); ++i) members_.push_back(sim::Address{cluster.host(i), node::ApiOptions{}.port});
  phase_start_ = sim_->now();
  phase_end_ = until;
  for (const auto& [member, ppm] : config_.clock_drift_ppm) {
    faults::FaultStep drift{.kind = faults::FaultKind::kClockDrift, .origin = faults::Origin::kConfig, .node = member};
    drift.ppm = ppm;
    Status st = nemesis_->apply(drift);
    DST_ASSERT_MSG(st.is_ok(), st.message());  // checked when the script set it
  }
  if (config_.kube) {
    // Controllers write while the faults run; informers follow until just before the run ends
    // (the recovery bound and the settle time after the heal), when they record their stores.
    kube_ = std::make_unique<kube::KubeWorld>(*sim_, *config_.kube, members_, recorder);
    const sim::TimeNs informers_until = until + config_.run.recovery_bound + config_.run.settle - sim::milliseconds(100);
    kube_->start(until, std::max(until, informers_until));
    nemesis_->set_kube(kube_.get());
  }
  for (const Timed& t : config_.timed) schedule(t, phase_start_ + t.at);
}

// A scheduled function's events carry the place that scheduled it in their digest: the trace
// then tells two functions apart, and a determinism report names the one that ran. Only the file's
// name and the line count: the same run from another directory must keep its trace hash.
uint64_t Scenario::timer_digest(const Timed& t) {
  const std::string_view place = std::string_view(t.where).substr(t.where.rfind('/') + 1);
  const uint64_t digest = hash_bytes(place, 0x5ce7a210);
  sim_->trace().label_digest(sim::EventKind::kCallback, digest, "scenario function scheduled at " + t.where);
  return digest;
}

void Scenario::schedule(const Timed& t, sim::TimeNs first) {
  DST_ASSERT(sim_ != nullptr);
  DST_ASSERT_LE(timers_.size(), limits::kScenarioTimersPendingMax + limits::kScenarioTimersAtLoadMax);
  const uint64_t id = next_timer_++;
  timers_.emplace(id, t);
  sim_->schedule_at(first, sim::kNoProcess, [this, id, first] { fire(id, first); }, timer_digest(t));
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

void Scenario::spawn_request(const char* name, std::function<void()> body) {
  DST_ASSERT(*requests_in_flight_ < limits::kScenarioRequestsInFlightMax);
  ++*requests_in_flight_;
  sim_->spawn(client_process_, name, [in_flight = requests_in_flight_, body = std::move(body)] {
    struct Done {  // also when the fiber unwinds early
      std::shared_ptr<size_t> n;
      ~Done() { --*n; }
    } done{in_flight};
    body();
  });
}

Status Scenario::check_request_room(const char* fn) const {
  if (*requests_in_flight_ < limits::kScenarioRequestsInFlightMax) return Status::ok();
  return Status(StatusCode::kInvalidArgument,
                std::string(fn) + ": " + std::to_string(limits::kScenarioRequestsInFlightMax) +
                    " requests of the scenario's own client are still waiting for an answer; at most that many "
                    "at once (one request per call: is it called in a loop?)");
}

void Scenario::send(etcdserverpb::ApiRequest req, int64_t member) {
  const client::KvClientOptions ko = client_options(member);
  spawn_request("scenario-request", [sim = sim_, ko, recorder = recorder_, req = std::move(req)]() mutable {
    client::KvClient kv(*sim, ko, *recorder);
    kv.execute(std::move(req));
  });
}

void Scenario::compact(int64_t keep, bool physical) {
  const client::KvClientOptions ko = client_options(-1);
  spawn_request("scenario-compact", [sim = sim_, ko, recorder = recorder_, keep, physical] {
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
  spawn_request("scenario-alarm-disarm", [sim = sim_, ko, recorder = recorder_] {
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
  spawn_request("scenario-member-add",
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

std::optional<size_t> Scenario::move_leader(size_t n) {
  const std::optional<size_t> leader = cluster_->leader();
  if (!leader) return std::nullopt;
  etcdserverpb::ApiRequest req;
  req.mutable_move_leader()->set_targetid(n);  // node n is member ID n
  send(std::move(req), static_cast<int64_t>(*leader));
  return *leader + 1;
}

void Scenario::fire(uint64_t id, sim::TimeNs at) {
  auto it = timers_.find(id);
  DST_ASSERT(it != timers_.end());
  const Timed t = it->second;
  const bool again = !runtime_error_ && !phase_over_ && at < phase_end_;
  if (again) {
    lua_->charge_between_calls(limits::kScenarioScheduleInstructions);
    if (Status st = lua_->call_ref(t.ref); !st.is_ok())
      runtime_error_ = st.message() + " (in the function scheduled at " + t.where + ")";
  }
  if (again && !runtime_error_ && t.every > 0 && at + t.every < phase_end_) {
    sim_->schedule_at(at + t.every, sim::kNoProcess, [this, id, next = at + t.every] { fire(id, next); },
                      timer_digest(t));
    return;
  }
  lua_->release_ref(t.ref);
  timers_.erase(id);
}

Status Scenario::call_scheduled_without_world(size_t i) {
  DST_ASSERT_LT(i, config_.timed.size());
  DST_ASSERT(sim_ == nullptr);
  return lua_->call_ref(config_.timed[i].ref);
}

void Scenario::set_bugs(Bugs bugs) {
  DST_ASSERT(sim_ == nullptr);  // before the run starts
  if (config_.kube) config_.kube->bugs = bugs;
}

std::vector<std::string> Scenario::kube_summary() const {
  return kube_ ? kube_->summary() : std::vector<std::string>{};
}

}  // namespace dst::scenarios
