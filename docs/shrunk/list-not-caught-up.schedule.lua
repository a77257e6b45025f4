-- Shrunk by: dst shrink scenarios/kube_apiserver_faults.lua --seed 10002 -- --bug list-not-caught-up
-- The check that fails: kube: list-state: a LIST answered at resourceVersion 1059 differs from etcd's objects under '/registry/configmaps/' at revision 1059: 20 missing, 0 extra, 0 different
-- reduction:
--   fault steps 17 -> 6
--   virtual time 20.000s -> 15.700s
--   operations 4227 -> 2914
--   nodes 3
--   clients 4
--   watchers 2
--   keys 30 -> 1
--   rate 30
-- search: 166 runs (176 made with --jobs 2), 37.1 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/kube_apiserver_faults.lua (6 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/kube_apiserver_faults.lua", seed="10002", bug="list-not-caught-up"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{keys=1, run_for=15700000000}
step{at=8575000000, kind="apiserver_crash", node=2}  -- t=8.575s apiserver_crash apiserver2
step{at=12387000000, kind="apiserver_cut", node=1}  -- t=12.387s apiserver_cut apiserver1
step{at=14446000000, kind="controller_pause", node=3}  -- t=14.446s controller_pause controller3
step{at=14575000000, kind="apiserver_crash", node=1}  -- t=14.575s apiserver_crash apiserver1
step{at=15575000000, kind="controller_resume", node=3}  -- t=15.575s controller_resume controller3
step{at=16575000000, kind="apiserver_restart", node=2}  -- t=16.575s apiserver_restart apiserver2
