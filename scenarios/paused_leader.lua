-- Paused leader: the leader stops (a long GC pause, a VM stall) for longer than an election
-- timeout, then resumes still believing it leads. Its queued responses and reads must not be
-- stale: ReadIndex and check-quorum keep a deposed leader from answering linearizable reads.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=50, watchers=2}
run_for(s(20))

every(s(5), function()
  local l = leader()
  if not l then return end
  pause(l)
  after(ms(math.random(1500, 3000)), function() resume(l) end)
end)
