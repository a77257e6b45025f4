-- Shrunk by: dst shrink scenarios/kube_apiserver_faults.lua --seed 10002 -- --bug list-not-caught-up
-- The check that fails: kube: list-state: a LIST answered at resourceVersion 1059 differs from etcd's objects under '/registry/configmaps/' at revision 1059: 20 missing, 0 extra, 0 different
-- reduction: fault steps 17 -> 6 in 39 runs (31.6 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/kube_apiserver_faults.lua (6 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/kube_apiserver_faults.lua", seed="10002", bug="list-not-caught-up"}
step{at=11050000000, kind="apiserver_crash", origin="script", call=4, node=2}  -- t=11.050s apiserver_crash apiserver2
step{at=12050000000, kind="apiserver_cut", origin="script", call=5, node=1}  -- t=12.050s apiserver_cut apiserver1
step{at=14050000000, kind="controller_pause", origin="script", call=8, node=3}  -- t=14.050s controller_pause controller3
step{at=16050000000, kind="apiserver_crash", origin="script", call=9, node=1}  -- t=16.050s apiserver_crash apiserver1
step{at=18050000000, kind="controller_resume", origin="script", call=12, node=3}  -- t=18.050s controller_resume controller3
step{at=19050000000, kind="apiserver_restart", origin="script", call=13, node=2}  -- t=19.050s apiserver_restart apiserver2
