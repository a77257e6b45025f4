cluster{disk={fsync={dist="uniform", a=s(5), b=0}}}
run_for(s(2))
at(s(1), function() slow_fsync(1, pareto(ms(1), 0)) delay(lognormal(ms(1), -1)) end)
