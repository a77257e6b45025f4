-- Leader isolation: the leader is cut off from both followers again and again. The majority must
-- elect a new leader within an election timeout or two, the old leader must stop serving
-- linearizable reads (ReadIndex needs a quorum) and writes it accepted but never committed must
-- come back as failed or unknown, never as lost acknowledged writes.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=50, watchers=2}
run_for(s(20))

every(s(4), function()
  local l = leader()
  if l then partition(isolate(l)) end
  after(s(2), function() heal() end)
end)
