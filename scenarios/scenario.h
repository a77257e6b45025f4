// A Lua scenario: the script runs once at load time to describe the world (cluster{},
// workload{}, run_for(), check{}, swarm{}) and to schedule what happens when (at(), every(),
// after()); then, inside the simulation, the scheduled functions run at their virtual times and
// call the fault functions (partition{}, crash(), ...), which act through faults::Nemesis.
// docs/scenarios.md is the reference of every function.
//
// One Scenario object serves one simulated run (a --check-determinism run loads the script
// again for its second world): the Lua state holds the callbacks and whatever the script keeps
// in its variables.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "client/etcdctl/etcd_server_flags.h"
#include "client/kv_client.h"
#include "client/workload.h"
#include "faults/nemesis.h"
#include "faults/schedule_text.h"
#include "kube/kube_world.h"
#include "world/kv_run_world.h"
#include "scenarios/lua_host.h"
#include "scenarios/swarm_salts.h"

namespace dst::scenarios {

// What the checks at the end require.
struct Checks {
  bool linearizable = true;
  bool watch = true;
  bool liveness = true;  // after the heal, service again within recovery_bound
  bool durability = true;  // raft invariants and member agreement (same state at the same index)
};

// A function the script scheduled.
struct Timed {
  sim::DurationNs at = 0;     // from the start of the fault phase
  sim::DurationNs every = 0;  // 0: once
  int ref = 0;                // the function, in the Lua registry
  std::string where;          // "scenarios/x.lua:12", for messages
};

struct ScenarioConfig {
  world::KvRunOptions run;  // cluster size, workload, duration, recovery bound
  std::optional<sim::DurationDist> fsync_latency;  // cluster{disk={fsync=...}}
  std::string fsync_text;
  std::vector<std::pair<size_t, int64_t>> clock_drift_ppm;  // cluster{clock={drift_ppm={...}}}
  sim::LinkConfig link;
  raft::Config raft;
  sim::DurationNs tick = sim::milliseconds(100);
  uint64_t quota_bytes = 0;     // 0: etcd's default
  uint64_t snapshot_every = 0;  // 0: run_kv_world's default
  etcdctl::EtcdServerFlags etcd_flags;  // cluster{etcd={...}}: etcd's server flags, applied last
  Checks checks;
  std::vector<std::string> must_reach;  // must_reach{}: coverage names a sweep must reach
  std::vector<std::string> swarm_log;  // what swarm{} drew
  std::vector<Timed> timed;
  bool run_for_set = false;
  std::optional<kube::KubeWorldOptions> kube;  // kube{}: apiservers and controllers on top
  std::map<std::string, std::string> configured_at;  // "cluster{}" -> where it was called (once each)
};

class Scenario {
 public:
  // Reads a scenario file (a regular file of at most limits::kScenarioFileBytesMax bytes):
  // kNotFound or kInvalidArgument "path: ..." when it cannot be.
  static Result<std::string> read_file(const std::string& path);
  // Loads and runs the script's top level. kInvalidArgument "path:line: what was expected" for a
  // script error, kNotFound when the file cannot be read.
  static Result<std::unique_ptr<Scenario>> load(const std::string& path, uint64_t seed,
                                                const LuaLimits& limits = {});
  // The same from a script's text, named `name` in messages; its print() lines go to `print`
  // (stdout when empty).
  // `salts` redraw parts of swarm{}'s draw (swarm_salts.h).
  static Result<std::unique_ptr<Scenario>> load_source(const std::string& name, const std::string& code,
                                                       uint64_t seed, const LuaLimits& limits = {},
                                                       PrintSink print = nullptr, const SwarmSalts& salts = {});

  const ScenarioConfig& config() const { return config_; }
  const std::string& path() const { return path_; }
  // The Lua state, for tests that add functions of their own.
  lua_State* lua_state() { return lua_->state(); }
  // For fuzzing: runs the i-th function the top level scheduled, now, with no world (its fault
  // functions raise "call it inside at()"; the sandbox's library runs as in a run).
  Status call_scheduled_without_world(size_t i);

