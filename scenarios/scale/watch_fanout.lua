-- Watch fan-out: 10,000 watches multiplexed on 4 client streams (etcd's gRPC multiplexing: every
-- watch of a client process on one stream, each with its own watch id), on single keys, key
-- prefixes and the whole key space of 1,000 keys, while the leader is isolated, members crash and
-- restart, and the compactor cancels the watches that fall behind. A broken stream resumes every
-- one of its watches on the next member from its own next revision; a watch canceled by
-- compaction is watched again from the compact revision. Every watch is recorded as a watch of
-- its own and held to every watch guarantee (ordered, unique, reliable, resumable, bookmarkable,
-- atomic, filtered, with the right prev_kv).
-- A scale scenario (scenarios/scale/): run it with dst run or dst sweep; not in the standard suite.
cluster{nodes=3}
workload{profile="etcd-kv", clients=8, rate=40, keys=1000, watchers=2, compaction=s(4),
         fanout_streams=4, fanout_watches=10000}
run_for(s(12))

every(s(5), function()
  local l = leader()
  if l then partition(isolate(l)) end
  after(ms(1500), function() heal() end)
end)

after(s(3), function()
  every(s(4), function()
    local n = random_node()
    crash(n)
    after(ms(math.random(300, 700)), function() restart(n) end)
  end)
end)
