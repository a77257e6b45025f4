-- Shrunk by: dst shrink scenarios/crash_restart_storm.lua --seed 10004 -- --bug progress-notify-ahead
-- The check that fails: watch: bookmarkable: watch 0: event at revision 304 after a progress notification at revision 305
-- reduction: fault steps 32 -> 1 in 7 runs (6.6 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/crash_restart_storm.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/crash_restart_storm.lua", seed="10004", bug="progress-notify-ahead"}
step{at=7040000000, kind="crash", origin="script", call=9, node=1}  -- t=7.040s crash n1
