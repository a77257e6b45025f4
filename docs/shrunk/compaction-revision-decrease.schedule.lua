-- Shrunk by: dst shrink scenarios/fault_points.lua --seed 10003 -- --bug compaction-revision-decrease
-- The check that fails: member-agreement: n3 diverged from n1 at applied index 623
-- reduction:
--   fault steps 54 -> 3
--   virtual time 20.000s -> 4.600s
--   operations 1199 -> 154
--   nodes 3
--   clients 4
--   watchers 2
--   keys 10 -> 1
--   rate 60 -> 15
--   request kinds 14 -> 2
-- search: 161 runs (185 made with --jobs 2), 14.9 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/fault_points.lua (3 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/fault_points.lua", seed="10003", bug="compaction-revision-decrease"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{keys=1, rate=15, run_for=4600000000, without={"lease_grant", "lease_revoke", "keep_alive", "lease_ttl", "txn", "cas_mod", "cas_value", "get", "stale_get", "list", "scan", "lease_put"}}
step{at=3603000000, kind="failpoint", node=3, point="before-wal-save", action="power-loss", delay=0, skip=0, times=1}  -- t=3.603s failpoint n3 before-wal-save power-loss skip 0
step{at=3912000000, kind="failpoint", node=3, point="after-compaction-batch", action="crash", delay=0, skip=0, times=1}  -- t=3.912s failpoint n3 after-compaction-batch crash skip 0
step{at=3913000000, kind="restart", node=3}  -- t=3.913s restart n3
