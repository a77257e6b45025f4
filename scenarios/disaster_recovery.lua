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
