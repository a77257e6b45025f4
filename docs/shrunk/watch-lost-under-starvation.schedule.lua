-- Shrunk by: dst shrink scenarios/swarm.lua --seed 10072 -- --bug watch-lost-under-starvation
-- The check that fails: watch: reliable: watch 0: 2 matching event(s) never delivered: the watch received revision 319 but never this earlier matching event
-- reduction: fault steps 9 -> 0 in 1 runs (9.1 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/swarm.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/swarm.lua", seed="10072", bug="watch-lost-under-starvation"}
step{at=23274029011, kind="stop", origin="random"}  -- t=23.274s stop
