-- Kubernetes at scale: 3 apiservers with watch caches serve 1,000 kubelet informers (list, then
-- watch through an apiserver, spread over the three) and 4 controllers that create, update and
-- delete pod objects and reconcile their status, a few hundred writes a second in all, while the
-- apiservers are restarted one after another (a rolling upgrade): every informer of a restarted
-- apiserver re-lists and watches again on the next one, and must end holding exactly what etcd
-- holds. The report shows the propagation delay etcd -> watch cache -> informer at p50/p99.
-- A scale scenario (scenarios/scale/): run it with dst run or dst sweep; not in the standard suite.
cluster{nodes=3}
workload{profile="etcd-kv", clients=2, rate=20, watchers=1}
kube{apiservers=3, controllers=4, prefix="/registry/pods/", cache=2000, writes=60, keys=150, resync=s(0),
     informers=1000}
run_for(s(12))

-- The rolling restart: every 3 s the next apiserver goes down for 1 s.
local next_apiserver = 0
every(s(3), function()
  next_apiserver = next_apiserver % apiservers() + 1
  local a = next_apiserver
  kube_crash(a)
  after(s(1), function() kube_restart(a) end)
end)
