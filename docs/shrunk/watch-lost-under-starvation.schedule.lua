-- Shrunk by: dst shrink scenarios/swarm.lua --seed 10072 -- --bug watch-lost-under-starvation
-- The check that fails: watch: reliable: watch 0: 2 matching event(s) never delivered: the watch received revision 319 but never this earlier matching event
-- reduction:
--   fault steps 9 -> 0
--   virtual time 20.000s -> 1.100s
--   operations 3636 -> 245
--   nodes 5 -> 1
--   clients 4
--   watchers 3 -> 1
--   keys 10 -> 1
--   rate 80
--   request kinds 12 -> 1
-- search: 38 runs (42 made with --jobs 2), 10.4 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/swarm.lua (0 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/swarm.lua", seed="10072", bug="watch-lost-under-starvation"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{nodes=1, watchers=1, keys=1, run_for=1100000000, without={"get", "list", "scan", "put", "lease_put", "lease_grant", "lease_revoke", "keep_alive", "lease_ttl", "cas_mod", "cas_value"}}

-- The scenario as it ran, embedded: `dst run --schedule THIS_FILE` runs this text, not the
-- file replay{} names (which may have changed or be elsewhere).
scenario_source [[
-- Swarm: the seed draws the run (FoundationDB's swarm testing): which kinds of fault run and how
-- often (clock steps and drift among them), the cluster's size and Raft timing, and the workload's mix, keys, values, rate and
-- watchers; a sweep over seeds covers many different corners. The draw is printed with the seed.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=80, watchers=3}
run_for(s(20))
swarm{faults={"partition", "one_way", "crash", "slow_fsync", "fsync_error", "loss", "pause", "failpoint", "clock", "watch", "client", "corrupt"},
      interval={ms(300), s(2)}, nodes={1, 3, 5}}
]]
