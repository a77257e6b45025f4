-- Compaction and watches under load: compaction every second while eight watchers follow
-- prefixes, some behind (they start in the past and the sender's queue fills). A watcher that
-- falls below the compacted revision must be cancelled with the compact revision, never silently
-- skip events; one that keeps up must see every event once, in order. The scenario compacts
-- too (keeping only 5 revisions) and defragments every member near the end.
cluster{nodes=3}
workload{profile="etcd-kv", clients=6, rate=80, watchers=8, compaction=s(1)}
run_for(s(20))

every(ms(2500), function() compact{keep=5, physical=math.random(1, 2) == 1} end)
at(s(5), function() local l = leader() if l then partition(isolate(l)) end end)
at(s(15), function() for n = 1, nodes() do defrag(n) end end)
-- Longer than the streams' 5 s keepalive timeout: the watchers on the isolated leader break and
-- resume elsewhere from where they were, which compaction has passed by then.
at(s(11), function() heal() end)
every(s(5), function() pause(random_node()) after(ms(700), function() for n = 1, nodes() do resume(n) end end) end)

-- What every sweep of this scenario must reach (dst sweep fails otherwise; docs/coverage.md).
must_reach{"watch.compaction-cancel", "client.watch-compacted", "watch.restored-from-snapshot", "api.watch.canceled-compacted"}
