-- Shrunk by: dst shrink scenarios/lost_unsynced_writes.lua --seed 10001 -- --bug ack-before-fsync
-- The check that fails: raft-invariants: State Machine Safety: node 1 overwrote 1 committed entries in its log (or committed past its end)
-- reduction:
--   fault steps 25 -> 1
--   virtual time 20.000s -> 1.000s
--   operations 1229 -> 17
--   nodes 3 -> 1
--   clients 4 -> 1
--   watchers 2 -> 0
--   keys 10 -> 1
--   rate 60 -> 7.5
--   request kinds 14 -> 1
-- search: 37 runs (53 made with --jobs 2), 5.4 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/lost_unsynced_writes.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/lost_unsynced_writes.lua", seed="10001", bug="ack-before-fsync"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{nodes=1, clients=1, watchers=0, keys=1, rate=7.5, run_for=1000000000, without={"get", "stale_get", "list", "scan", "put", "del", "lease_put", "lease_revoke", "keep_alive", "lease_ttl", "txn", "cas_mod", "cas_value"}}
step{at=2126000000, kind="kill", node=1, lose_unsynced=true, torn=false}  -- t=2.126s kill n1 lose_unsynced

-- The scenario as it ran, embedded: `dst run --schedule THIS_FILE` runs this text, not the
-- file replay{} names (which may have changed or be elsewhere).
scenario_source [[
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
]]
