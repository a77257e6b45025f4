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
