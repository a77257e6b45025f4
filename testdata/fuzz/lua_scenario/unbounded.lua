workload{clients=256, rate=10000}
check{liveness=s(1e6)}
run_for(s(3600))
