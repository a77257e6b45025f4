-- Shrunk by: dst shrink scenarios/compaction_watch.lua --seed 10004 -- --bug watch-drop-at-compaction
-- The check that fails: watch: reliable: watch 11: 1 matching event(s) never delivered: the watch received revision 830 but never this earlier matching event
-- reduction:
--   fault steps 14 -> 1
--   virtual time 20.000s -> 5.800s
--   operations 4620 -> 290
--   nodes 3
--   clients 6
--   watchers 8 -> 4
--   keys 10 -> 1
--   rate 80 -> 40
--   request kinds 14 -> 2
-- search: 82 runs (89 made with --jobs 2), 13.0 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/compaction_watch.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/compaction_watch.lua", seed="10004", bug="watch-drop-at-compaction"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{watchers=4, keys=1, rate=40, run_for=5800000000, without={"get", "stale_get", "list", "scan", "lease_put", "lease_grant", "lease_revoke", "keep_alive", "lease_ttl", "txn", "cas_mod", "cas_value"}}
step{at=1140000000, kind="isolate", node=2}  -- t=1.140s isolate n2
