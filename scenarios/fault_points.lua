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
