-- Shrunk by: dst shrink scenarios/crash_restart_storm.lua --seed 10004 -- --bug progress-notify-ahead
-- The check that fails: watch: bookmarkable: watch 0: event at revision 304 after a progress notification at revision 305
-- reduction:
--   fault steps 32 -> 1
--   virtual time 20.000s -> 1.000s
--   operations 1173 -> 13
--   nodes 3 -> 1
--   clients 4 -> 1
--   watchers 2
--   keys 10 -> 1
--   rate 50 -> 6.25
--   request kinds 14 -> 1
-- search: 56 runs (66 made with --jobs 2), 6.8 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/crash_restart_storm.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/crash_restart_storm.lua", seed="10004", bug="progress-notify-ahead"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{nodes=1, clients=1, keys=1, rate=6.25, run_for=1000000000, without={"get", "stale_get", "list", "scan", "put", "del", "lease_put", "lease_grant", "lease_revoke", "keep_alive", "lease_ttl", "cas_mod", "cas_value"}}
step{at=1928000000, kind="crash", node=1}  -- t=1.928s crash n1

-- The scenario as it ran, embedded: `dst run --schedule THIS_FILE` runs this text, not the
-- file replay{} names (which may have changed or be elsewhere).
scenario_source [[
-- Crash-restart storm: members (the leader a third of the time) crash and come back every second
-- or so; at most one is down at a time, so the cluster keeps a quorum. Restarts replay the WAL
-- and snapshots; acknowledged writes must survive every one.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=50, watchers=2}
run_for(s(20))

every(ms(1200), function()
  local n = random_node()
  if math.random(1, 3) == 1 then n = leader() or n end
  crash(n)
  after(ms(math.random(200, 800)), function() restart(n) end)
end)
]]
