-- Shrunk by: dst shrink scenarios/crash_restart_storm.lua --seed 10001 -- --bug applied-index-not-atomic
-- The check that fails: member-agreement: n2 diverged from n1 at applied index 483
-- reduction: fault steps 32 -> 2 in 7 runs (6.8 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/crash_restart_storm.lua (2 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/crash_restart_storm.lua", seed="10001", bug="applied-index-not-atomic"}
step{at=2440000000, kind="crash", origin="script", call=1, node=2}  -- t=2.440s crash n2
step{at=2793000000, kind="restart", origin="script", call=2, node=2}  -- t=2.793s restart n2
