-- Kubernetes-style traffic: paginated lists, watches from the list's revision, optimistic
-- updates guarded by mod_revision, creates and deletes under /registry/. Partitions cut the
-- member a watcher is on, so watches break and resume; compaction runs as the apiserver's does.
cluster{nodes=3}
workload{profile="kubernetes", clients=6, rate=40, keys=30, watchers=4, compaction=s(5)}
run_for(s(20))

every(s(5), function()
  local n = random_node()
  partition{{n}}
  after(ms(1500), function() heal() end)
end)
