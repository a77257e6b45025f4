-- Slow fsync on the leader: its WAL fsyncs take 100-800 ms for a while (a saturated disk). The
-- leader falls behind its own followers' acknowledgements; latency rises; nothing may be
-- acknowledged before it is durable on a quorum. Then a fault point makes the leader stall
-- before saving its WAL, as etcd's gofail "raftBeforeSave" sleep does.
cluster{nodes=3, disk={fsync=uniform(ms(1), ms(5))}}
workload{profile="etcd-kv", clients=4, rate=50, watchers=2}
run_for(s(20))

at(s(2), function()
  local l = leader()
  if l then slow_fsync(l, uniform(ms(100), ms(800))) end
  after(s(6), function() if l then normal_fsync(l) end end)
end)
at(s(11), function()
  local l = leader()
  if l then failpoint(l, "before-wal-save", "sleep", {delay=ms(1500), times=3}) end
end)
