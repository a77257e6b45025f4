-- Disk faults: a failed fsync (etcd panics rather than continue with a WAL it cannot trust:
-- the member exits and is restarted), a full disk (writes fail with ENOSPC) and a slow disk,
-- on followers and the leader.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=50, watchers=2}
run_for(s(20))

at(s(2), function() fsync_error(follower() or 1) end)
at(s(5), function() local l = leader() if l then fsync_error(l) end end)
at(s(8), function() for n = 1, nodes() do restart(n) end end)
at(s(10), function() disk_full(follower() or 2) end)
at(s(14), function() for n = 1, nodes() do disk_full(n, false) restart(n) end end)
at(s(15), function() slow_fsync(random_node(), exponential(ms(50))) end)

-- What every sweep of this scenario must reach (dst sweep fails otherwise; docs/coverage.md).
must_reach{"sim.fsync-failed", "server.exited-on-error"}
