-- Lost unsynced writes: power losses that drop everything not fsynced, some with torn writes (a
-- sector-aligned prefix of the unsynced tail survives). The WAL's CRCs and torn-tail repair must
-- keep every fsynced entry, and a member must never acknowledge (or vote on) what it had not
-- made durable, so no acknowledged write is lost.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=60, watchers=2}
run_for(s(20))

every(ms(1500), function()
  local n = random_node()
  if math.random(1, 2) == 1 then n = leader() or n end
  kill(n, {lose_unsynced=true, torn=math.random(1, 2) == 1})
  after(ms(math.random(100, 600)), function() restart(n) end)
end)

-- What every sweep of this scenario must reach (dst sweep fails otherwise; docs/coverage.md).
must_reach{"sim.torn-write", "backend.files-made-durable"}
