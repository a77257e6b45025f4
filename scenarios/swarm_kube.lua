-- Swarm over Kubernetes on etcd: the seed draws the etcd faults, the cluster's size and timing and
-- the workload as swarm.lua does, and the Kubernetes layer too: how many apiservers and
-- controllers, the watch cache's size (a small one sends slow informers 410 Gone and re-lists),
-- the informers' resync, the controllers' write rate, and random apiserver crashes, apiservers
-- cut from etcd and controllers paused among the faults. The kube checks hold every LIST, WATCH
-- stream, informer store and workqueue to etcd's history.
cluster{nodes=3}
workload{profile="kubernetes", clients=4, rate=30, keys=30, watchers=2, compaction=s(4)}
kube{apiservers=2, controllers=3, prefix="/registry/configmaps/", cache=40, writes=10, keys=10}
run_for(s(20))
swarm{faults={"partition", "one_way", "crash", "slow_fsync", "fsync_error", "loss", "pause", "failpoint", "clock", "watch", "client", "corrupt", "kube"},
      interval={ms(300), s(2)}, nodes={1, 3, 5}}
