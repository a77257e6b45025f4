-- Every function of the API once, with ordinary arguments.
cluster{nodes=5, net={latency=uniform(us(200), ms(2)), bandwidth=1e9}, disk={fsync=exponential(ms(2))},
        clock={drift_ppm={[2]=20000}}, raft={tick=ms(50), election_ticks=20, heartbeat_ticks=2, pre_vote=true,
        check_quorum=true, max_msg_bytes=4096, max_inflight=8}, quota=1048576, snapshot_every=100}
workload{profile="kubernetes", clients=4, rate=20, keys=8, watchers=2, compaction=s(2), timeout=s(1), pinned=false}
check{linearizable=true, watch=true, liveness=s(20), durability=true}
kube{apiservers=2, controllers=2, prefix="/registry/pods/", cache=50, writes=2, keys=4, resync=s(5)}
run_for(s(10))
local n = 0
every(s(1), function() n = n + 1 end)
at(s(1), function()
  local l = leader()
  partition{{1, 2}, {3}}
  partition(isolate(l or 1))
  partition(minority_third) partition(majorities_ring) partition(bridge)
  partition(one_way(1, 2)) partition{from = 2, to = 3}
  heal() drop(0.1) drop(0) delay(normal(ms(5), ms(1))) delay()
  crash(follower() or 2) restart(2) kill(3, {lose_unsynced = true, torn = true}) restart(3)
  pause(4) resume(4) slow_fsync(5, lognormal(ms(10), 0.5)) normal_fsync(5)
  fsync_error(5, 2) disk_full(5) disk_full(5, false) bitflip(5, "member/wal/0.wal", {offset = 0, length = 16, bits = 2})
  clock_skew(1, -ms(300)) clock_jump(1, s(1)) clock_drift(1, 1000)
  failpoint(1, "before-wal-save", "sleep", {delay = ms(10), skip = 1, times = 2})
  compact{keep = 5, physical = true} defrag(1) alarm_disarm()
  local m = member_add{learner = true} member_remove(m)
  kube_crash(1) kube_restart(1) kube_cut(2) kube_reconnect(2) kube_pause(1) kube_resume(1)
  print(nodes(), now(), random_node(), apiservers(), controllers(), random_apiserver(), random_controller(), math.random(6))
  after(ms(500), function() heal() end)
end)
