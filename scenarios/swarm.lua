-- Swarm: the seed draws which kinds of fault run and how often (FoundationDB's swarm testing),
-- so a sweep over seeds covers many different mixes; the draw is printed with the seed.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=50, watchers=2}
run_for(s(20))
swarm{faults={"partition", "one_way", "crash", "slow_fsync", "fsync_error", "loss", "pause", "failpoint"},
      interval={ms(300), s(2)}}
