-- Member replacement: how operators replace a failed machine in etcd. Under an etcd-kv load with
-- watchers, a follower is removed (etcdctl member remove) and a fresh member is added on a new
-- host (etcdctl member add, then the new etcd started); it joins empty and catches up from the
-- leader's snapshot. Then the leader itself is replaced, and the newest member is cut off for a
-- while. Probes: conf changes through Raft one at a time, the strict reconfiguration checks,
-- snapshot install into an empty member, the quorum while the membership changes, removed
-- members that stop for good, and watches that resume elsewhere when their member goes away.
cluster{nodes=3, snapshot_every=200}
-- Clients move to another member on failure (etcd clients with the whole endpoint list): a
-- client pinned to a removed member would only fail from then on.
workload{profile="etcd-kv", clients=6, rate=80, watchers=2, pinned=false}
run_for(s(36))

local function replace(victim)
  if victim == nil then return end
  member_remove(victim)
  -- etcd refuses a change while its peers have been connected for less than 5 s, and the
  -- removal must be applied first: the new machine comes a few seconds later.
  after(s(3), function() member_add() end)
end

local first_victim
at(s(7), function()
  first_victim = follower()
  replace(first_victim)
end)
-- An operator retrying that removal (its answer was lost, say): etcd answers "member not found".
at(s(14), function()
  if first_victim ~= nil then member_remove(first_victim) end
end)
at(s(17), function() replace(leader()) end)
at(s(28), function()
  local newest = nodes()
  partition(isolate(newest))
  after(s(3), heal)
end)

-- What every sweep of this scenario must reach (dst sweep fails otherwise; docs/coverage.md).
must_reach{"raft.conf-change-applied", "server.member-removed-itself", "raft.snapshot-sent", "server.snapshot-installed"}
