-- Shrunk by: dst shrink scenarios/fault_points.lua --seed 10001 -- --bug vote-not-persisted
-- The check that fails: raft-invariants: Vote Safety: node 1 voted for 1 in term 5 but came back from a crash at term 4 with vote 0: the vote was not durable, so it may vote again in term 5
-- reduction:
--   fault steps 54 -> 2
--   virtual time 20.000s -> 1.900s
--   operations 1679 -> 4
--   nodes 3
--   clients 4 -> 0
--   watchers 2 -> 0
--   keys 10 -> 1
--   rate 60 -> 0.1171875
--   request kinds 14 -> 1
-- search: 67 runs (88 made with --jobs 2), 7.7 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/fault_points.lua (2 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/fault_points.lua", seed="10001", bug="vote-not-persisted"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{clients=0, watchers=0, keys=1, rate=0.1171875, run_for=1900000000, without={"stale_get", "list", "scan", "put", "del", "lease_put", "lease_grant", "lease_revoke", "keep_alive", "lease_ttl", "txn", "cas_mod", "cas_value"}}
step{at=1412000000, kind="failpoint", node=1, point="after-vote", action="power-loss", delay=0, skip=0, times=1}  -- t=1.412s failpoint n1 after-vote power-loss skip 0
step{at=1424000000, kind="failpoint", node=2, point="after-apply", action="crash", delay=0, skip=0, times=1}  -- t=1.424s failpoint n2 after-apply crash skip 0
