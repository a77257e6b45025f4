-- Shrunk by: dst shrink scenarios/kube_apiserver_faults.lua --seed 10001 -- --bug informer-resume-skip
-- The check that fails: kube: watch-events: the informer held rv 1179 but watched from rv 1180, skipping 1 change(s) etcd made in between
-- reduction:
--   fault steps 17 -> 0
--   virtual time 20.000s -> 1.400s
--   operations 4122 -> 119
--   nodes 3 -> 1
--   clients 4 -> 0
--   watchers 2 -> 0
--   keys 30
--   rate 30
-- search: 29 runs (44 made with --jobs 2), 9.7 s of wall time; 1-minimal in its fault steps
--
-- The fault schedule of scenarios/kube_apiserver_faults.lua (0 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/kube_apiserver_faults.lua", seed="10001", bug="informer-resume-skip"}
-- reduce{} replaces these parts of the scenario's configuration (run_for in virtual ns):
reduce{nodes=1, clients=0, watchers=0, run_for=1400000000}

-- The scenario as it ran, embedded: `dst run --schedule THIS_FILE` runs this text, not the
-- file replay{} names (which may have changed or be elsewhere).
scenario_source [[
-- Kubernetes on etcd (issue #8): two apiservers cache /registry/configmaps/ from a 3-member
-- cluster and serve the informers of three controllers, which create, update and delete objects
-- and reconcile every object's status with optimistic concurrency; the kubernetes workload
-- writes /registry/pods/ beside them, so etcd's revision moves while the resource is quiet and
-- the caches' progress requests and bookmarks have work to do. Faults at every layer:
--   an apiserver crashes and restarts (its cache is rebuilt by a LIST; its informers move on);
--   an apiserver is cut off from etcd long enough for its watch to break while compaction runs
--   (its cache falls behind, then re-lists), and the other apiserver restarts meanwhile, so
--   informers fail over to the one that is behind;
--   a controller pauses: a slow consumer whose watch leaves the cache's ring (410, re-list);
--   the etcd leader is isolated (a leader change under the apiservers' watches).
-- The kube checks hold every LIST, WATCH stream, informer store and workqueue to etcd's history.
cluster{nodes=3}
workload{profile="kubernetes", clients=4, rate=30, keys=30, watchers=2, compaction=s(4)}
kube{apiservers=2, controllers=3, prefix="/registry/configmaps/", cache=40, writes=10, keys=10}
run_for(s(20))

every(s(5), function()
  local a = random_apiserver()
  kube_crash(a)
  after(ms(1500), function() kube_restart(a) end)
end)

-- One apiserver cut off from etcd long enough for its watch to break, and the other restarted
-- meanwhile (a rolling upgrade during a partition): the informers fail over to the cut-off one,
-- whose cache is behind what they have already seen.
at(s(2), function()
  every(s(9), function()
    local a = random_apiserver()
    local b = a % apiservers() + 1
    kube_cut(a)
    after(ms(5500), function() kube_crash(b) end)
    after(s(7), function() kube_restart(b) end)
    after(ms(7500), function() kube_reconnect(a) end)
    -- Then the etcd leader isolated for a moment: a leader change under the caches' watches. It
    -- comes after the reconnect because heal() restores every link, the apiserver's too.
    after(ms(7600), function()
      local l = leader()
      if l then
        partition{{l}}
        after(ms(1300), function() heal() end)
      end
    end)
  end)
end)

at(s(1), function()
  every(s(6), function()
    local c = random_controller()
    kube_pause(c)
    after(s(4), function() kube_resume(c) end)
  end)
end)


-- What every sweep of this scenario must reach (dst sweep fails otherwise; docs/coverage.md).
must_reach{"kube.informer-relist", "kube.list-waited-for-cache", "kube.update-conflict", "kube.workqueue-retry"}
]]