  // The world's options with this scenario's hooks: configure_cluster, on_start (creates the
  // nemesis and schedules the timed functions), on_heal. The Scenario must outlive the run.
  world::KvRunOptions run_options();

  // The first error a scheduled function raised (later ones are not run), if any.
  const std::optional<std::string>& runtime_error() const { return runtime_error_; }
  // Replays `schedule` instead of drawing faults (before the run starts): its timed steps run
  // at their times, its script steps replace the script's calls of the same number (a call the
  // schedule lacks does nothing), its config steps are the script's own and are skipped.
  void set_replay(const faults::Schedule& schedule);
  bool replaying() const { return replay_calls_.has_value(); }
  // Replaces parts of the configuration with a schedule's reduce{} (before the run starts): the
  // cluster's size, the workload's clients, watchers, keys, rate and request kinds, run_for.
  // kInvalidArgument "path: reduce{}: ..." when the scenario cannot take it.
  Status set_reduction(const faults::Reduction& reduction);
  // The run's bugs (base/bugs.h) for its kube layer; before it starts. (The cluster's members get
  // the same value through the run's configure_cluster.)
  void set_bugs(Bugs bugs);
  // What each apiserver and controller did (empty without kube{}).
  std::vector<std::string> kube_summary() const;

  // --- used by the Lua functions (scenario_api.cc) ---
  bool loading() const { return loading_; }
  ScenarioConfig& mutable_config() { return config_; }
  faults::Nemesis* nemesis() { return nemesis_; }
  // A fault function's step: numbered as the script's next call and carried out by the nemesis
  // (or, in a replay, the schedule's step of that number instead).
  Status apply_fault(faults::FaultStep step);
  kube::KubeWorld* kube() { return kube_.get(); }
  sim::Simulator* simulator() { return sim_; }
  sim::TimeNs phase_start() const { return phase_start_; }
  sim::TimeNs phase_end() const { return phase_end_; }
  sim::Rng& rng() { return *rng_; }
  // The stream swarm{}'s part (an index of kSwarmParts) draws from: the seed's, or salted.
  sim::Rng swarm_rng(size_t part) const { return sim::Rng::substream(seed_, swarm_stream(salts_, part)); }
  // True once the fault phase has ended (the harness healed everything): no fault acts any more.
  bool world_gone() const { return phase_over_; }
  // Schedules a function registered at t.ref (the scenario owns the reference from now on).
  void schedule(const Timed& t, sim::TimeNs first);
  size_t timers_pending() const { return timers_.size(); }
  // Sends a request from the scenario's own client (a process on a host of its own), recorded
  // with the history like the workload's: compact() and defrag() (0-based member; -1: any).
  void send(etcdserverpb::ApiRequest req, int64_t member);
  // compact(): reads the current revision, then compacts to it minus `keep`.
  void compact(int64_t keep, bool physical);
  // alarm_disarm(): lists the alarms, then deactivates each (etcdctl alarm disarm).
  void alarm_disarm();
  // member_add(): a new node on a host of its own; the scenario's client sends MemberAdd for it
  // and, when the answer is ok or unknown (it may have happened), starts it, as an operator
  // starts the new etcd once `etcdctl member add` returned. Returns the new node's number.
  Result<size_t> member_add(bool learner);
  // member_remove(n): the scenario's client sends MemberRemove for node n; the member stops by
  // itself once it applies (or hears of) its removal.
  void member_remove(size_t n);
  // move_leader(n): the scenario's client sends MoveLeader for node n to the member leading now
  // (etcdctl finds it the same way); returns that leader's node number, none when nobody leads.
  std::optional<size_t> move_leader(size_t n);
  // --- disaster recovery (scenario_restore.cc) ---
  // snapshot_save(n, name): the scenario's client asks member n for a snapshot (etcdctl snapshot
  // save) and, once it answers, keeps the file under `name` on the operator's machine, which no
  // disaster touches (a later save under the same name replaces it).
  Status snapshot_save(size_t n, const std::string& name);
  // disaster(): every member's machine loses its disk (SimCluster::disaster), recorded as a fault
  // window that restore() ends.
  Status disaster();
  // restore(name, bump): a new cluster on the same machines from the snapshot file `name` (empty:
  // the newest saved), as etcdctl snapshot restore then starting every member; bump > 0 is
  // --bump-revision with --mark-compacted. Recorded in the history (history::Restore).
  Status restore(const std::string& name, int64_t bump);

