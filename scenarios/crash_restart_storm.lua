-- Crash-restart storm: members (the leader a third of the time) crash and come back every second
-- or so; at most one is down at a time, so the cluster keeps a quorum. Restarts replay the WAL
-- and snapshots; acknowledged writes must survive every one.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=50, watchers=2}
run_for(s(20))

every(ms(1200), function()
  local n = random_node()
  if math.random(1, 3) == 1 then n = leader() or n end
  crash(n)
  after(ms(math.random(200, 800)), function() restart(n) end)
end)
