// The scenario functions of the Kubernetes layer (issue #8; docs/scenarios.md): kube{} at load
// time puts apiservers and controllers on top of the cluster; the kube_* fault functions act on
// them while the scenario runs.
#include <lua.hpp>

#include "kube/kube_world.h"
#include "scenarios/scenario_api.h"
#include "scenarios/scenario_args.h"

namespace dst::scenarios::api {

int l_kube(lua_State* L) {
  require_loading(L, "kube{}");
  check_arg_count(L, 1, "kube{}");
  {
    auto& at = self(L).mutable_config().configured_at;
    if (auto it = at.find("kube{}"); it != at.end()) fail(L, "kube{}: already called at " + it->second + "; describe it in one call");
    at.emplace("kube{}", where(L));
  }
  Fields f(L, 1, "kube{}", {"apiservers", "controllers", "prefix", "cache", "writes", "keys", "resync", "informers"});
  kube::KubeWorldOptions k;
  if (auto n = f.integer("apiservers", 1, kube::kKubeProcessesMax)) k.apiservers = static_cast<size_t>(*n);
  if (auto n = f.integer("controllers", 0, kube::kKubeProcessesMax)) k.controllers = static_cast<size_t>(*n);
  if (auto n = f.integer("informers", 0, kube::kKubeInformersMax)) k.informers = static_cast<size_t>(*n);
  if (auto p = f.string("prefix")) {
    if (p->size() < 2 || p->back() != '/') luaL_error(L, "kube{}: field 'prefix': expected a key prefix ending in '/'");
    k.prefix = *p;
  }
  if (auto n = f.integer("cache", 1, 1'000'000)) k.cache_capacity = static_cast<size_t>(*n);
  if (auto r = f.number("writes", 0, 1000)) k.writes_per_second = *r;
  if (auto n = f.integer("keys", 1, 100'000)) k.keys = static_cast<size_t>(*n);
  if (auto d = f.duration("resync")) {
    if (*d != 0 && *d < sim::seconds(1))
      fail(L, "kube{}: field 'resync' must be s(0) (never) or at least s(1) (client-go's shortest resync period)");
    k.resync_every = *d;
  }
  self(L).mutable_config().kube = k;
  return 0;
}

namespace {

kube::KubeWorld& kube_world(lua_State* L, const char* fn) {
  require_running(L, fn);
  kube::KubeWorld* k = self(L).kube();
  if (k == nullptr) luaL_error(L, "%s: the scenario has no kube{} world", fn);
  return *k;
}

size_t number_arg(lua_State* L, const char* fn) {
  check_arg_count(L, 1, fn);
  charge_action(L);
  return static_cast<size_t>(check_whole(L, 1, fn, "the number (1-based)", 1, static_cast<int64_t>(kube::kKubeProcessesMax)));
}

// The kube fault functions: the step goes the way of every fault (Scenario::apply_fault).
void apply_kube(lua_State* L, faults::FaultKind kind, size_t number) {
  faults::FaultStep step{.kind = kind};
  step.node = number;
  check(L, self(L).apply_fault(std::move(step)));
}

}  // namespace

int l_kube_crash(lua_State* L) {
  kube_world(L, "kube_crash()");
  apply_kube(L, faults::FaultKind::kApiserverCrash, number_arg(L, "kube_crash()"));
  return 0;
}

int l_kube_restart(lua_State* L) {
  kube_world(L, "kube_restart()");
  apply_kube(L, faults::FaultKind::kApiserverRestart, number_arg(L, "kube_restart()"));
  return 0;
}

int l_kube_cut(lua_State* L) {
  kube_world(L, "kube_cut()");
  apply_kube(L, faults::FaultKind::kApiserverCut, number_arg(L, "kube_cut()"));
  return 0;
}

int l_kube_reconnect(lua_State* L) {
  kube_world(L, "kube_reconnect()");
  apply_kube(L, faults::FaultKind::kApiserverReconnect, number_arg(L, "kube_reconnect()"));
  return 0;
}

int l_kube_pause(lua_State* L) {
  kube_world(L, "kube_pause()");
  apply_kube(L, faults::FaultKind::kControllerPause, number_arg(L, "kube_pause()"));
  return 0;
}

int l_kube_resume(lua_State* L) {
  kube_world(L, "kube_resume()");
  apply_kube(L, faults::FaultKind::kControllerResume, number_arg(L, "kube_resume()"));
  return 0;
}

// random_apiserver() / random_controller(): a number drawn from the scenario's random stream.
int l_random_apiserver(lua_State* L) {
  kube::KubeWorld& k = kube_world(L, "random_apiserver()");
  check_arg_count(L, 0, "random_apiserver()");
  lua_pushinteger(L, static_cast<lua_Integer>(1 + self(L).rng().uniform_u64(k.apiservers())));
  return 1;
}

int l_random_controller(lua_State* L) {
  kube::KubeWorld& k = kube_world(L, "random_controller()");
  check_arg_count(L, 0, "random_controller()");
  if (k.controllers() == 0) luaL_error(L, "random_controller(): the kube{} world has no controllers");
  lua_pushinteger(L, static_cast<lua_Integer>(1 + self(L).rng().uniform_u64(k.controllers())));
  return 1;
}

int l_apiservers(lua_State* L) {
  const auto& k = self(L).mutable_config().kube;
  lua_pushinteger(L, static_cast<lua_Integer>(k ? k->apiservers : 0));
  return 1;
}

int l_controllers(lua_State* L) {
  const auto& k = self(L).mutable_config().kube;
  lua_pushinteger(L, static_cast<lua_Integer>(k ? k->controllers : 0));
  return 1;
}

}  // namespace dst::scenarios::api
