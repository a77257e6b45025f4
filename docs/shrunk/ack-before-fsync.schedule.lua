-- Shrunk by: dst shrink scenarios/lost_unsynced_writes.lua --seed 10001 -- --bug ack-before-fsync
-- The check that fails: raft-invariants: State Machine Safety: node 1 overwrote 1 committed entries in its log (or committed past its end)
-- reduction:
--   fault steps 25 -> 1
--   virtual time 20.000s -> 1.000s
--   operations 1229 -> 17
--   nodes 3 -> 1
--   clients 4 -> 1
--   watchers 2 -> 0
--   keys 10 -> 1
--   rate 60 -> 7.5
--   request kinds 14 -> 1
-- search: 37 runs (53 made with --jobs 2), 5.5 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/lost_unsynced_writes.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/lost_unsynced_writes.lua", seed="10001", bug="ack-before-fsync"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{nodes=1, clients=1, watchers=0, keys=1, rate=7.5, run_for=1000000000, without={"get", "stale_get", "list", "scan", "put", "del", "lease_put", "lease_revoke", "keep_alive", "lease_ttl", "txn", "cas_mod", "cas_value"}}
step{at=2126000000, kind="kill", node=1, lose_unsynced=true, torn=false}  -- t=2.126s kill n1 lose_unsynced
