-- Shrunk by: dst shrink scenarios/fault_points.lua --seed 10003 -- --bug compaction-revision-decrease
-- The check that fails: member-agreement: n3 diverged from n1 at applied index 623
-- reduction: fault steps 54 -> 6 in 35 runs (17.4 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/fault_points.lua (6 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/fault_points.lua", seed="10003", bug="compaction-revision-decrease"}
step{at=3340000000, kind="failpoint", origin="script", call=1, node=3, point="before-wal-save", action="power-loss", delay=0, skip=0, times=1}  -- t=3.340s failpoint n3 before-wal-save power-loss skip 0
step{at=4340000000, kind="failpoint", origin="script", call=2, node=3, point="after-compaction-batch", action="crash", delay=0, skip=0, times=1}  -- t=4.340s failpoint n3 after-compaction-batch crash skip 0
step{at=6840000000, kind="restart", origin="script", call=11, node=3}  -- t=6.840s restart n3
step{at=7040000000, kind="restart", origin="script", call=12, node=3}  -- t=7.040s restart n3
step{at=7340000000, kind="failpoint", origin="script", call=13, node=3, point="after-wal-save", action="crash", delay=0, skip=0, times=1}  -- t=7.340s failpoint n3 after-wal-save crash skip 0
step{at=8340000000, kind="failpoint", origin="script", call=14, node=2, point="after-compaction-batch", action="power-loss", delay=0, skip=0, times=1}  -- t=8.340s failpoint n2 after-compaction-batch power-loss skip 0
