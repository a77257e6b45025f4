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
-- search: 55 runs (66 made with --jobs 2), 6.4 s of wall time; 1-minimal in its fault steps
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

-- The scenario as it ran, embedded: `dst run --schedule THIS_FILE` runs this text, not the
-- file replay{} names (which may have changed or be elsewhere).
scenario_source [[
-- Clock skew with leases: one member's clock runs 20% fast, another's wall clock is set seconds
-- off and jumps, and later the leader's own wall clock is stepped forward. Lease expiry must be
-- decided by the leader alone, on its monotonic clock, so neither a skewed follower nor a wall
-- step on the leader expires a lease early; keys with leases must vanish only by revoke or by
-- the leader's expiry, no sooner than TTL / (1 + the fastest drift) after their last grant or
-- keep-alive (the checker's lease-expired-early rule). The etcd-kv workload grants, attaches and
-- revokes leases.
cluster{nodes=3, clock={drift_ppm={[2]=200000}}}
workload{profile="etcd-kv", clients=4, rate=50, keys=30, watchers=2}
run_for(s(20))

at(s(2), function() clock_skew(3, s(5)) end)
at(s(6), function() clock_jump(1, -s(3)) end)
at(s(9), function()
  -- the fast clock leads: its elections fire early
  local l = leader()
  if l then partition(isolate(l)) end
end)
at(s(12), function() heal() end)
at(s(14), function() clock_drift(1, -100000) end)
-- NTP steps or an operator on the leader, now and then: a step on a follower is harmless by
-- design (only the leader expires leases), so the leader is the one to step. Repeated, because
-- an early expiry shows only while some key still holds the lease (the workload overwrites its
-- keys within a fraction of a second).
every(s(3), function()
  local l = leader()
  if l then clock_jump(l, s(30)) end
end)
at(s(16), function() clock_jump(2, s(10)) end)
]]
