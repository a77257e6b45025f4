-- etcd's own automatic compaction (--auto-compaction-mode periodic --auto-compaction-retention
-- 300ms): the leader's compactor notes the revision every 30 ms and compacts to the one from
-- ~300 ms before, every 300 ms, while the clients read up to 30 revisions in the past (often
-- compacted by then) and eight watchers follow prefixes. No client compacts: every compaction is
-- the server's, recorded as an operation of its own so the checkers know of it. Leadership moves (a transfer on request,
-- partition, a crash), so each new leader's compactor takes over; a compaction the leader sent
-- before dying stays unknown. The partition outlasts the watch streams' 5 s keepalive: watchers on
-- the isolated leader resume elsewhere from a revision compaction has passed, and are canceled.
cluster{nodes=3, etcd={auto_compaction_mode="periodic", auto_compaction_retention="300ms"}}
workload{profile="etcd-kv", clients=5, rate=60, watchers=8}
run_for(s(16))

at(s(4), function() local l = leader() if l then partition(isolate(l)) end end)
at(s(10), function() heal() end)
at(s(11), function() local l = leader() if l then crash(l) after(s(2), function() restart(l) end) end end)
-- etcdctl move-leader: the leader hands over on request, and its compactor stops with it.
at(s(14), function() local f = follower() if f then move_leader(f) end end)

-- What every sweep of this scenario must reach (dst sweep fails otherwise; docs/coverage.md).
must_reach{"server.auto-compacted", "watch.compaction-cancel", "server.leadership-moved"}
