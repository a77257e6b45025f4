-- NOSPACE: a small backend quota fills up; the member raises the NOSPACE alarm through Raft and
-- every member refuses writes that grow the store while reads go on. Refused writes must be
-- definitely failed ("etcdserver: mvcc: database space exceeded"), never applied.
cluster{nodes=3, quota=131072}
workload{profile="etcd-kv", clients=6, rate=100, keys=500, watchers=1, compaction=s(0)}
run_for(s(15))

at(s(8), function() local l = leader() if l then crash(l) after(s(1), function() restart(l) end) end end)
