-- Shrunk by: dst shrink scenarios/kube_apiserver_faults.lua --seed 10001 -- --bug drop-on-ring-wrap
-- The check that fails: kube: watch-events: 18 change(s) etcd made were never delivered: the stream went on to rv 793 before them
-- reduction:
--   fault steps 17 -> 1
--   virtual time 20.000s -> 3.400s
--   operations 4145 -> 198
--   nodes 3 -> 1
--   clients 4 -> 0
--   watchers 2
--   keys 30 -> 1
--   rate 30 -> 0.1171875
-- search: 44 runs (52 made with --jobs 2), 6.1 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/kube_apiserver_faults.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/kube_apiserver_faults.lua", seed="10001", bug="drop-on-ring-wrap"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{nodes=1, clients=0, keys=1, rate=0.1171875, run_for=3400000000}
step{at=1340000000, kind="controller_pause", node=2}  -- t=1.340s controller_pause controller2
