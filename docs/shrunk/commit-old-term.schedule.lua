-- Shrunk by: dst shrink scenarios/swarm.lua --seed 10035 -- --bug commit-old-term
-- The check that fails: raft-invariants: Commit Rule: leader 2 of term 4 committed up to index 172, an entry of term 3, by counting its replicas (Raft §5.4.2 / Figure 8: only an entry of the leader's own term commits that way)
-- reduction:
--   fault steps 22 -> 1
--   virtual time 20.000s -> 5.900s
--   operations 388 -> 709
--   nodes 3
--   clients 4
--   watchers 3 -> 0
--   keys 50 -> 1
--   rate 80
--   request kinds 11 -> 2
-- search: 102 runs (116 made with --jobs 2), 11.3 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/swarm.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/swarm.lua", seed="10035", bug="commit-old-term"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{watchers=0, keys=1, run_for=5900000000, without={"get", "list", "put", "lease_put", "lease_grant", "lease_revoke", "cas_mod", "cas_value", "keep_alive"}}
step{at=4643000000, kind="crash", origin="random", node=1}  -- t=4.643s crash n1

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
