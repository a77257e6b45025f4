-- Clock skew with leases: one member's clock runs 20% fast, another's wall clock is set seconds
-- off and jumps. Lease expiry must be decided by the leader alone, on its monotonic clock, so a
-- skewed follower cannot expire a lease early; keys with leases must vanish only by revoke or
-- by the leader's expiry. The etcd-kv workload grants, attaches and revokes leases.
cluster{nodes=3, clock={drift_ppm={[2]=200000}}}
workload{profile="etcd-kv", clients=4, rate=50, watchers=2}
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
at(s(16), function() clock_jump(2, s(10)) end)
