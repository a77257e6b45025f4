-- Shrunk by: dst shrink scenarios/swarm.lua --seed 10035 -- --bug commit-old-term
-- The check that fails: raft-invariants: Commit Rule: leader 2 of term 4 committed up to index 172, an entry of term 3, by counting its replicas (Raft §5.4.2 / Figure 8: only an entry of the leader's own term commits that way)
-- reduction: fault steps 22 -> 3 in 24 runs (13.3 s of wall time); 1-minimal
--
-- The fault schedule of scenarios/swarm.lua (4 steps).
-- Replay it:  dst run --schedule THIS_FILE      (the scenario and seed below)
--         or  dst run SCENARIO --seed N --schedule THIS_FILE
-- A replay applies exactly these steps and draws no random fault: steps without a call run at
-- their time `at` (virtual ns); a step with call=K replaces the script's K-th fault call, and a
-- call missing here is skipped. Delete or edit steps to try a smaller schedule; origin="config"
-- steps are the scenario's own configuration and are set by it again (listed, not replayed).
replay{scenario="scenarios/swarm.lua", seed="10035", bug="commit-old-term"}
step{at=1738941384, kind="crash", origin="random", node=1}  -- t=1.739s crash n1
step{at=4500542183, kind="one_way", origin="random", node=2, to=3}  -- t=4.501s one_way n2->n3
step{at=5530982443, kind="bitflip", origin="random", node=1, file="member/wal/0000000000000000-0000000000000001.wal", offset=680, length=10, bits=1}  -- t=5.531s bitflip n1 member/wal/0000000000000000-0000000000000001.wal @680
step{at=21630173031, kind="stop", origin="random"}  -- t=21.630s stop
