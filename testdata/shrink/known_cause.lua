-- A failure whose minimal cause is known, hidden among faults it does not need (issue 24: `dst
-- shrink` must find exactly the cause). Run with --bug applied-index-not-atomic (docs/bug-zoo.md):
-- a member that crashes between applying an entry and saving its applied index applies it again
-- after its restart, and its state diverges from the others' (member-agreement). Its cause is one
-- crash of a member: without a crash nothing is re-applied. The restart it needs is the harness's
-- (every member is restarted when the fault phase ends), so the scripted restart is not needed
-- either. Every other fault below (a partition, a pause, a slow disk, message loss, a skewed clock)
-- is noise the shrink must drop. tools/shrink_cli_test.sh checks that exactly the crash is left.
cluster{nodes=3}
workload{profile="etcd-kv", clients=3, rate=60, watchers=1}
run_for(s(8))

at(ms(500), function() slow_fsync(1, ms(30)) end)
at(ms(900), function() partition{{1}, {2, 3}} end)
at(ms(1600), function() heal() end)
at(ms(2000), function() crash(2) end)
at(ms(2600), function() restart(2) end)
at(ms(3000), function() pause(1) end)
at(ms(3400), function() resume(1) end)
at(ms(3800), function() drop(0.1) end)
at(ms(4200), function() drop(0) end)
at(ms(4500), function() clock_skew(2, ms(300)) end)
at(ms(5000), function() normal_fsync(1) end)
