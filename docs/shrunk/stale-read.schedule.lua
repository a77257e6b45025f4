-- Shrunk by: dst shrink scenarios/paused_leader.lua --seed 10031 -- --bug stale-read
-- The check that fails: linearizability: stale-read: ordered at revision 818, but an operation at revision 819 completed before it was sent
-- reduction: fault steps 6 -> 1 in 6 runs (5.5 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/paused_leader.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/paused_leader.lua", seed="10031", bug="stale-read"}
step{at=16240000000, kind="pause", origin="script", call=5, node=3}  -- t=16.240s pause n3
