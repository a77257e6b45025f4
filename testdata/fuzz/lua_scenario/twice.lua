cluster{nodes=1}
cluster{nodes=3}
run_for(s(1))
run_for(s(2))
bitflip(1, "wal", {offset=2^40})
