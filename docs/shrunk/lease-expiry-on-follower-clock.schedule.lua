-- Shrunk by: dst shrink scenarios/clock_skew_leases.lua --seed 10001 -- --bug lease-expiry-on-follower-clock
-- The check that fails: linearizability: lease-expired-early: lease 144115189335415391 (TTL 12s) expired at revision 258, seen by 4.452318s, but its refresh sent at 1.978457s keeps it until at least 11.978457s (TTL / (1 + 200000 ppm drift))
-- reduction: fault steps 12 -> 1 in 6 runs (7.0 s of wall time); 1-minimal
--
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
