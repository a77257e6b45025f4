-- Shrunk by: dst shrink scenarios/lost_unsynced_writes.lua --seed 10001 -- --bug ack-before-fsync
-- The check that fails: raft-invariants: State Machine Safety: node 1 overwrote 1 committed entries in its log (or committed past its end)
-- reduction: fault steps 25 -> 1 in 7 runs (5.9 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/lost_unsynced_writes.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/lost_unsynced_writes.lua", seed="10001", bug="ack-before-fsync"}
step{at=5740000000, kind="kill", origin="script", call=5, node=1, lose_unsynced=true, torn=false}  -- t=5.740s kill n1 lose_unsynced
