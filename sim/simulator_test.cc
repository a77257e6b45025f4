// Tests of the scheduler, processes and fibers (sim/simulator.h).
#include "sim/simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/sync.h"

namespace dst::sim {
namespace {

struct World {
  Simulator sim{42};
  HostId host = sim.add_host("h0");
  ProcessId proc = sim.start_process(host, "p0");
};

TEST(Simulator, CallbacksRunInTimeThenInsertionOrder) {
  Simulator sim(1);
  std::vector<int> order;
  sim.schedule_at(milliseconds(5), kNoProcess, [&] { order.push_back(3); });
  sim.schedule_at(milliseconds(1), kNoProcess, [&] { order.push_back(1); });
  sim.schedule_at(milliseconds(5), kNoProcess, [&] { order.push_back(4); });
  sim.schedule_at(milliseconds(1), kNoProcess, [&] {
    order.push_back(2);
    // Scheduled for the current instant: after everything already due now, before later events.
    sim.schedule_at(sim.now(), kNoProcess, [&] { order.push_back(25); });
  });
  sim.run_until_idle();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 25, 3, 4}));
  EXPECT_EQ(sim.now(), milliseconds(5));
  EXPECT_EQ(sim.events_executed(), 5u);
}

// Cancelled events leave stale entries in the queue; they are dropped whenever the heap doubles, so
// the queue stays within about twice the live events however many are cancelled, and what is left
// runs in the same (time, insertion) order.
TEST(Simulator, CancelledEventsDoNotAccumulateAndTheRestKeepTheirOrder) {
  Simulator sim(1);
  std::vector<int> order;
  std::vector<int> expected;
  size_t entries_max = 0;
  for (int i = 0; i < 100'000; ++i) {
    // Times repeat (i % 1000) so that equal times must keep their insertion order.
    const TimeNs at = milliseconds(1 + (i % 1000));
    const EventId id = sim.schedule_at(at, kNoProcess, [&order, i] { order.push_back(i); });
    if (i % 100 == 0) {
      expected.push_back(i);
    } else {
      ASSERT_TRUE(sim.cancel_event(id));
    }
    entries_max = std::max(entries_max, sim.queue_entries());
  }
  EXPECT_EQ(sim.events_pending(), expected.size());
  EXPECT_LE(entries_max, 2 * expected.size() + 1024 + 1);
  sim.run_until_idle();
  std::stable_sort(expected.begin(), expected.end(), [](int a, int b) { return a % 1000 < b % 1000; });
  EXPECT_EQ(order, expected);
}

TEST(Simulator, RunUntilAdvancesClockEvenWhenIdle) {
  Simulator sim(1);
  bool ran = false;
  sim.schedule_at(seconds(2), kNoProcess, [&] { ran = true; });
  sim.run_until(seconds(1));
  EXPECT_FALSE(ran);
  EXPECT_EQ(sim.now(), seconds(1));
  sim.run_until(seconds(3));
  EXPECT_TRUE(ran);
  EXPECT_EQ(sim.now(), seconds(3));
}

TEST(Simulator, CancelledEventNeverRuns) {
  Simulator sim(1);
  bool ran = false;
  EventId id = sim.schedule_after(milliseconds(1), kNoProcess, [&] { ran = true; });
  EXPECT_TRUE(sim.cancel_event(id));
  EXPECT_FALSE(sim.cancel_event(id));
  sim.run_until_idle();
  EXPECT_FALSE(ran);
  EXPECT_EQ(sim.events_pending(), 0u);
}

TEST(Simulator, FiberSleepsInVirtualTime) {
  World w;
  std::vector<TimeNs> woke;
  w.sim.spawn(w.proc, "sleeper", [&] {
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(w.sim.sleep(milliseconds(10)), WaitResult::kOk);
      woke.push_back(w.sim.now());
    }
  });
  w.sim.run_until_idle();
  EXPECT_EQ(woke, (std::vector<TimeNs>{milliseconds(10), milliseconds(20), milliseconds(30)}));
}

TEST(Simulator, FibersInterleaveByTime) {
  World w;
  std::string log;
  w.sim.spawn(w.proc, "a", [&] {
    for (int i = 0; i < 3; ++i) {
      log += 'a';
      w.sim.sleep(milliseconds(2));
    }
  });
  w.sim.spawn(w.proc, "b", [&] {
    for (int i = 0; i < 3; ++i) {
      log += 'b';
      w.sim.sleep(milliseconds(5));
    }
  });
  w.sim.run_until_idle();
  // a at 0,2,4; b at 0,5,10; ties (t=0) in spawn order.
  EXPECT_EQ(log, "abaabb");
}

