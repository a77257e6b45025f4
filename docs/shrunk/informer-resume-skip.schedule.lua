-- Shrunk by: dst shrink scenarios/kube_apiserver_faults.lua --seed 10001 -- --bug informer-resume-skip
-- The check that fails: kube: watch-events: the informer held rv 1179 but watched from rv 1180, skipping 1 change(s) etcd made in between
-- reduction: fault steps 17 -> 2 in 7 runs (9.7 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/kube_apiserver_faults.lua (2 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/kube_apiserver_faults.lua", seed="10001", bug="informer-resume-skip"}
step{at=11240000000, kind="apiserver_crash", origin="script", call=4, node=1}  -- t=11.240s apiserver_crash apiserver1
step{at=12240000000, kind="apiserver_cut", origin="script", call=5, node=2}  -- t=12.240s apiserver_cut apiserver2
