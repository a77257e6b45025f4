-- Shrunk by: dst shrink scenarios/flapping_partitions.lua --seed 10001 -- --bug watch-time-travel
-- The check that fails: watch: compaction: watch 2: canceled by compaction at 328 though the watch needed revision 443, which that compaction keeps
-- reduction:
--   fault steps 33 -> 0
--   virtual time 20.000s -> 3.900s
--   operations 1370 -> 543
--   nodes 3
--   clients 4
--   watchers 3
--   keys 10 -> 1
--   rate 50
--   request kinds 14 -> 4
-- search: 91 runs (101 made with --jobs 2), 9.9 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/flapping_partitions.lua (0 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/flapping_partitions.lua", seed="10001", bug="watch-time-travel"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{keys=1, run_for=3900000000, without={"get", "stale_get", "list", "scan", "lease_revoke", "keep_alive", "lease_ttl", "txn", "cas_mod", "cas_value"}}

-- The scenario as it ran, embedded: `dst run --schedule THIS_FILE` runs this text, not the
-- file replay{} names (which may have changed or be elsewhere).
scenario_source [[
-- Flapping partitions: a new random split every 300-900 ms, healed in between half the time.
-- Elections never settle for long; streams break and reconnect; watchers resume from their last
-- revision. Probes term handling, pre-vote and check-quorum, and watch resumption.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=50, watchers=3}
run_for(s(20))

local function flap()
  if math.random() < 0.5 then
    heal()
  else
    local a = random_node()
    local b = a % nodes() + 1
    if math.random() < 0.5 then partition{{a}} else partition{{a, b}} end
  end
  after(ms(300 + math.random(0, 600)), flap)
end
at(s(1), flap)
]]
