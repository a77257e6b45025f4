-- Shrunk by: dst shrink scenarios/fault_points.lua --seed 10003 -- --bug compaction-revision-decrease
-- The check that fails: member-agreement: n3 diverged from n1 at applied index 623
-- reduction:
--   fault steps 54 -> 3
--   virtual time 20.000s -> 4.600s
--   operations 1199 -> 154
--   nodes 3
--   clients 4
--   watchers 2
--   keys 10 -> 1
--   rate 60 -> 15
--   request kinds 14 -> 2
-- search: 161 runs (185 made with --jobs 2), 17.3 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/fault_points.lua (3 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/fault_points.lua", seed="10003", bug="compaction-revision-decrease"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{keys=1, rate=15, run_for=4600000000, without={"lease_grant", "lease_revoke", "keep_alive", "lease_ttl", "txn", "cas_mod", "cas_value", "get", "stale_get", "list", "scan", "lease_put"}}
step{at=3603000000, kind="failpoint", node=3, point="before-wal-save", action="power-loss", delay=0, skip=0, times=1}  -- t=3.603s failpoint n3 before-wal-save power-loss skip 0
step{at=3912000000, kind="failpoint", node=3, point="after-compaction-batch", action="crash", delay=0, skip=0, times=1}  -- t=3.912s failpoint n3 after-compaction-batch crash skip 0
step{at=3913000000, kind="restart", node=3}  -- t=3.913s restart n3

-- The scenario as it ran, embedded: `dst run --schedule THIS_FILE` runs this text, not the
-- file replay{} names (which may have changed or be elsewhere).
scenario_source [[
-- Fault points: crashes and power losses at exact places in the node's code, as etcd's
-- robustness tests use gofail: right before and after the WAL is saved, before and after an
-- entry is applied, right after a vote went out, in the middle of a batched compaction and of a
-- defragmentation. An armed point waits for its pass: after-vote fires at the next election the
-- node votes in.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=60, watchers=2, compaction=s(2)}
run_for(s(20))

local points = {"before-wal-save", "after-vote", "after-wal-save", "before-apply", "after-apply",
                "before-compaction-batch", "after-compaction-batch", "before-send"}
local i = 0
every(s(2), function()
  i = i + 1
  local n = random_node()
  local point = points[(i - 1) % #points + 1]
  -- Drawn, not alternated: with an even number of points, alternating would tie each point to
  -- one action for the whole run. Right after a vote, a crash loses nothing (the page cache keeps
  -- the vote whether or not it was synced); only a power loss tests that it was made durable.
  local action = (point == "after-vote" or math.random(1, 2) == 1) and "power-loss" or "crash"
  failpoint(n, point, action)
  after(ms(1500), function() for m = 1, nodes() do restart(m) end end)
end)

-- A crash in the middle of a compaction of the newest revision, triggered as etcd's robustness
-- tests trigger their compaction failpoints: arm the point, then compact to the revision just
-- read. The periodic compactor keeps 20 revisions, so it never compacts the newest one, where a
-- deletion's tombstone is the store's newest row (etcd #17780). Half-way between the crashes
-- above; the victim is back before the next one.
after(s(1), function()
  every(s(2), function()
    local n = random_node()
    failpoint(n, "after-compaction-batch", (math.random(1, 2) == 1) and "power-loss" or "crash")
    compact{keep=0}
    after(ms(700), function() restart(n) end)
  end)
end)
]]
