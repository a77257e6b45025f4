-- NOSPACE and recovery: a small backend quota fills up; the member raises the NOSPACE alarm
-- through Raft and every member refuses writes that grow the store while reads go on. Refused
-- writes must be definitely failed ("etcdserver: mvcc: database space exceeded"), never applied.
-- The leader crashes while the alarm is raised (the alarm survives the restart). Then the
-- operator recovers the way etcd documents it: compact, defragment every member, disarm the
-- alarm; writes are served again (the liveness phase requires one acknowledged).
cluster{nodes=3, quota=131072}
workload{profile="etcd-kv", clients=6, rate=100, keys=500, watchers=1, compaction=s(0)}
run_for(s(26))

at(s(8), function() local l = leader() if l then crash(l) after(s(1), function() restart(l) end) end end)

-- The quota fills at about 13 s. The operator's recovery at 17 s, and again at 22 s in case the
-- load has filled it again.
local function recover()
  compact{keep=0}
  after(ms(500), function() for n = 1, nodes() do defrag(n) end end)
  after(s(1), alarm_disarm)
end
at(s(17), recover)
at(s(22), recover)

-- What every sweep of this scenario must reach (dst sweep fails otherwise; docs/coverage.md).
must_reach{"server.nospace-raised", "server.refused-under-nospace", "server.nospace-cleared", "backend.defragmented"}