TEST(Simulator, YieldLetsOtherReadyFibersRun) {
  World w;
  std::string log;
  for (char c : std::string("xy")) {
    w.sim.spawn(w.proc, std::string(1, c), [&, c] {
      for (int i = 0; i < 3; ++i) {
        log += c;
        w.sim.yield();
      }
    });
  }
  w.sim.run_until_idle();
  EXPECT_EQ(log, "xyxyxy");
  EXPECT_EQ(w.sim.now(), 0);
}

struct DestructorFlag {
  bool* flag;
  ~DestructorFlag() { *flag = true; }
};

TEST(Simulator, KillUnwindsFibersAndRunsDestructors) {
  World w;
  bool destroyed = false, after_sleep = false;
  FiberId f = w.sim.spawn(w.proc, "victim", [&] {
    DestructorFlag guard{&destroyed};
    w.sim.sleep(seconds(10));
    after_sleep = true;
  });
  w.sim.run_until(seconds(1));
  EXPECT_TRUE(w.sim.fiber_alive(f));
  w.sim.kill(w.proc);
  EXPECT_TRUE(destroyed);
  EXPECT_FALSE(w.sim.fiber_alive(f));
  w.sim.run_until_idle();
  EXPECT_FALSE(after_sleep);
  EXPECT_FALSE(w.sim.alive(w.proc));
}

// A fiber whose process dies before its start event never runs at all (the sanitizer builds'
// ucontext backend would start the body to unwind it).
TEST(Simulator, AFiberKilledBeforeItStartsNeverRuns) {
  World w;
  bool ran = false;
  FiberId f = w.sim.spawn(w.proc, "never", [&] { ran = true; });
  w.sim.kill(w.proc);
  EXPECT_FALSE(ran);
  EXPECT_FALSE(w.sim.fiber_alive(f));
  w.sim.run_until_idle();
  EXPECT_FALSE(ran);
  // And the same when the simulator itself goes away first.
  bool ran_at_exit = false;
  {
    Simulator sim(7);
    const ProcessId p = sim.start_process(sim.add_host("h"), "p");
    sim.spawn(p, "never", [&] { ran_at_exit = true; });
  }
  EXPECT_FALSE(ran_at_exit);
}

TEST(Simulator, KilledProcessTimersNeverFire) {
  World w;
  int fired = 0;
  w.sim.schedule_after(milliseconds(5), w.proc, [&] { ++fired; });
  w.sim.spawn(w.proc, "sleeper", [&] {
    w.sim.sleep(milliseconds(5));
    ++fired;
  });
  w.sim.run_until(milliseconds(1));
  w.sim.kill(w.proc);
  EXPECT_EQ(w.sim.events_pending(), 0u);
  w.sim.run_until(seconds(1));
  EXPECT_EQ(fired, 0);
  // A world event scheduled for the dead process is refused.
  EXPECT_EQ(w.sim.schedule_after(1, w.proc, [&] { ++fired; }), kNoEvent);
}

TEST(Simulator, FiberCanKillItsOwnProcess) {
  World w;
  bool destroyed = false, continued = false;
  w.sim.spawn(w.proc, "other", [&] {
    DestructorFlag guard{&destroyed};
    w.sim.sleep(seconds(100));
  });
  w.sim.spawn(w.proc, "suicide", [&] {
    w.sim.sleep(milliseconds(1));
    w.sim.kill(w.proc);
    continued = true;
  });
  w.sim.run_until_idle();
  EXPECT_TRUE(destroyed);
  EXPECT_FALSE(continued);
  EXPECT_FALSE(w.sim.alive(w.proc));
}

TEST(Simulator, RestartOnSameHostIsANewProcess) {
  World w;
  w.sim.kill(w.proc);
  ProcessId again = w.sim.start_process(w.host, "p0-again");
  EXPECT_NE(again, w.proc);
  EXPECT_EQ(w.sim.process_on(w.host), again);
  bool ran = false;
  w.sim.spawn(again, "f", [&] { ran = true; });
  w.sim.run_until_idle();
  EXPECT_TRUE(ran);
}

TEST(Simulator, PausedProcessResumesWithTimersShifted) {
  World w;
  std::vector<TimeNs> woke;
  w.sim.spawn(w.proc, "sleeper", [&] {
    w.sim.sleep(milliseconds(100));
    woke.push_back(w.sim.now());
    w.sim.sleep(milliseconds(100));
    woke.push_back(w.sim.now());
  });
  int callback_at = -1;
  w.sim.schedule_at(milliseconds(150), w.proc, [&] { callback_at = static_cast<int>(w.sim.now() / 1'000'000); });
  w.sim.run_until(milliseconds(50));
  w.sim.pause(w.proc);
  w.sim.run_until(milliseconds(80));  // paused for 30ms
  EXPECT_TRUE(woke.empty());
  w.sim.resume(w.proc);
  w.sim.run_until_idle();
  EXPECT_EQ(woke, (std::vector<TimeNs>{milliseconds(130), milliseconds(230)}));
  EXPECT_EQ(callback_at, 180);
}

