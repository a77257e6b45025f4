-- Shrunk by: dst shrink scenarios/disaster_recovery.lua --seed 10001 -- --bug restore-restarts-revisions
-- The check that fails: watch: consistent: [after restore 1 at t=11.176000s (snapshot backup at revision 642, bump 1000000)] revision 9: two writes were answered with the same revision
-- reduction:
--   fault steps 4 -> 0
--   virtual time 26.000s -> 13.500s
--   operations 3334 -> 13
--   nodes 3 -> 1
--   clients 4 -> 1
--   watchers 2 -> 0
--   keys 10 -> 1
--   rate 60 -> 0.1171875
--   request kinds 14 -> 1
-- search: 29 runs (37 made with --jobs 2), 3.1 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/disaster_recovery.lua (0 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/disaster_recovery.lua", seed="10001", bug="restore-restarts-revisions"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{nodes=1, clients=1, watchers=0, keys=1, rate=0.1171875, run_for=13500000000, without={"get", "stale_get", "list", "scan", "del", "lease_put", "lease_grant", "lease_revoke", "keep_alive", "lease_ttl", "txn", "cas_mod", "cas_value"}}

-- The scenario as it ran, embedded: `dst run --schedule THIS_FILE` runs this text, not the
-- file replay{} names (which may have changed or be elsewhere).
scenario_source [[
-- Disaster recovery: etcd's procedure for a cluster that lost every member at once. Under an
-- etcd-kv load with leases and watchers, an operator saves a snapshot from some member every few
-- seconds (etcdctl snapshot save). Then every member's disk is lost at the same moment, and a new
-- cluster is restored on the same machines from the newest snapshot file (etcdctl snapshot
-- restore on each member with the new initial cluster, then all started), with the revision
-- moved ahead and marked compacted (--bump-revision, --mark-compacted) so that watchers of the
-- old cluster are told "compacted" instead of silently missing what was lost. It happens twice,
-- with a crash and a partition in between. What must hold (history/restore_epochs.h): everything
-- acknowledged at or before the snapshot's revision is there after the restore, nothing after it
-- is claimed, the restored cluster answers from the snapshot's revision plus the bump on, and
-- every timeline of revisions is linearizable with complete watches.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=60, watchers=2}
run_for(s(26))

-- The operator's backups: from a random member (a member that is down or cut off simply fails to
-- answer, and the previous file stays the newest).
-- During a disaster there is no member to ask.
every(ms(1500), function()
  local n = random_node()
  if n then snapshot_save(n, "backup") end
end)

local function lose_everything_and_restore()
  disaster()
  -- The operator needs a while to notice, fetch the file and restore; clients fail meanwhile.
  after(ms(math.random(800, 3000)), function()
    -- Kubernetes' guidance: bump by more than the writes the lost part can have held.
    restore{bump=math.random(1, 4) * 1000000}
  end)
end

at(ms(math.random(6000, 9000)), lose_everything_and_restore)
at(ms(math.random(13000, 15000)), function()
  local n = random_node()
  crash(n)
  after(ms(math.random(300, 1200)), function() restart(n) end)
end)
at(ms(math.random(15500, 16500)), function()
  partition(isolate(leader() or random_node()))
  after(ms(math.random(500, 1500)), heal)
end)
at(ms(math.random(18000, 21000)), lose_everything_and_restore)

-- What every sweep of this scenario must reach (dst sweep fails otherwise; docs/coverage.md).
must_reach{"server.snapshot-streamed", "server.restored-from-snapshot", "server.snapshot-restore-bumped-revision"}
]]
