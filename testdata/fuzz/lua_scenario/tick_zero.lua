cluster{raft={tick=0}}
run_for(s(2))
