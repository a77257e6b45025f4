// The scenario functions of disaster recovery (docs/scenarios.md): snapshot_save(n, name),
// disaster(), restore{snapshot=, bump=}. They act like the fault functions (only while the run
// goes, one action charged) and show on the report's timeline as the nemesis's instants.
#include <lua.hpp>

#include "base/limits.h"
#include "scenarios/scenario_api.h"
#include "scenarios/scenario_args.h"

namespace dst::scenarios::api {

// snapshot_save(n, name): etcdctl snapshot save from member n, kept as `name`.
int l_snapshot_save(lua_State* L) {
  const char* fn = "snapshot_save()";
  require_running(L, fn);
  check_arg_count(L, 2, fn);
  charge_action(L);
  check(L, self(L).check_request_room(fn));
  const size_t n = node_arg(L, 1, fn);
  if (lua_type(L, 2) != LUA_TSTRING) luaL_error(L, "%s: expected a snapshot name (a string) as argument 2", fn);
  const std::string name = lua_tostring(L, 2);
  check(L, self(L).snapshot_save(n, name));
  self(L).nemesis()->record_instant("snapshot_save", "n" + std::to_string(n) + " " + name);
  return 0;
}

// disaster(): every member loses its disk at once; nothing runs until restore{}.
int l_disaster(lua_State* L) {
  const char* fn = "disaster()";
  require_running(L, fn);
  check_arg_count(L, 0, fn);
  charge_action(L);
  check(L, self(L).disaster());
  return 0;
}

// restore{snapshot=NAME, bump=N}: a new cluster from the snapshot (default: the newest saved);
// bump > 0 moves the revision ahead and marks it compacted (etcd 3.5's --bump-revision with
// --mark-compacted), so watchers of the old cluster are told "compacted".
int l_restore(lua_State* L) {
  const char* fn = "restore{}";
  require_running(L, fn);
  check_arg_count(L, 1, fn);
  charge_action(L);
  Fields f(L, 1, fn, {"snapshot", "bump"});
  const std::string name = f.string("snapshot", limits::kScenarioSnapshotNameBytesMax).value_or("");
  const int64_t bump = f.integer("bump", 0, limits::kRestoreBumpRevisionMax).value_or(0);
  check(L, self(L).restore(name, bump));
  self(L).nemesis()->record_instant("restore", (name.empty() ? std::string("newest") : name) + " bump " + std::to_string(bump));
  return 0;
}

}  // namespace dst::scenarios::api
