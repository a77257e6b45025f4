-- Swarm: the seed draws the run (FoundationDB's swarm testing): which kinds of fault run and how
-- often (clock steps and drift among them), the cluster's size and Raft timing, and the workload's mix, keys, values, rate and
-- watchers; a sweep over seeds covers many different corners. The draw is printed with the seed.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=80, watchers=3}
run_for(s(20))
swarm{faults={"partition", "one_way", "crash", "slow_fsync", "fsync_error", "loss", "pause", "failpoint", "clock", "watch", "client", "corrupt"},
      interval={ms(300), s(2)}, nodes={1, 3, 5}}