TEST(Simulator, TimersDueDuringPauseFireAfterResumeShifted) {
  World w;
  TimeNs woke = -1;
  w.sim.spawn(w.proc, "sleeper", [&] {
    w.sim.sleep(milliseconds(10));
    woke = w.sim.now();
  });
  w.sim.run_until(milliseconds(5));
  w.sim.pause(w.proc);
  w.sim.run_until(milliseconds(500));  // the timer came due at 10ms, while paused
  EXPECT_EQ(woke, -1);
  w.sim.resume(w.proc);
  w.sim.run_until_idle();
  EXPECT_EQ(woke, milliseconds(505));  // 10ms + 495ms pause
}

TEST(Simulator, WakeupsArrivingDuringPauseAreDeliveredAtResumeInOrder) {
  World w;
  Channel<int> ch(w.sim);
  std::vector<std::pair<TimeNs, int>> got;
  w.sim.spawn(w.proc, "reader", [&] {
    for (int i = 0; i < 3; ++i) {
      auto [r, v] = ch.recv();
      ASSERT_EQ(r, WaitResult::kOk);
      got.emplace_back(w.sim.now(), *v);
    }
  });
  w.sim.run_until(milliseconds(1));
  w.sim.pause(w.proc);
  for (int i = 0; i < 3; ++i) {
    w.sim.schedule_at(milliseconds(10 + i), kNoProcess, [&, i] { ch.try_send(i); });
  }
  w.sim.run_until(milliseconds(100));
  EXPECT_TRUE(got.empty());
  w.sim.resume(w.proc);
  w.sim.run_until_idle();
  ASSERT_EQ(got.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(got[i].first, milliseconds(100));
    EXPECT_EQ(got[i].second, i);
  }
}

TEST(Simulator, CancelWakesBlockedFiber) {
  World w;
  WaitResult result = WaitResult::kOk;
  WaitResult later = WaitResult::kOk;
  FiberId f = w.sim.spawn(w.proc, "sleeper", [&] {
    result = w.sim.sleep(seconds(100));
    later = w.sim.sleep(seconds(1));  // cancellation is sticky
  });
  w.sim.run_until(seconds(1));
  w.sim.cancel(f);
  w.sim.run_until_idle();
  EXPECT_EQ(result, WaitResult::kCancelled);
  EXPECT_EQ(later, WaitResult::kCancelled);
  EXPECT_EQ(w.sim.now(), seconds(1));
}

TEST(Simulator, JoinWaitsForFiberToFinish) {
  World w;
  TimeNs joined_at = -1;
  FiberId worker = w.sim.spawn(w.proc, "worker", [&] { w.sim.sleep(milliseconds(7)); });
  w.sim.spawn(w.proc, "joiner", [&] {
    EXPECT_EQ(w.sim.join(worker), WaitResult::kOk);
    joined_at = w.sim.now();
    EXPECT_EQ(w.sim.join(worker), WaitResult::kOk);  // already gone: returns at once
  });
  w.sim.run_until_idle();
  EXPECT_EQ(joined_at, milliseconds(7));
}

TEST(Simulator, JoinTimesOut) {
  World w;
  WaitResult r = WaitResult::kOk;
  FiberId worker = w.sim.spawn(w.proc, "worker", [&] { w.sim.sleep(seconds(7)); });
  w.sim.spawn(w.proc, "joiner", [&] { r = w.sim.join(worker, seconds(1)); });
  w.sim.run_until_idle();
  EXPECT_EQ(r, WaitResult::kTimeout);
}

