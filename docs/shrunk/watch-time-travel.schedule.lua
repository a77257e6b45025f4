-- Shrunk by: dst shrink scenarios/flapping_partitions.lua --seed 10001 -- --bug watch-time-travel
-- The check that fails: watch: compaction: watch 2: canceled by compaction at 328 though the watch needed revision 443, which that compaction keeps
-- reduction: fault steps 33 -> 1 in 7 runs (7.1 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/flapping_partitions.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/flapping_partitions.lua", seed="10001", bug="watch-time-travel"}
step{at=6928000000, kind="partition", origin="script", call=10, groups={{3, 1}}}  -- t=6.928s partition n3,n1
