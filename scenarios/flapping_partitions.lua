-- Flapping partitions: a new random split every 300-900 ms, healed in between half the time.
-- Elections never settle for long; streams break and reconnect; watchers resume from their last
-- revision. Probes term handling, pre-vote and check-quorum, and watch resumption.
cluster{nodes=3}
workload{profile="etcd-kv", clients=4, rate=50, watchers=3}
run_for(s(20))

local function flap()
  if math.random() < 0.5 then
    heal()
  else
    local a = random_node()
    local b = a % nodes() + 1
    if math.random() < 0.5 then partition{{a}} else partition{{a, b}} end
  end
  after(ms(300 + math.random(0, 600)), flap)
end
at(s(1), flap)
