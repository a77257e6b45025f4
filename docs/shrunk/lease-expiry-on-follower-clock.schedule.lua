-- The fault schedule of scenarios/clock_skew_leases.lua (2 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/clock_skew_leases.lua", seed="10001", bug="lease-expiry-on-follower-clock"}
step{at=1240000000, kind="clock_drift", origin="config", node=2, ppm=200000}  -- t=1.240s clock_drift n2 200000ppm
step{at=4240000000, kind="clock_jump", origin="script", call=2, node=2, ns=30000000000}  -- t=4.240s clock_jump n2 30.0s
