-- The register workload under power losses that drop what was not fsynced (issue 25's export
-- test): with --bug ack-before-fsync a member acknowledges writes it then loses, and the run's
-- etcd-model verdict and the register model's verdict on its Jepsen export must both say so.
cluster{nodes=3}
workload{profile="register", clients=6, rate=60, keys=2, watchers=0}
run_for(s(8))

every(ms(1500), function()
  local n = random_node()
  if math.random(1, 2) == 1 then n = leader() or n end
  kill(n, {lose_unsynced=true})
  after(ms(math.random(100, 600)), function() restart(n) end)
end)
