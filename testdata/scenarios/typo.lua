-- A scenario with a mistake, for the test that a broken scenario gives a clear error and exit 2.
cluster{nodes=3}
workload{profile="etcd-kv", clients=2}
run_for(s(5))
at(s(1), function() partition{{1, 2}} end)
at(s(2), function() partition{{7}} end)
