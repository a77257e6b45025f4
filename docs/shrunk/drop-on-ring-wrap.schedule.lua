-- Shrunk by: dst shrink scenarios/kube_apiserver_faults.lua --seed 10001 -- --bug drop-on-ring-wrap
-- The check that fails: kube: watch-events: 18 change(s) etcd made were never delivered: the stream went on to rv 793 before them
-- reduction: fault steps 17 -> 1 in 7 runs (9.5 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/kube_apiserver_faults.lua (1 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/kube_apiserver_faults.lua", seed="10001", bug="drop-on-ring-wrap"}
step{at=14240000000, kind="controller_pause", origin="script", call=8, node=2}  -- t=14.240s controller_pause controller2
