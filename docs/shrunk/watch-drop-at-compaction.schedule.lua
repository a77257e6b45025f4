-- Shrunk by: dst shrink scenarios/compaction_watch.lua --seed 10004 -- --bug watch-drop-at-compaction
-- The check that fails: watch: reliable: watch 11: 1 matching event(s) never delivered: the watch received revision 830 but never this earlier matching event
-- reduction: fault steps 14 -> 1 in 7 runs (10.7 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/compaction_watch.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/compaction_watch.lua", seed="10004", bug="watch-drop-at-compaction"}
step{at=6040000000, kind="isolate", origin="script", call=1, node=2}  -- t=6.040s isolate n2
