-- A failure that needs exactly two faults, hidden among faults that cannot cause it (issue 24:
-- `dst shrink` must find exactly both). Run with --bug vote-not-persisted (docs/bug-zoo.md): a
-- member answers a vote before the vote is durable. It shows only if the member then loses power
-- right after voting (the armed fault point) and an election happens for it to vote in (the
-- leader's crash); it then comes back (the harness restarts every member when the fault phase
-- ends) with an older vote than the one it gave. Neither fault alone does it: an armed point with
-- no election never fires, and an election without a power loss loses no vote. Every other fault
-- below (a slow disk, a skewed clock, a follower's disk full for a moment, stalled clients and
-- watchers) cannot start an election and is noise the shrink must drop.
cluster{nodes=3}
workload{profile="etcd-kv", clients=3, rate=50, watchers=2}
run_for(s(8))

at(ms(400), function() slow_fsync(3, ms(15)) end)
at(ms(700), function() clock_skew(2, ms(400)) end)
at(ms(1000), function() failpoint(1, "after-vote", "power-loss") end)
at(ms(1300), function() client_stall(1, ms(300)) end)
at(ms(1700), function() watch_stall(1, ms(500)) end)
at(ms(2200), function()
  local l = leader()
  if l and l ~= 1 then crash(l) end
end)
at(ms(2600), function() normal_fsync(3) end)
at(ms(3000), function() clock_skew(2, 0) end)
at(ms(3300), function() client_stall(2, ms(200)) end)
