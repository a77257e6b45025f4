cluster{nodes=3, net={latency=lognormal(0, 1)}}
run_for(s(2))
