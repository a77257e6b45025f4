-- Minority and majority partitions on five members: a third cut off (the majority keeps serving,
-- the minority must not), a bridge (two halves joined only through the middle member, so leaders
-- on either side flap), then explicit splits that put the leader on the minority side.
cluster{nodes=5}
workload{profile="etcd-kv", clients=5, rate=40, watchers=2}
run_for(s(24))

at(s(2), function() partition(minority_third) end)
at(s(6), function() heal() end)
at(s(8), function() partition(bridge) end)
at(s(12), function() heal() end)
at(s(14), function()
  local l = leader() or 1
  local other = l % 5 + 1
  partition{{l, other}}  -- the leader and one follower against the other three
end)
at(s(18), function() heal() end)
at(s(19), function() partition{{1, 2, 3}, {4, 5}} end)
at(s(22), function() heal() end)
