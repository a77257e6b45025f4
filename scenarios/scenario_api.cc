// The functions a scenario script calls (docs/scenarios.md is their reference). Configuration
// functions run at load time only; fault functions and selectors only inside scheduled
// functions, when the world exists. Every argument is checked, and an error names the function,
// the field and what was expected; luaL_error prefixes the script's file and line.
#include <lua.hpp>

#include "scenarios/scenario.h"
#include "scenarios/scenario_api.h"

namespace dst::scenarios {

void register_api(lua_State* L, Scenario* scenario) {
  // The functions registered below. In this function only: in a unity build (ci/build.sh) a
  // using-directive at namespace scope would reach the next files of the batch too.
  using namespace api;
  const luaL_Reg fns[] = {
      {"ms", l_ms},             {"s", l_s},                 {"us", l_us},
      {"uniform", l_uniform},   {"normal", l_normal},       {"exponential", l_exponential},
      {"lognormal", l_lognormal}, {"pareto", l_pareto},
      {"cluster", l_cluster},   {"workload", l_workload},   {"run_for", l_run_for},
      {"check", l_check},       {"must_reach", l_must_reach}, {"swarm", l_swarm},     {"at", l_at},
      {"after", l_after},       {"every", l_every},         {"leader", l_leader},
      {"follower", l_follower}, {"random_node", l_random_node}, {"nodes", l_nodes},
      {"now", l_now},           {"isolate", l_isolate},     {"one_way", l_one_way_shape},
      {"partition", l_partition}, {"heal", l_heal},         {"crash", l_crash},
      {"kill", l_kill},         {"restart", l_restart},     {"pause", l_pause},
      {"resume", l_resume},     {"slow_fsync", l_slow_fsync}, {"normal_fsync", l_normal_fsync},
      {"fsync_error", l_fsync_error}, {"disk_full", l_disk_full}, {"bitflip", l_bitflip},
      {"clock_skew", l_clock_skew}, {"clock_jump", l_clock_jump}, {"clock_drift", l_clock_drift},
      {"drop", l_drop},         {"delay", l_delay},         {"failpoint", l_failpoint},
      {"compact", l_compact},   {"defrag", l_defrag},       {"member_add", l_member_add},
      {"member_remove", l_member_remove}, {"move_leader", l_move_leader}, {"alarm_disarm", l_alarm_disarm},
      {"snapshot_save", l_snapshot_save}, {"disaster", l_disaster}, {"restore", l_restore},
      {"kube", l_kube},         {"kube_crash", l_kube_crash}, {"kube_restart", l_kube_restart},
      {"kube_cut", l_kube_cut}, {"kube_reconnect", l_kube_reconnect}, {"kube_pause", l_kube_pause},
      {"kube_resume", l_kube_resume}, {"apiservers", l_apiservers}, {"controllers", l_controllers},
      {"random_apiserver", l_random_apiserver}, {"random_controller", l_random_controller},
      {"watch_stall", l_watch_stall}, {"watch_rewind", l_watch_rewind},
      {"client_stall", l_client_stall},
  };
  for (const luaL_Reg& r : fns) {
    lua_pushlightuserdata(L, scenario);
    lua_pushcclosure(L, r.func, 1);
    lua_setglobal(L, r.name);
  }
  for (const char* shape : {"majorities_ring", "minority_third", "bridge"}) {
    shape_table(L, shape);
    lua_setglobal(L, shape);
  }
}

}  // namespace dst::scenarios
