-- Fault points: crashes and power losses at exact places in the node's code, as etcd's
-- robustness tests use gofail: right before and after the WAL is saved, before and after an
-- entry is applied, in the middle of a batched compaction and of a defragmentation.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=60, watchers=2, compaction=s(2)}
run_for(s(20))

local points = {"before-wal-save", "after-wal-save", "before-apply", "after-apply",
                "before-compaction-batch", "after-compaction-batch", "before-send"}
local i = 0
every(s(2), function()
  i = i + 1
  local n = random_node()
  local action = (i % 2 == 0) and "power-loss" or "crash"
  failpoint(n, points[(i - 1) % #points + 1], action)
  after(ms(1500), function() for m = 1, nodes() do restart(m) end end)
end)
