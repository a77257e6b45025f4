-- Asymmetric links: one-way cuts (the leader can send heartbeats but not hear answers, or the
-- reverse), message loss, and a slow network. Probes check-quorum (a leader that hears no
-- quorum steps down), pre-vote (a member that cannot hear the leader must not disrupt it) and
-- stream break detection.
cluster{nodes=5, net={latency=uniform(us(200), ms(2))}}
workload{profile="etcd-kv", clients=4, rate=50, watchers=2}
run_for(s(20))

at(s(2), function()
  local l = leader() or 1
  for n = 1, nodes() do if n ~= l then partition(one_way(n, l)) end end
end)
at(s(6), function() heal() end)
at(s(8), function() local l = leader() or 1 partition(one_way(l, l % nodes() + 1)) end)
at(s(11), function() heal() drop(0.2) end)
at(s(14), function() drop(0) delay(uniform(ms(20), ms(80))) end)
at(s(17), function() delay() end)
at(s(18), function() partition(majorities_ring) end)
