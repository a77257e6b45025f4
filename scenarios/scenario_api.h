// The Lua functions of the scenario API, registered by register_api (scenario_api.cc) and
// defined in scenario_config_api.cc and scenario_swarm_api.cc (load time), scenario_fault_api.cc (run time) and
// scenario_kube_api.cc (the Kubernetes layer).
#pragma once

#include <cstdint>

struct lua_State;

namespace dst::scenarios::api {

// Load-time configuration: each function once, cluster{} and workload{} before swarm{}.
void configure_once(lua_State* L, const char* fn);

int l_uniform(lua_State* L);
int l_normal(lua_State* L);
int l_exponential(lua_State* L);
int l_lognormal(lua_State* L);
int l_pareto(lua_State* L);
int l_cluster(lua_State* L);
int l_workload(lua_State* L);
int l_run_for(lua_State* L);
int l_check(lua_State* L);
int l_must_reach(lua_State* L);
int l_swarm(lua_State* L);
int l_at(lua_State* L);
int l_after(lua_State* L);
int l_every(lua_State* L);
int l_leader(lua_State* L);
int l_follower(lua_State* L);
int l_random_node(lua_State* L);
int l_nodes(lua_State* L);
int l_now(lua_State* L);
int l_isolate(lua_State* L);
int l_one_way_shape(lua_State* L);
int l_partition(lua_State* L);
int l_heal(lua_State* L);
int l_crash(lua_State* L);
int l_kill(lua_State* L);
int l_restart(lua_State* L);
int l_pause(lua_State* L);
int l_resume(lua_State* L);
int l_slow_fsync(lua_State* L);
int l_watch_stall(lua_State* L);
int l_watch_rewind(lua_State* L);
int l_client_stall(lua_State* L);
int l_normal_fsync(lua_State* L);
int l_fsync_error(lua_State* L);
int l_disk_full(lua_State* L);
int l_bitflip(lua_State* L);
int l_clock_skew(lua_State* L);
int l_clock_jump(lua_State* L);
int l_clock_drift(lua_State* L);
int l_drop(lua_State* L);
int l_delay(lua_State* L);
int l_failpoint(lua_State* L);
int l_compact(lua_State* L);
int l_defrag(lua_State* L);
int l_alarm_disarm(lua_State* L);
int l_member_add(lua_State* L);
int l_snapshot_save(lua_State* L);
int l_disaster(lua_State* L);
int l_restore(lua_State* L);
int l_member_remove(lua_State* L);
int l_move_leader(lua_State* L);
// scenario_kube_api.cc
int l_kube(lua_State* L);
int l_kube_crash(lua_State* L);
int l_kube_restart(lua_State* L);
int l_kube_cut(lua_State* L);
int l_kube_reconnect(lua_State* L);
int l_kube_pause(lua_State* L);
int l_kube_resume(lua_State* L);
int l_apiservers(lua_State* L);
int l_random_apiserver(lua_State* L);
int l_random_controller(lua_State* L);
int l_controllers(lua_State* L);
int shape_table(lua_State* L, const char* shape);
int l_us(lua_State* L);
int l_ms(lua_State* L);
int l_s(lua_State* L);

}  // namespace dst::scenarios::api
