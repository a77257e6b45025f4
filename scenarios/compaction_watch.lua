-- Compaction and watches under load: compaction every second while eight watchers follow
-- prefixes, some behind (they start in the past and the sender's queue fills). A watcher that
-- falls below the compacted revision must be cancelled with the compact revision, never silently
-- skip events; one that keeps up must see every event once, in order.
cluster{nodes=3}
workload{profile="etcd-kv", clients=6, rate=80, watchers=8, compaction=s(1)}
run_for(s(20))

at(s(5), function() local l = leader() if l then partition(isolate(l)) end end)
at(s(8), function() heal() end)
every(s(5), function() pause(random_node()) after(ms(700), function() for n = 1, nodes() do resume(n) end end) end)
