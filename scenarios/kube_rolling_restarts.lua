-- Kubernetes on etcd under maintenance (issue #8): three apiservers restarted one after another,
-- as in a rolling upgrade; etcd members (usually the leader) crash and restart, so the caches'
-- watches break and resume on another member under a new leader; and compaction keeps only the
-- newest few revisions, so a cache whose watch stayed down must re-list, and informers behind a
-- re-listed cache get 410 Gone and re-list too. Informers resync every 4 s.
cluster{nodes=3}
workload{profile="kubernetes", clients=3, rate=20, keys=20, watchers=1, compaction=s(2)}
kube{apiservers=3, controllers=2, prefix="/registry/configmaps/", cache=30, writes=8, keys=12, resync=s(4)}
run_for(s(20))

-- The rolling restart: every 2 s the next apiserver goes down for 1 s.
local next_apiserver = 0
every(s(2), function()
  next_apiserver = next_apiserver % apiservers() + 1
  local a = next_apiserver
  kube_crash(a)
  after(s(1), function() kube_restart(a) end)
end)

-- An etcd member, the leader when there is one, crashes and comes back.
every(s(5), function()
  local n = leader() or random_node()
  crash(n)
  after(ms(1500), function() restart(n) end)
end)

every(ms(1500), function() compact{keep=5} end)