  // Ok while fewer than kScenarioRequestsInFlightMax of the requests above wait for an answer;
  // otherwise an error for `fn` (the API functions ask before they send).
  Status check_request_room(const char* fn) const;

 private:
  Scenario(std::string path, uint64_t seed, const LuaLimits& limits);
  Status check_loaded_config() const;
  Status check_offered_load() const;
  void start(world::SimCluster& cluster, faults::Nemesis& nemesis, history::Recorder& recorder, sim::TimeNs until);
  // A client of the scenario's own: pinned to a 0-based member, or any member (-1).
  client::KvClientOptions client_options(int64_t member);
  void fire(uint64_t timer, sim::TimeNs at);
  // Runs `body` in a fiber of the scenario's client, counted in requests_in_flight_ until it ends.
  void spawn_request(const char* name, std::function<void()> body);
  uint64_t timer_digest(const Timed& t);

  std::string path_;
  std::unique_ptr<LuaHost> lua_;
  ScenarioConfig config_;
  bool loading_ = true;
  faults::Nemesis* nemesis_ = nullptr;  // the world's, while the fault phase runs
  uint64_t fault_calls_ = 0;
  std::optional<std::map<uint64_t, faults::FaultStep>> replay_calls_;  // by call number
  std::vector<faults::FaultStep> replay_timed_;
  std::unique_ptr<kube::KubeWorld> kube_;
  world::SimCluster* cluster_ = nullptr;
  history::Recorder* recorder_ = nullptr;
  std::vector<sim::Address> members_;
  sim::ProcessId client_process_ = sim::kNoProcess;
  uint32_t client_requests_ = 0;
  // Shared with the request fibers, which may end after the scenario is gone.
  std::shared_ptr<size_t> requests_in_flight_ = std::make_shared<size_t>(0);
  sim::Simulator* sim_ = nullptr;
  sim::TimeNs phase_start_ = 0, phase_end_ = 0;
  std::unique_ptr<sim::Rng> rng_;
  uint64_t seed_ = 0;
  SwarmSalts salts_;
  // Functions waiting to run, by a number that only grows (deterministic order); a one-shot one
  // leaves (and its Lua reference is released) when it has run.
  std::map<uint64_t, Timed> timers_;
  uint64_t next_timer_ = 0;
  bool phase_over_ = false;
  std::optional<std::string> runtime_error_;
  // Snapshot files on the operator's machine, by name, and the order they were saved in (newest
  // last); shared with the request fibers that fill them.
  struct SnapshotFiles {
    std::map<std::string, std::string> files;
    std::map<std::string, size_t> cluster;  // restores before the save: which cluster it is of
    std::vector<std::string> saved;
  };
  std::shared_ptr<SnapshotFiles> snapshots_ = std::make_shared<SnapshotFiles>();
  std::optional<sim::TimeNs> disaster_at_;
  std::vector<size_t> disaster_members_;  // 0-based: the machines a restore starts members on
  uint64_t disaster_fault_ = 0;  // the recorder's fault id of the open disaster window
  size_t restores_ = 0;
};

// Registers the scenario functions in the Lua state (scenario_api.cc).
void register_api(lua_State* L, Scenario* scenario);

}  // namespace dst::scenarios
