// swarm{}: the seed draws the run (FoundationDB's swarm testing; issue 21's "swarm over
// everything"): which kinds of fault run and how often, and, unless told not to, the cluster's
// size and timing (tick, election timeout, pre-vote, snapshot interval, append sizes) and the
// workload (request kinds and options, key space, value sizes, rate, compaction interval, the
// watchers' behaviour). Each seed is a different corner; the draw is printed with the seed.
//
//   swarm{faults={...}, interval={lo, hi}, nodes={1, 3, 5}, timing=true, workload=true}
#include <lua.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/assert.h"
#include "client/mix_draw.h"
#include "scenarios/scenario_api.h"
#include "scenarios/scenario_args.h"

namespace dst::scenarios::api {

namespace {

// "kube" (apiserver crashes and cuts, controller pauses) last: only a world with kube{} has it.
constexpr const char* kSwarmKinds[] = {"partition", "one_way", "crash", "slow_fsync", "fsync_error", "loss", "pause",
                                       "failpoint", "clock", "watch", "client", "corrupt", "kube"};

// swarm{}'s field 'faults': the kinds listed (all of them when it is absent; "kube" only with kube{}).
std::vector<std::string> swarm_kinds(lua_State* L, Fields& f, bool has_kube) {
  std::vector<std::string> kinds;
  if (f.push("faults") != LUA_TNIL) {
    if (!lua_istable(L, -1)) luaL_error(L, "swarm{}: field 'faults': expected a list of fault kinds");
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; ++i) {
      if (i > 64) fail(L, "swarm{}: field 'faults': more than 64 entries");
      const char* k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : nullptr;
      if (k == nullptr || std::find_if(std::begin(kSwarmKinds), std::end(kSwarmKinds),
                                       [&](const char* x) { return std::string(x) == k; }) == std::end(kSwarmKinds))
        luaL_error(L, "swarm{}: unknown fault kind '%s'; expected partition, one_way, crash, slow_fsync, fsync_error, loss, pause, failpoint, clock, watch, client, corrupt, kube",
                   k ? k : luaL_typename(L, -1));
      if (std::string(k) == "kube" && !has_kube) fail(L, "swarm{}: fault kind 'kube' needs apiservers: call kube{} before swarm{}");
      kinds.push_back(k);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  } else {
    kinds.assign(std::begin(kSwarmKinds), std::end(kSwarmKinds) - (has_kube ? 0 : 1));
  }
  lua_pop(L, 1);
  if (kinds.empty()) luaL_error(L, "swarm{}: field 'faults' is empty");
  return kinds;
}

// swarm{}'s field 'interval': {lo, hi} for the mean time between faults (200 ms..3 s by default).
std::pair<sim::DurationNs, sim::DurationNs> swarm_interval(lua_State* L, Fields& f) {
  sim::DurationNs lo = sim::milliseconds(200), hi = sim::seconds(3);
  if (f.push("interval") != LUA_TNIL) {
    if (!lua_istable(L, -1)) luaL_error(L, "swarm{}: field 'interval': expected {lo, hi}, e.g. {ms(200), s(3)}");
    lua_rawgeti(L, -1, 1);
    lua_rawgeti(L, -2, 2);
    lo = to_duration(L, -2, "swarm{}", "interval lo");
    hi = to_duration(L, -1, "swarm{}", "interval hi");
    lua_pop(L, 2);
    if (lo < sim::milliseconds(10) || hi < lo) luaL_error(L, "swarm{}: field 'interval': need ms(10) <= lo <= hi");
  }
  lua_pop(L, 1);
  return {lo, hi};
}

void set_fault_kind(faults::RandomFaultOptions& n, const std::string& k, bool on) {
  if (k == "partition") n.partitions = on;
  if (k == "one_way") n.asymmetric = on;
  if (k == "crash") n.crashes = on;
  if (k == "slow_fsync") n.slow_fsync = on;
  if (k == "fsync_error") n.fsync_errors = on;
  if (k == "loss") n.message_loss = on;
  if (k == "pause") n.pauses = on;
  if (k == "failpoint") n.fault_points = on;
  if (k == "kube") n.kube_processes = on;
  if (k == "clock") n.clocks = on;
  if (k == "watch") n.watch_clients = on;
  if (k == "corrupt") n.disk_corruption = on;
  if (k == "client") n.client_stalls = on;
}


// swarm{}'s field 'nodes': the cluster sizes to draw from (absent: cluster{}'s). Each must hold
// every member cluster{} names (a clock drift on n5 needs 5 members on every seed).
std::vector<size_t> swarm_sizes(lua_State* L, Fields& f, const ScenarioConfig& c) {
  size_t named = 0;
  for (const auto& [member, ppm] : c.clock_drift_ppm) named = std::max(named, member);
  std::vector<size_t> sizes;
  if (f.push("nodes") != LUA_TNIL) {
    if (!lua_istable(L, -1)) fail(L, "swarm{}: field 'nodes': expected a list of cluster sizes, e.g. {1, 3, 5}");
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; ++i) {
      if (i > 9) fail(L, "swarm{}: field 'nodes': more than 9 sizes");
      sizes.push_back(static_cast<size_t>(check_whole(L, -1, "swarm{}", "field 'nodes' entry " + std::to_string(i), 1, 9)));
      if (sizes.back() < named)
        fail(L, "swarm{}: field 'nodes': size " + std::to_string(sizes.back()) + " has no member n" + std::to_string(named) +
                    ", which cluster{clock={drift_ppm=...}} names; every size must be at least " + std::to_string(named));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (sizes.empty()) fail(L, "swarm{}: field 'nodes' is empty");
  }
  lua_pop(L, 1);
  return sizes;
}

// The fault kinds: each on with probability 0.6 (the first listed when none is), and the mean
// time between faults.
std::string draw_faults(sim::Rng& rng, const std::vector<std::string>& kinds, sim::DurationNs lo, sim::DurationNs hi,
                        faults::RandomFaultOptions& n) {
  for (const char* k : kSwarmKinds) set_fault_kind(n, k, false);
  std::string drew;
  bool any = false;
  for (const std::string& k : kinds) {
    const bool on = rng.bernoulli(0.6);
    drew += (drew.empty() ? "" : ", ") + k + (on ? " on" : " off");
    any = any || on;
    if (on) set_fault_kind(n, k, true);
  }
  if (!any) {  // a swarm that draws nothing still tests something: the first kind listed
    drew += "; none drawn, so " + kinds.front() + " on";
    set_fault_kind(n, kinds.front(), true);
  }
  n.mean_interval = lo + static_cast<sim::DurationNs>(rng.uniform_u64(static_cast<uint64_t>(hi - lo) + 1));
  return drew + "; mean interval " + sim::format_duration(n.mean_interval);
}

// Raft's timing and the member's snapshot interval. Elections with a short timeout on a slow
// network, or without pre-vote, are messier (two candidates in a term); a short snapshot
// interval sends snapshots to every follower that falls behind.
std::string draw_timing(sim::Rng& rng, ScenarioConfig& c) {
  constexpr std::array<sim::DurationNs, 4> kTicks = {sim::milliseconds(10), sim::milliseconds(50),
                                                     sim::milliseconds(100), sim::milliseconds(200)};
  // etcd refuses an election timeout under 5 heartbeat intervals (embed.Config.Validate).
  constexpr std::array<int, 4> kElectionTicks = {5, 7, 10, 20};
  constexpr std::array<uint64_t, 4> kSnapshotEvery = {20, 100, 500, 5000};
  c.tick = kTicks[rng.uniform_u64(kTicks.size())];
  c.raft.heartbeat_tick = 1;
  c.raft.election_tick = kElectionTicks[rng.uniform_u64(kElectionTicks.size())];
  c.raft.pre_vote = rng.bernoulli(0.7);
  c.snapshot_every = kSnapshotEvery[rng.uniform_u64(kSnapshotEvery.size())];
  DST_ASSERT(c.tick * c.raft.election_tick <= limits::kScenarioElectionTimeoutNsMax);
  std::string text = "tick " + sim::format_duration(c.tick) + ", election " + std::to_string(c.raft.election_tick) +
                     " ticks, pre-vote " + (c.raft.pre_vote ? "on" : "off") + ", snapshot every " +
                     std::to_string(c.snapshot_every);
  // On some seeds an append carries one entry and few are in flight, so a leader's log reaches
  // each follower one round trip at a time. That holds open the windows of Raft Figure 8 (a new
  // leader's old-term entries replicated before its own), which whole-tail appends close at once.
  if (rng.bernoulli(0.3)) {
    c.raft.max_size_per_msg = 1;
    c.raft.max_inflight_msgs = 1 + rng.uniform_u64(4);
    text += ", appends of one entry, " + std::to_string(c.raft.max_inflight_msgs) + " in flight";
  }
  // Recovery takes elections, and an election can fail several times in a row (a member whose log
  // is behind times out first, without pre-vote, and resets everyone's timer): the liveness bound
  // is at least 8 election timeouts (swarm_kube.lua seed 168 needed 22.7 s at 4 s timeouts).
  c.run.recovery_bound = std::clamp<sim::DurationNs>(8 * c.tick * c.raft.election_tick, c.run.recovery_bound,
                                                     limits::kScenarioRecoveryBoundNsMax);
  return text;
}

// The workload around its mix: key space, value sizes, rate, compaction interval.
std::string draw_workload(sim::Rng& rng, client::WorkloadOptions& w) {
  constexpr std::array<size_t, 4> kKeys = {3, 10, 50, 300};
  constexpr std::array<size_t, 4> kValueBytes = {0, 0, 300, 5000};
  constexpr std::array<double, 3> kRateFactor = {0.5, 1, 2};
  constexpr std::array<sim::DurationNs, 4> kCompaction = {0, sim::milliseconds(500), sim::seconds(2), sim::seconds(5)};
  w.keys = kKeys[rng.uniform_u64(kKeys.size())];
  w.value_bytes = kValueBytes[rng.uniform_u64(kValueBytes.size())];
  w.rate = std::clamp(w.rate * kRateFactor[rng.uniform_u64(kRateFactor.size())], 0.1, 10000.0);
  w.compaction_every = kCompaction[rng.uniform_u64(kCompaction.size())];
  // Compacting at the newest revision read (keep 0) cancels every watcher behind it and often
  // removes history right up to a deletion, the edge etcd #17780 and #18089 were found at.
  constexpr std::array<int64_t, 4> kCompactionKeep = {0, 1, 20, 200};
  w.compaction_keep = kCompactionKeep[rng.uniform_u64(kCompactionKeep.size())];
  std::string text = std::to_string(w.keys) + " keys, values of " + std::to_string(w.value_bytes) + " bytes, " +
                     number_text(w.rate) + " ops/s per client, compaction " +
                     (w.compaction_every == 0 ? std::string("never")
                                              : "every " + sim::format_duration(w.compaction_every) + " keeping " +
                                                    std::to_string(w.compaction_keep) + " revisions");
  // Lease TTLs near the member's minimum expire between keep-alives and within a leader change.
  constexpr std::array<std::pair<int64_t, int64_t>, 3> kLeaseTtl = {{{1, 3}, {2, 8}, {10, 29}}};
  std::tie(w.kv_mix.lease_ttl_min, w.kv_mix.lease_ttl_max) = kLeaseTtl[rng.uniform_u64(kLeaseTtl.size())];
  if (w.profile == client::Profile::kEtcdKv)
    text += ", lease TTLs " + std::to_string(w.kv_mix.lease_ttl_min) + ".." + std::to_string(w.kv_mix.lease_ttl_max) + " s";
  // Half the clients keep their leases alive as clientv3 does, unless the draw says otherwise.
  if (w.kv_mix.keep_alive_stream == 0) w.kv_mix.keep_alive_stream = 0.5;
  if (w.profile == client::Profile::kEtcdKv) text += "; " + client::draw_kv_mix(rng, w.kv_mix);
  text += "; " + client::draw_watch_mix(rng, w.watch_mix);
  return text;
}

// The Kubernetes layer: apiservers, controllers, the watch cache's size (a small one sends slow
// watchers 410 Gone and re-lists), the informers' resync and the controllers' write rate.
std::string draw_kube(sim::Rng& rng, kube::KubeWorldOptions& k) {
  constexpr std::array<size_t, 3> kApiservers = {1, 2, 3};
  constexpr std::array<size_t, 4> kControllers = {1, 2, 3, 5};
  constexpr std::array<size_t, 4> kCache = {8, 40, 200, 1000};
  constexpr std::array<sim::DurationNs, 3> kResync = {0, sim::seconds(1), sim::seconds(10)};
  constexpr std::array<double, 3> kWriteFactor = {0.5, 1, 2};
  k.apiservers = kApiservers[rng.uniform_u64(kApiservers.size())];
  k.controllers = kControllers[rng.uniform_u64(kControllers.size())];
  k.cache_capacity = kCache[rng.uniform_u64(kCache.size())];
  k.resync_every = kResync[rng.uniform_u64(kResync.size())];
  k.writes_per_second = std::clamp(k.writes_per_second * kWriteFactor[rng.uniform_u64(kWriteFactor.size())], 0.0, 1000.0);
  return "kube: " + std::to_string(k.apiservers) + " apiservers, " + std::to_string(k.controllers) + " controllers, cache of " +
         std::to_string(k.cache_capacity) + " events, resync " +
         (k.resync_every == 0 ? std::string("never") : "every " + sim::format_duration(k.resync_every)) + ", " +
         number_text(k.writes_per_second) + " writes/s per controller";
}

}  // namespace

int l_swarm(lua_State* L) {
  configure_once(L, "swarm{}");
  check_arg_count(L, 1, "swarm{}");
  Fields f(L, 1, "swarm{}", {"faults", "interval", "nodes", "timing", "workload", "kube"});
  ScenarioConfig& c = self(L).mutable_config();
  // Each part from its own stream (swarm_salts.h), so that one part can be redrawn alone.
  sim::Rng faults_rng = self(L).swarm_rng(0), nodes_rng = self(L).swarm_rng(1), timing_rng = self(L).swarm_rng(2),
           workload_rng = self(L).swarm_rng(3), kube_rng = self(L).swarm_rng(4);
  const std::vector<std::string> kinds = swarm_kinds(L, f, c.kube.has_value());
  const auto [lo, hi] = swarm_interval(L, f);
  const std::vector<size_t> sizes = swarm_sizes(L, f, c);
  const bool timing = f.boolean("timing").value_or(true);
  const bool workload = f.boolean("workload").value_or(true);
  const bool kube = f.boolean("kube").value_or(c.kube.has_value());
  if (kube && !c.kube) fail(L, "swarm{}: field 'kube': the scenario has no kube{} to draw; call kube{} before swarm{}");
  c.run.faults = true;
  c.swarm_log.push_back("swarm drew: " + draw_faults(faults_rng, kinds, lo, hi, c.run.nemesis));
  if (!sizes.empty()) {
    c.run.nodes = sizes[nodes_rng.uniform_u64(sizes.size())];
    c.swarm_log.push_back("swarm drew: " + std::to_string(c.run.nodes) + " members");
  }
  if (timing) c.swarm_log.push_back("swarm drew: " + draw_timing(timing_rng, c));
  if (workload) c.swarm_log.push_back("swarm drew: " + draw_workload(workload_rng, c.run.workload));
  if (kube) c.swarm_log.push_back("swarm drew: " + draw_kube(kube_rng, *c.kube));
  return 0;
}

}  // namespace dst::scenarios::api
