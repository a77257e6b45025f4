-- Shrunk by: dst shrink scenarios/clock_skew_leases.lua --seed 10001 -- --bug lease-expiry-on-follower-clock
-- The check that fails: linearizability: lease-expired-early: lease 144115189335415391 (TTL 12s) expired at revision 258, seen by 4.452318s, but its refresh sent at 1.978457s keeps it until at least 11.978457s (TTL / (1 + 200000 ppm drift))
-- reduction:
--   fault steps 12 -> 1
--   virtual time 20.000s -> 1.000s
--   operations 2912 -> 10
--   nodes 3
--   clients 4 -> 1
--   watchers 2 -> 0
--   keys 30 -> 1
--   rate 50 -> 6.25
--   request kinds 14 -> 1
-- search: 55 runs (66 made with --jobs 2), 5.5 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/clock_skew_leases.lua (2 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/clock_skew_leases.lua", seed="10001", bug="lease-expiry-on-follower-clock"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{clients=1, watchers=0, keys=1, rate=6.25, run_for=1000000000, without={"get", "stale_get", "list", "scan", "put", "del", "lease_grant", "lease_revoke", "keep_alive", "lease_ttl", "txn", "cas_mod", "cas_value"}}
step{at=1240000000, kind="clock_drift", origin="config", node=2, ppm=200000}  -- t=1.240s clock_drift n2 200000ppm
step{at=1789000000, kind="clock_jump", node=2, ns=30000000000}  -- t=1.789s clock_jump n2 30.0s
