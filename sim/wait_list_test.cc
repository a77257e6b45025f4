// Tests of the intrusive wait lists under WaitQueue (Simulator::WaitList): a fiber is in a queue
// exactly while it waits there, whichever way its wait ends. (sync_test.cc covers the WaitQueue
// behaviour seen by its users.)
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/simulator.h"
#include "sim/sync.h"

namespace dst::sim {
namespace {

TEST(WaitList, TimedOutWaiterLeavesTheQueueAtOnce) {
  Simulator sim(1);
  const ProcessId p = sim.start_process(sim.add_host("h"), "p");
  WaitQueue q(sim);
  sim.spawn(p, "w", [&] { EXPECT_EQ(q.wait(milliseconds(1)), WaitResult::kTimeout); });
  sim.run_until(microseconds(500));
  EXPECT_FALSE(q.empty());
  sim.run_until(milliseconds(2));
  EXPECT_TRUE(q.empty());  // no notify needed to clear it
  EXPECT_FALSE(q.notify_one());
}

TEST(WaitList, WaiterLeavingFromTheMiddleKeepsTheOthersInOrder) {
  Simulator sim(1);
  const ProcessId p = sim.start_process(sim.add_host("h"), "p");
  WaitQueue q(sim);
  std::vector<std::string> woke;
  // Queue order a, b, c (spawn order); b times out at 1ms, out of the middle.
  const std::vector<std::pair<std::string, DurationNs>> waiters = {
      {"a", kForever}, {"b", milliseconds(1)}, {"c", kForever}};
  for (const auto& [name, timeout] : waiters) {
    sim.spawn(p, name, [&, name = name, timeout = timeout] {
      if (q.wait(timeout) == WaitResult::kOk) woke.push_back(name);
    });
  }
  for (int i = 0; i < 3; ++i) {
    sim.schedule_at(milliseconds(2 + i), kNoProcess, [&] { q.notify_one(); });
  }
  sim.run_until_idle();
  EXPECT_EQ(woke, (std::vector<std::string>{"a", "c"}));
  EXPECT_TRUE(q.empty());
}

TEST(WaitList, KilledWaiterLeavesTheQueue) {
  Simulator sim(1);
  const ProcessId p = sim.start_process(sim.add_host("h"), "p");
  const ProcessId other = sim.start_process(sim.add_host("h2"), "other");
  WaitQueue q(sim);
  bool survivor_woke = false;
  sim.spawn(other, "doomed", [&] { (void)q.wait(); });
  sim.spawn(p, "survivor", [&] { survivor_woke = q.wait() == WaitResult::kOk; });
  sim.run_until(milliseconds(1));
  sim.kill(other);
  EXPECT_FALSE(q.empty());
  EXPECT_TRUE(q.notify_one());  // the survivor, the only one left
  sim.run_until_idle();
  EXPECT_TRUE(survivor_woke);
  EXPECT_TRUE(q.empty());
}

TEST(WaitList, QueueMayOutliveTheSimulatorThatEndedItsWaits) {
  auto sim = std::make_unique<Simulator>(1);
  const ProcessId p = sim->start_process(sim->add_host("h"), "p");
  auto q = std::make_unique<WaitQueue>(*sim);
  bool unwound = false;
  sim->spawn(p, "w", [&] {
    struct Flag {
      bool* flag;
      ~Flag() { *flag = true; }
    } guard{&unwound};
    (void)q->wait();
  });
  sim->run_until_idle();
  EXPECT_FALSE(q->empty());
  sim.reset();  // kills the process: the waiter unwinds and leaves the queue
  EXPECT_TRUE(unwound);
  EXPECT_TRUE(q->empty());
  q.reset();  // must not touch the dead Simulator
}

}  // namespace
}  // namespace dst::sim
