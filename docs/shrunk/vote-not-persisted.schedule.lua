-- Shrunk by: dst shrink scenarios/fault_points.lua --seed 10001 -- --bug vote-not-persisted
-- The check that fails: raft-invariants: Vote Safety: node 1 voted for 1 in term 5 but came back from a crash at term 4 with vote 0: the vote was not durable, so it may vote again in term 5
-- reduction: fault steps 54 -> 2 in 21 runs (11.2 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/fault_points.lua (2 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/fault_points.lua", seed="10001", bug="vote-not-persisted"}
step{at=5230000000, kind="failpoint", origin="script", call=7, node=1, point="after-vote", action="power-loss", delay=0, skip=0, times=1}  -- t=5.230s failpoint n1 after-vote power-loss skip 0
step{at=11230000000, kind="failpoint", origin="script", call=25, node=2, point="after-apply", action="crash", delay=0, skip=0, times=1}  -- t=11.230s failpoint n2 after-apply crash skip 0