TEST(Simulator, ClockDriftChangesWhenTimersFireInTrueTime) {
  World w;
  w.sim.host(w.host).clock().set_drift_ppm(100'000, 0);  // 10% fast
  TimeNs woke = -1, local = -1;
  w.sim.spawn(w.proc, "sleeper", [&] {
    w.sim.sleep(milliseconds(110));
    woke = w.sim.now();
    local = w.sim.monotonic_now();
  });
  w.sim.run_until_idle();
  EXPECT_EQ(woke, milliseconds(100));
  EXPECT_EQ(local, milliseconds(110));
}

TEST(Simulator, CompleteAtRunsActionEvenIfFiberDied) {
  World w;
  int action_runs = 0;
  Status got;
  w.sim.spawn(w.proc, "waiter", [&] {
    got = w.sim.complete_at(milliseconds(10), EventKind::kDiskIo, 1, [&] {
      ++action_runs;
      return Status(StatusCode::kIoError, "boom");
    });
  });
  w.sim.run_until_idle();
  EXPECT_EQ(action_runs, 1);
  EXPECT_EQ(got.code(), StatusCode::kIoError);

  ProcessId p2 = w.sim.start_process(w.sim.add_host("h1"), "p1");
  w.sim.spawn(p2, "waiter", [&] {
    (void)w.sim.complete_at(w.sim.now() + milliseconds(10), EventKind::kDiskIo, 1, [&] {
      ++action_runs;
      return Status::ok();
    });
  });
  w.sim.run_until(w.sim.now() + milliseconds(1));
  w.sim.kill(p2);
  w.sim.run_until_idle();
  EXPECT_EQ(action_runs, 2);
}

TEST(Simulator, SameSeedSameTraceDifferentSeedDifferentTrace) {
  auto run = [](uint64_t seed) {
    Simulator sim(seed);
    HostId h = sim.add_host("h");
    ProcessId p = sim.start_process(h, "p");
    for (int i = 0; i < 4; ++i) {
      sim.spawn(p, "f" + std::to_string(i), [&sim] {
        for (int j = 0; j < 20; ++j) sim.sleep(sim.rng("sleep").uniform_int(1, 1000));
      });
    }
    sim.run_until_idle();
    return sim.trace().hash();
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}

TEST(SimulatorDeathTest, BlockingOutsideAFiberIsAnError) {
  EXPECT_DEATH(
      {
        Simulator sim(1);
        sim.sleep(1);
      },
      "called outside a fiber");
}

TEST(SimulatorDeathTest, FiberExceptionNamesTheFiber) {
  EXPECT_DEATH(
      {
        World w;
        w.sim.spawn(w.proc, "thrower", [] { throw std::runtime_error("kaput"); });
        w.sim.run_until_idle();
      },
      "fiber 'thrower' threw: kaput");
}

}  // namespace
}  // namespace dst::sim

namespace dst::sim {
namespace {

// Two fibers waking each other: in a run loop the blocking fiber hands the CPU to the woken one.
// The order of events (and so the trace) must be exactly what single steps give.
uint64_t ping_pong_hash(bool single_steps, uint64_t* events) {
  Simulator sim(11);
  const ProcessId p = sim.start_process(sim.add_host("h"), "p");
  WaitQueue ping(sim), pong(sim);
  sim.spawn(p, "ponger", [&] {
    while (ping.wait() == WaitResult::kOk) pong.notify_one();
  });
  sim.spawn(p, "pinger", [&] {
    sim.yield();
    for (int i = 0; i < 100; ++i) {
      ping.notify_one();
      pong.wait();
      if (i % 10 == 0) sim.sleep(microseconds(5));
    }
  });
  if (single_steps) {
    uint64_t before = sim.events_executed();
    while (sim.step()) {
      EXPECT_LE(sim.events_executed(), before + 1) << "a single step ran more than one event";
      before = sim.events_executed();
    }
  } else {
    sim.run_until_idle();
  }
  *events = sim.events_executed();
  return sim.trace().hash();
}

TEST(Simulator, HandOffBetweenFibersKeepsTheEventOrder) {
  uint64_t stepped_events = 0, run_events = 0;
  const uint64_t stepped = ping_pong_hash(true, &stepped_events);
  const uint64_t run = ping_pong_hash(false, &run_events);
  EXPECT_EQ(stepped, run);
  EXPECT_EQ(stepped_events, run_events);
  EXPECT_GT(run_events, 200u);
}

TEST(Simulator, StopInsideAFiberEndsTheRunLoopEvenAmidHandOffs) {
  Simulator sim(1);
  const ProcessId p = sim.start_process(sim.add_host("h"), "p");
  WaitQueue ping(sim), pong(sim);
  int rounds = 0;
  sim.spawn(p, "ponger", [&] {
    while (ping.wait() == WaitResult::kOk) pong.notify_one();
  });
  sim.spawn(p, "pinger", [&] {
    sim.yield();
    while (true) {
      ping.notify_one();
      if (pong.wait() != WaitResult::kOk) return;
      if (++rounds % 5 == 0) sim.stop();
    }
  });
  sim.run_until_idle();
  EXPECT_EQ(rounds, 5);
  sim.run_until_idle();
  EXPECT_EQ(rounds, 10);
  sim.kill(p);
}

}  // namespace
}  // namespace dst::sim
