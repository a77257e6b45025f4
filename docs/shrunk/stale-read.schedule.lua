-- Shrunk by: dst shrink scenarios/paused_leader.lua --seed 10031 -- --bug stale-read
-- The check that fails: linearizability: stale-read: ordered at revision 818, but an operation at revision 819 completed before it was sent
-- reduction:
--   fault steps 6 -> 1
--   virtual time 20.000s
--   operations 2402 -> 2867
--   nodes 3
--   clients 4
--   watchers 2
--   keys 10
--   rate 50
--   request kinds 14 -> 12
-- search: 168 runs (170 made with --jobs 2), 27.5 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/paused_leader.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/paused_leader.lua", seed="10031", bug="stale-read"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{without={"keep_alive", "lease_ttl"}}
step{at=16240000000, kind="pause", node=3}  -- t=16.240s pause n3

-- The scenario as it ran, embedded: `dst run --schedule THIS_FILE` runs this text, not the
-- file replay{} names (which may have changed or be elsewhere).
scenario_source [[
-- Paused leader: the leader stops (a long GC pause, a VM stall) for longer than an election
-- timeout, then resumes still believing it leads. Its queued responses and reads must not be
-- stale: ReadIndex and check-quorum keep a deposed leader from answering linearizable reads.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=50, watchers=2}
run_for(s(20))

every(s(5), function()
  local l = leader()
  if not l then return end
  pause(l)
  after(ms(math.random(1500, 3000)), function() resume(l) end)
end)
]]
