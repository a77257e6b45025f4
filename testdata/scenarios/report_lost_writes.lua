-- The kubernetes workload (txns on mod revisions, ranges, watches) under power losses that drop
-- what was not fsynced (issue 25's etcd report export test): with --bug ack-before-fsync a member
-- acknowledges writes it then loses, and the run's verdict and the verdict on the same run
-- exported as etcd's robustness report (dst export --format etcd-report) must agree.
cluster{nodes=3}
workload{profile="kubernetes", clients=6, rate=60, keys=3, watchers=2}
run_for(s(8))

every(ms(1500), function()
  local n = random_node()
  if math.random(1, 2) == 1 then n = leader() or n end
  kill(n, {lose_unsynced=true})
  after(ms(math.random(100, 600)), function() restart(n) end)
end)
