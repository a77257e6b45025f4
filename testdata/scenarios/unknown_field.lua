-- A scenario with a misspelt option (nodez), for the load-time error test.
cluster{nodez=3}
run_for(s(5))
