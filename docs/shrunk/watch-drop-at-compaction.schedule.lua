-- Shrunk by: dst shrink scenarios/compaction_watch.lua --seed 10004 -- --bug watch-drop-at-compaction
-- The check that fails: watch: reliable: watch 11: 1 matching event(s) never delivered: the watch received revision 830 but never this earlier matching event
-- reduction:
--   fault steps 14 -> 1
--   virtual time 20.000s -> 5.800s
--   operations 4620 -> 290
--   nodes 3
--   clients 6
--   watchers 8 -> 4
--   keys 10 -> 1
--   rate 80 -> 40
--   request kinds 14 -> 2
-- search: 82 runs (89 made with --jobs 2), 11.7 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/compaction_watch.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/compaction_watch.lua", seed="10004", bug="watch-drop-at-compaction"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{watchers=4, keys=1, rate=40, run_for=5800000000, without={"get", "stale_get", "list", "scan", "lease_put", "lease_grant", "lease_revoke", "keep_alive", "lease_ttl", "txn", "cas_mod", "cas_value"}}
step{at=1140000000, kind="isolate", node=2}  -- t=1.140s isolate n2

-- The scenario as it ran, embedded: `dst run --schedule THIS_FILE` runs this text, not the
-- file replay{} names (which may have changed or be elsewhere).
scenario_source [[
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
]]
