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
