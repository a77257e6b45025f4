// Tests of the fiber synchronisation primitives (sim/sync.h): WaitQueue, Event, Channel and
// Promise/Future, including timeouts, cancellation, process kills and destruction with waiters.
#include "sim/sync.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/simulator.h"

namespace dst::sim {
namespace {

// One host with one process, plus a second host and process for cross-process tests.
struct SyncWorld {
  Simulator sim{42};
  HostId host = sim.add_host("h0");
  ProcessId proc = sim.start_process(host, "p0");
  HostId host2 = sim.add_host("h1");
  ProcessId proc2 = sim.start_process(host2, "p1");
};

// What one fiber saw when a wait ended.
struct Woke {
  std::string who;
  WaitResult result;
  TimeNs at;
  bool operator==(const Woke&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Woke& w) {
  return os << "{" << w.who << ", " << wait_result_name(w.result) << ", " << format_time(w.at) << "}";
}

struct SyncDestructorFlag {
  bool* flag;
  ~SyncDestructorFlag() { *flag = true; }
};

// ---------------------------------------------------------------------------------------------
// WaitQueue

TEST(WaitQueue, NotifyOneWakesWaitersInFifoOrder) {
  SyncWorld w;
  WaitQueue q(w.sim);
  std::vector<Woke> log;
  // Waiters queue at 0, 1ms, 2ms in the order c, a, b (spawn order is not queue order).
  const std::vector<std::pair<std::string, DurationNs>> waiters = {
      {"a", milliseconds(1)}, {"b", milliseconds(2)}, {"c", 0}};
  for (const auto& [name, delay] : waiters) {
    w.sim.spawn(w.proc, name, [&, name = name, delay = delay] {
      if (delay > 0) w.sim.sleep(delay);
      const WaitResult r = q.wait();
      log.push_back({name, r, w.sim.now()});
    });
  }
  std::vector<bool> notified;
  for (int i = 0; i < 4; ++i) {
    w.sim.schedule_at(milliseconds(10 * (i + 1)), kNoProcess, [&] { notified.push_back(q.notify_one()); });
  }
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"c", WaitResult::kOk, milliseconds(10)},
                                    {"a", WaitResult::kOk, milliseconds(20)},
                                    {"b", WaitResult::kOk, milliseconds(30)}}));
  EXPECT_EQ(notified, (std::vector<bool>{true, true, true, false}));  // nobody left for the 4th
  EXPECT_TRUE(q.empty());
}

TEST(WaitQueue, NotifyOnePassesOverTimedOutWaiterToALaterOne) {
  SyncWorld w;
  WaitQueue q(w.sim);
  std::vector<Woke> log;
  w.sim.spawn(w.proc, "impatient", [&] {
    const WaitResult r = q.wait(milliseconds(5));
    log.push_back({"impatient", r, w.sim.now()});
  });
  w.sim.spawn(w.proc, "patient", [&] {
    w.sim.sleep(milliseconds(1));  // queues behind the impatient one
    const WaitResult r = q.wait(seconds(100));
    log.push_back({"patient", r, w.sim.now()});
  });
  bool woke_someone = false;
  w.sim.schedule_at(milliseconds(10), kNoProcess, [&] { woke_someone = q.notify_one(); });
  w.sim.run_until_idle();
  // The stale ticket at the front must not swallow the notification.
  EXPECT_TRUE(woke_someone);
  EXPECT_EQ(log, (std::vector<Woke>{{"impatient", WaitResult::kTimeout, milliseconds(5)},
                                    {"patient", WaitResult::kOk, milliseconds(10)}}));
}

TEST(WaitQueue, NotifyOneOnlyTimedOutWaitersReturnsFalse) {
  SyncWorld w;
  WaitQueue q(w.sim);
  for (int i = 0; i < 3; ++i) {
    w.sim.spawn(w.proc, "w" + std::to_string(i), [&] { EXPECT_EQ(q.wait(milliseconds(1)), WaitResult::kTimeout); });
  }
  w.sim.run_until(milliseconds(2));
  EXPECT_FALSE(q.notify_one());
  EXPECT_TRUE(q.empty());
}

TEST(WaitQueue, RewaitingFiberGetsTheNotificationOnlyOnce) {
  SyncWorld w;
  WaitQueue q(w.sim);
  std::vector<Woke> log;
  // One fiber times out and waits again; its old ticket is stale, its new one live.
  w.sim.spawn(w.proc, "again", [&] {
    log.push_back({"again", q.wait(milliseconds(2)), w.sim.now()});
    log.push_back({"again", q.wait(), w.sim.now()});
  });
  w.sim.spawn(w.proc, "other", [&] {
    w.sim.sleep(milliseconds(1));
    log.push_back({"other", q.wait(), w.sim.now()});
  });
  w.sim.schedule_at(milliseconds(10), kNoProcess, [&] { EXPECT_TRUE(q.notify_one()); });
  w.sim.schedule_at(milliseconds(20), kNoProcess, [&] { EXPECT_TRUE(q.notify_one()); });
  w.sim.run_until_idle();
  // "other" queued at 1ms, before "again" re-queued at 2ms.
  EXPECT_EQ(log, (std::vector<Woke>{{"again", WaitResult::kTimeout, milliseconds(2)},
                                    {"other", WaitResult::kOk, milliseconds(10)},
                                    {"again", WaitResult::kOk, milliseconds(20)}}));
}

TEST(WaitQueue, ManyTimedOutWaitsDoNotLoseALiveWaiter) {
  SyncWorld w;
  WaitQueue q(w.sim);
  int timeouts = 0;
  w.sim.spawn(w.proc, "churn", [&] {
    for (int i = 0; i < 500; ++i) {
      if (q.wait(microseconds(10)) == WaitResult::kTimeout) ++timeouts;
    }
  });
  std::optional<Woke> live;
  w.sim.spawn(w.proc, "live", [&] {
    w.sim.sleep(microseconds(2505));  // in the middle of the churn: compactions happen around it
    live = Woke{"live", q.wait(), w.sim.now()};
  });
  w.sim.schedule_at(milliseconds(20), kNoProcess, [&] { EXPECT_TRUE(q.notify_one()); });
  w.sim.run_until_idle();
  EXPECT_EQ(timeouts, 500);
  ASSERT_TRUE(live.has_value());
  EXPECT_EQ(*live, (Woke{"live", WaitResult::kOk, milliseconds(20)}));
}

TEST(WaitQueue, NotifyAllWakesEveryWaiterWithTheGivenResult) {
  SyncWorld w;
  WaitQueue q(w.sim);
  std::vector<Woke> log;
  for (const char* name : {"a", "b", "c"}) {
    w.sim.spawn(w.proc, name, [&, name] { log.push_back({name, q.wait(), w.sim.now()}); });
  }
  w.sim.schedule_at(milliseconds(3), kNoProcess, [&] { q.notify_all(WaitResult::kClosed); });
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"a", WaitResult::kClosed, milliseconds(3)},
                                    {"b", WaitResult::kClosed, milliseconds(3)},
                                    {"c", WaitResult::kClosed, milliseconds(3)}}));
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.notify_one());
}

TEST(WaitQueue, WokenFiberRunsAfterTheNotifierYields) {
  SyncWorld w;
  WaitQueue q(w.sim);
  std::string log;
  w.sim.spawn(w.proc, "waiter", [&] {
    q.wait();
    log += "W";
  });
  w.sim.spawn(w.proc, "notifier", [&] {
    log += "n";
    q.notify_one();
    log += "N";  // the notifier keeps running; the waiter resumes through the event queue
  });
  w.sim.run_until_idle();
  EXPECT_EQ(log, "nNW");
  EXPECT_EQ(w.sim.now(), 0);
}

TEST(WaitQueue, DestroyedQueueWakesWaitersWithClosed) {
  SyncWorld w;
  auto q = std::make_unique<WaitQueue>(w.sim);
  std::vector<Woke> log;
  for (const char* name : {"a", "b"}) {
    w.sim.spawn(w.proc, name, [&, name, queue = q.get()] {
      log.push_back({name, queue->wait(seconds(10)), w.sim.now()});
    });
  }
  w.sim.schedule_at(milliseconds(4), kNoProcess, [&] { q.reset(); });
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"a", WaitResult::kClosed, milliseconds(4)},
                                    {"b", WaitResult::kClosed, milliseconds(4)}}));
}

TEST(WaitQueue, TimeoutCountsOnTheHostMonotonicClock) {
  SyncWorld w;
  w.sim.host(w.host).clock().set_drift_ppm(100'000, 0);  // 10% fast: 110ms local = 100ms true
  WaitQueue q(w.sim);
  TimeNs timed_out_at = -1;
  w.sim.spawn(w.proc, "waiter", [&] {
    EXPECT_EQ(q.wait(milliseconds(110)), WaitResult::kTimeout);
    timed_out_at = w.sim.now();
  });
  w.sim.run_until_idle();
  EXPECT_EQ(timed_out_at, milliseconds(100));
}

TEST(WaitQueue, CancelledWaiterGetsCancelledAndIsSkipped) {
  SyncWorld w;
  WaitQueue q(w.sim);
  std::vector<Woke> log;
  const FiberId victim = w.sim.spawn(w.proc, "victim", [&] { log.push_back({"victim", q.wait(), w.sim.now()}); });
  w.sim.spawn(w.proc, "other", [&] {
    w.sim.sleep(milliseconds(1));
    log.push_back({"other", q.wait(), w.sim.now()});
  });
  w.sim.schedule_at(milliseconds(2), kNoProcess, [&] { w.sim.cancel(victim); });
  w.sim.schedule_at(milliseconds(3), kNoProcess, [&] { EXPECT_TRUE(q.notify_one()); });
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"victim", WaitResult::kCancelled, milliseconds(2)},
                                    {"other", WaitResult::kOk, milliseconds(3)}}));
}

// ---------------------------------------------------------------------------------------------
// Event

TEST(Event, SetWakesAllWaitersAndLaterWaitsReturnAtOnce) {
  SyncWorld w;
  Event ev(w.sim);
  std::vector<Woke> log;
  for (const char* name : {"a", "b"}) {
    w.sim.spawn(w.proc, name, [&, name] { log.push_back({name, ev.wait(), w.sim.now()}); });
  }
  w.sim.spawn(w.proc, "late", [&] {
    w.sim.sleep(milliseconds(20));
    log.push_back({"late", ev.wait(milliseconds(1)), w.sim.now()});
  });
  EXPECT_FALSE(ev.is_set());
  w.sim.schedule_at(milliseconds(7), kNoProcess, [&] { ev.set(); });
  w.sim.run_until_idle();
  EXPECT_TRUE(ev.is_set());
  EXPECT_EQ(log, (std::vector<Woke>{{"a", WaitResult::kOk, milliseconds(7)},
                                    {"b", WaitResult::kOk, milliseconds(7)},
                                    {"late", WaitResult::kOk, milliseconds(20)}}));
}

TEST(Event, ResetMakesWaitBlockUntilTimeout) {
  SyncWorld w;
  Event ev(w.sim);
  ev.set();
  ev.reset();
  EXPECT_FALSE(ev.is_set());
  std::vector<Woke> log;
  w.sim.spawn(w.proc, "waiter", [&] {
    log.push_back({"waiter", ev.wait(milliseconds(5)), w.sim.now()});
    log.push_back({"waiter", ev.wait(milliseconds(50)), w.sim.now()});
  });
  w.sim.schedule_at(milliseconds(30), kNoProcess, [&] { ev.set(); });
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"waiter", WaitResult::kTimeout, milliseconds(5)},
                                    {"waiter", WaitResult::kOk, milliseconds(30)}}));
}

TEST(Event, TimeoutIsMeasuredOnceAcrossSpuriousWakeups) {
  SyncWorld w;
  Event ev(w.sim);
  TimeNs returned_at = -1;
  WaitResult result = WaitResult::kOk;
  w.sim.spawn(w.proc, "waiter", [&] {
    result = ev.wait(milliseconds(10));
    returned_at = w.sim.now();
  });
  // A pulse: set and reset before the woken waiter runs, so it finds the flag clear and waits on.
  w.sim.schedule_at(milliseconds(4), kNoProcess, [&] {
    ev.set();
    ev.reset();
  });
  w.sim.run_until_idle();
  EXPECT_EQ(result, WaitResult::kTimeout);
  EXPECT_EQ(returned_at, milliseconds(10));  // not 4ms + 10ms
}

// ---------------------------------------------------------------------------------------------
// Channel

TEST(Channel, RecvReturnsItemsInSendOrder) {
  SyncWorld w;
  Channel<std::string> ch(w.sim);
  std::vector<std::pair<TimeNs, std::string>> got;
  w.sim.spawn(w.proc, "reader", [&] {
    for (int i = 0; i < 5; ++i) {
      auto [r, v] = ch.recv();
      ASSERT_EQ(r, WaitResult::kOk);
      got.emplace_back(w.sim.now(), *v);
    }
  });
  w.sim.spawn(w.proc, "writer", [&] {
    EXPECT_EQ(ch.send("a"), WaitResult::kOk);
    EXPECT_EQ(ch.send("b"), WaitResult::kOk);
    w.sim.sleep(milliseconds(3));
    EXPECT_EQ(ch.send("c"), WaitResult::kOk);
    EXPECT_EQ(ch.send("d"), WaitResult::kOk);
    EXPECT_EQ(ch.send("e"), WaitResult::kOk);
  });
  w.sim.run_until_idle();
  EXPECT_EQ(got, (std::vector<std::pair<TimeNs, std::string>>{
                     {0, "a"}, {0, "b"}, {milliseconds(3), "c"}, {milliseconds(3), "d"}, {milliseconds(3), "e"}}));
  EXPECT_EQ(ch.size(), 0u);
}

TEST(Channel, FullChannelBlocksSenderUntilAReceiverTakesAnItem) {
  SyncWorld w;
  Channel<int> ch(w.sim, 2);
  EXPECT_EQ(ch.capacity(), 2u);
  std::vector<std::pair<int, TimeNs>> sent;  // (value, when send returned)
  std::vector<std::pair<int, TimeNs>> received;
  w.sim.spawn(w.proc, "writer", [&] {
    for (int i = 0; i < 5; ++i) {
      ASSERT_EQ(ch.send(i), WaitResult::kOk);
      sent.emplace_back(i, w.sim.now());
    }
  });
  w.sim.spawn(w.proc, "reader", [&] {
    for (int i = 0; i < 5; ++i) {
      w.sim.sleep(milliseconds(10));
      EXPECT_EQ(ch.size(), i < 4 ? 2u : 1u);  // the writer refills each freed slot at once
      auto [r, v] = ch.recv();
      ASSERT_EQ(r, WaitResult::kOk);
      received.emplace_back(*v, w.sim.now());
    }
  });
  w.sim.run_until_idle();
  // Two fit at once; each later send completes when the reader frees a slot (every 10ms).
  EXPECT_EQ(sent, (std::vector<std::pair<int, TimeNs>>{
                      {0, 0}, {1, 0}, {2, milliseconds(10)}, {3, milliseconds(20)}, {4, milliseconds(30)}}));
  EXPECT_EQ(received, (std::vector<std::pair<int, TimeNs>>{{0, milliseconds(10)},
                                                           {1, milliseconds(20)},
                                                           {2, milliseconds(30)},
                                                           {3, milliseconds(40)},
                                                           {4, milliseconds(50)}}));
}

TEST(Channel, BlockedSendersResumeInFifoOrder) {
  SyncWorld w;
  Channel<std::string> ch(w.sim, 1);
  ASSERT_TRUE(ch.try_send("first"));
  std::vector<Woke> log;
  for (const char* name : {"s1", "s2", "s3"}) {
    w.sim.spawn(w.proc, name, [&, name] { log.push_back({name, ch.send(name), w.sim.now()}); });
  }
  std::vector<std::string> got;
  for (int i = 1; i <= 4; ++i) {
    w.sim.schedule_at(milliseconds(i), kNoProcess, [&] { got.push_back(*ch.try_recv()); });
  }
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"s1", WaitResult::kOk, milliseconds(1)},
                                    {"s2", WaitResult::kOk, milliseconds(2)},
                                    {"s3", WaitResult::kOk, milliseconds(3)}}));
  EXPECT_EQ(got, (std::vector<std::string>{"first", "s1", "s2", "s3"}));
}

TEST(Channel, TrySendAndTryRecvNeverBlock) {
  SyncWorld w;
  Channel<int> ch(w.sim, 2);
  EXPECT_FALSE(ch.try_recv().has_value());
  EXPECT_TRUE(ch.try_send(1));
  EXPECT_TRUE(ch.try_send(2));
  EXPECT_FALSE(ch.try_send(3));  // full
  EXPECT_EQ(ch.size(), 2u);
  EXPECT_EQ(ch.try_recv(), std::optional<int>(1));
  EXPECT_TRUE(ch.try_send(3));
  EXPECT_EQ(ch.try_recv(), std::optional<int>(2));
  EXPECT_EQ(ch.try_recv(), std::optional<int>(3));
  EXPECT_FALSE(ch.try_recv().has_value());
  ch.close();
  EXPECT_TRUE(ch.closed());
  EXPECT_FALSE(ch.try_send(4));  // closed, though there is room
  EXPECT_EQ(ch.size(), 0u);
}

TEST(Channel, TrySendWakesABlockedReceiverAndTryRecvABlockedSender) {
  SyncWorld w;
  Channel<int> ch(w.sim, 1);
  std::vector<Woke> log;
  std::optional<int> got;
  w.sim.spawn(w.proc, "reader", [&] {
    auto [r, v] = ch.recv();
    got = v;
    log.push_back({"reader", r, w.sim.now()});
    // Now fill the channel and block on a second send until the world drains it.
    ch.send(10);
    log.push_back({"reader-send", ch.send(11), w.sim.now()});
  });
  w.sim.schedule_at(milliseconds(2), kNoProcess, [&] { EXPECT_TRUE(ch.try_send(7)); });
  std::optional<int> drained;
  w.sim.schedule_at(milliseconds(5), kNoProcess, [&] { drained = ch.try_recv(); });
  w.sim.run_until_idle();
  EXPECT_EQ(got, std::optional<int>(7));
  EXPECT_EQ(drained, std::optional<int>(10));
  EXPECT_EQ(log, (std::vector<Woke>{{"reader", WaitResult::kOk, milliseconds(2)},
                                    {"reader-send", WaitResult::kOk, milliseconds(5)}}));
  EXPECT_EQ(ch.try_recv(), std::optional<int>(11));
}

TEST(Channel, OneItemWakesOnlyOneOfSeveralReaders) {
  SyncWorld w;
  Channel<int> ch(w.sim);
  std::vector<Woke> log;
  for (const char* name : {"a", "b", "c"}) {
    w.sim.spawn(w.proc, name, [&, name] {
      auto [r, v] = ch.recv(milliseconds(50));
      log.push_back({name, r, w.sim.now()});
    });
  }
  w.sim.schedule_at(milliseconds(5), kNoProcess, [&] { ch.try_send(1); });
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"a", WaitResult::kOk, milliseconds(5)},
                                    {"b", WaitResult::kTimeout, milliseconds(50)},
                                    {"c", WaitResult::kTimeout, milliseconds(50)}}));
}

TEST(Channel, CloseWakesBlockedReadersAndWriters) {
  SyncWorld w;
  Channel<int> empty(w.sim);
  Channel<int> full(w.sim, 1);
  ASSERT_TRUE(full.try_send(0));
  std::vector<Woke> log;
  for (const char* name : {"r1", "r2"}) {
    w.sim.spawn(w.proc, name, [&, name] {
      auto [r, v] = empty.recv();
      EXPECT_FALSE(v.has_value());
      log.push_back({name, r, w.sim.now()});
    });
  }
  for (const char* name : {"w1", "w2"}) {
    w.sim.spawn(w.proc, name, [&, name] { log.push_back({name, full.send(1), w.sim.now()}); });
  }
  w.sim.schedule_at(milliseconds(8), kNoProcess, [&] {
    empty.close();
    full.close();
  });
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"r1", WaitResult::kClosed, milliseconds(8)},
                                    {"r2", WaitResult::kClosed, milliseconds(8)},
                                    {"w1", WaitResult::kClosed, milliseconds(8)},
                                    {"w2", WaitResult::kClosed, milliseconds(8)}}));
  // The item sent before the close is still there; the blocked sends added nothing.
  EXPECT_EQ(full.size(), 1u);
}

TEST(Channel, ReadersDrainRemainingItemsBeforeClosed) {
  SyncWorld w;
  Channel<int> ch(w.sim);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ch.try_send(i));
  ch.close();
  std::vector<std::pair<WaitResult, std::optional<int>>> got;
  WaitResult send_after_close = WaitResult::kOk;
  w.sim.spawn(w.proc, "reader", [&] {
    send_after_close = ch.send(99);
    for (int i = 0; i < 5; ++i) got.push_back(ch.recv());
  });
  w.sim.run_until_idle();
  EXPECT_EQ(send_after_close, WaitResult::kClosed);
  using P = std::pair<WaitResult, std::optional<int>>;
  EXPECT_EQ(got, (std::vector<P>{{WaitResult::kOk, 0},
                                 {WaitResult::kOk, 1},
                                 {WaitResult::kOk, 2},
                                 {WaitResult::kClosed, std::nullopt},
                                 {WaitResult::kClosed, std::nullopt}}));
  EXPECT_EQ(w.sim.now(), 0);  // nothing blocked
}

TEST(Channel, RecvTimesOutAtTheDeadline) {
  SyncWorld w;
  Channel<int> ch(w.sim);
  std::vector<Woke> log;
  w.sim.spawn(w.proc, "reader", [&] {
    w.sim.sleep(milliseconds(3));
    auto [r, v] = ch.recv(milliseconds(25));
    EXPECT_FALSE(v.has_value());
    log.push_back({"recv", r, w.sim.now()});
    // A zero timeout polls: an item present is returned, none is kTimeout at once.
    ASSERT_TRUE(ch.try_send(5));
    auto [r2, v2] = ch.recv(0);
    EXPECT_EQ(v2, std::optional<int>(5));
    log.push_back({"poll-hit", r2, w.sim.now()});
    auto [r3, v3] = ch.recv(0);
    log.push_back({"poll-miss", r3, w.sim.now()});
  });
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"recv", WaitResult::kTimeout, milliseconds(28)},
                                    {"poll-hit", WaitResult::kOk, milliseconds(28)},
                                    {"poll-miss", WaitResult::kTimeout, milliseconds(28)}}));
}

TEST(Channel, SendTimesOutWhenFull) {
  SyncWorld w;
  Channel<int> ch(w.sim, 1);
  ASSERT_TRUE(ch.try_send(1));
  std::optional<Woke> woke;
  w.sim.spawn(w.proc, "writer", [&] { woke = Woke{"writer", ch.send(2, milliseconds(12)), w.sim.now()}; });
  w.sim.run_until_idle();
  ASSERT_TRUE(woke.has_value());
  EXPECT_EQ(*woke, (Woke{"writer", WaitResult::kTimeout, milliseconds(12)}));
  EXPECT_EQ(ch.size(), 1u);
  EXPECT_EQ(ch.try_recv(), std::optional<int>(1));
}

TEST(Channel, RecvTimeoutIsMeasuredOnceAcrossSpuriousWakeups) {
  SyncWorld w;
  Channel<int> ch(w.sim);
  std::optional<Woke> woke;
  w.sim.spawn(w.proc, "reader", [&] {
    auto [r, v] = ch.recv(milliseconds(10));
    EXPECT_FALSE(v.has_value());
    woke = Woke{"reader", r, w.sim.now()};
  });
  // Each callback wakes the reader with an item and steals the item before the reader runs.
  for (int t : {2, 5, 9}) {
    w.sim.schedule_at(milliseconds(t), kNoProcess, [&ch, t] {
      ASSERT_TRUE(ch.try_send(t));
      ASSERT_EQ(ch.try_recv(), std::optional<int>(t));
    });
  }
  w.sim.run_until_idle();
  ASSERT_TRUE(woke.has_value());
  EXPECT_EQ(*woke, (Woke{"reader", WaitResult::kTimeout, milliseconds(10)}));  // not 9ms + 10ms
}

TEST(Channel, CancelledReceiverAndSenderGetCancelled) {
  SyncWorld w;
  Channel<int> empty(w.sim);
  Channel<int> full(w.sim, 1);
  ASSERT_TRUE(full.try_send(0));
  std::vector<Woke> log;
  const FiberId reader = w.sim.spawn(w.proc, "reader", [&] {
    auto [r, v] = empty.recv();
    log.push_back({"reader", r, w.sim.now()});
  });
  const FiberId writer = w.sim.spawn(w.proc, "writer", [&] { log.push_back({"writer", full.send(1), w.sim.now()}); });
  w.sim.schedule_at(milliseconds(6), kNoProcess, [&] {
    w.sim.cancel(reader);
    w.sim.cancel(writer);
  });
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"reader", WaitResult::kCancelled, milliseconds(6)},
                                    {"writer", WaitResult::kCancelled, milliseconds(6)}}));
  // Both channels still work for others, and the cancelled waits left no state behind.
  EXPECT_EQ(full.size(), 1u);
  std::vector<Woke> after;
  w.sim.spawn(w.proc, "reader2", [&] {
    auto [r, v] = empty.recv();
    EXPECT_EQ(v, std::optional<int>(3));
    after.push_back({"reader2", r, w.sim.now()});
  });
  w.sim.schedule_at(milliseconds(7), kNoProcess, [&] { EXPECT_TRUE(empty.try_send(3)); });
  w.sim.run_until_idle();
  EXPECT_EQ(after, (std::vector<Woke>{{"reader2", WaitResult::kOk, milliseconds(7)}}));
}

TEST(Channel, KilledProcessWaitingOnAnotherProcessesChannelLeavesItUsable) {
  SyncWorld w;
  // The channels belong to process p0 (they live in this test, used by p0's fibers); p1's fibers
  // block on them and p1 is killed while they wait.
  Channel<int> inbox(w.sim);
  Channel<int> full(w.sim, 1);
  ASSERT_TRUE(full.try_send(100));
  bool reader_unwound = false, writer_unwound = false, reader_returned = false;
  w.sim.spawn(w.proc2, "doomed-reader", [&] {
    SyncDestructorFlag guard{&reader_unwound};
    (void)inbox.recv();
    reader_returned = true;
  });
  w.sim.spawn(w.proc2, "doomed-writer", [&] {
    SyncDestructorFlag guard{&writer_unwound};
    (void)full.send(200);
  });
  std::vector<std::pair<int, TimeNs>> got;
  w.sim.spawn(w.proc, "survivor", [&] {
    w.sim.sleep(milliseconds(1));  // queues behind the doomed reader
    for (int i = 0; i < 2; ++i) {
      auto [r, v] = inbox.recv();
      ASSERT_EQ(r, WaitResult::kOk);
      got.emplace_back(*v, w.sim.now());
    }
  });
  w.sim.run_until(milliseconds(5));
  w.sim.kill(w.proc2);
  EXPECT_TRUE(reader_unwound);
  EXPECT_TRUE(writer_unwound);
  w.sim.schedule_at(milliseconds(10), kNoProcess, [&] { EXPECT_TRUE(inbox.try_send(1)); });
  w.sim.spawn(w.proc, "sender", [&] {
    w.sim.sleep(milliseconds(10));  // spawned at 5ms: sends at 15ms
    EXPECT_EQ(inbox.send(2), WaitResult::kOk);
    // The killed writer's send never happened: the full channel still holds its one item,
    // and a slot freed now goes to a live sender.
    EXPECT_EQ(full.try_recv(), std::optional<int>(100));
    EXPECT_EQ(full.send(300, 0), WaitResult::kOk);
  });
  w.sim.run_until_idle();
  EXPECT_FALSE(reader_returned);
  EXPECT_EQ(got, (std::vector<std::pair<int, TimeNs>>{{1, milliseconds(10)}, {2, milliseconds(15)}}));
  EXPECT_EQ(full.try_recv(), std::optional<int>(300));
}

TEST(Channel, DestroyedChannelWakesWaitersWithClosed) {
  SyncWorld w;
  auto ch = std::make_unique<Channel<int>>(w.sim, 1);
  auto full = std::make_unique<Channel<int>>(w.sim, 1);
  ASSERT_TRUE(full->try_send(1));
  std::vector<Woke> log;
  w.sim.spawn(w.proc, "reader", [&, c = ch.get()] {
    auto [r, v] = c->recv();
    log.push_back({"reader", r, w.sim.now()});
  });
  w.sim.spawn(w.proc, "writer", [&, c = full.get()] { log.push_back({"writer", c->send(2), w.sim.now()}); });
  w.sim.schedule_at(milliseconds(3), kNoProcess, [&] {
    ch.reset();
    full.reset();
  });
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"reader", WaitResult::kClosed, milliseconds(3)},
                                    {"writer", WaitResult::kClosed, milliseconds(3)}}));
}

TEST(Channel, MoveOnlyItems) {
  SyncWorld w;
  Channel<std::unique_ptr<int>> ch(w.sim, 2);
  int got = 0;
  w.sim.spawn(w.proc, "reader", [&] {
    auto [r, v] = ch.recv();
    ASSERT_EQ(r, WaitResult::kOk);
    got = **v;
  });
  w.sim.spawn(w.proc, "writer", [&] { EXPECT_EQ(ch.send(std::make_unique<int>(42)), WaitResult::kOk); });
  w.sim.run_until_idle();
  EXPECT_EQ(got, 42);
}

// ---------------------------------------------------------------------------------------------
// Promise / Future

TEST(Promise, GetBlocksUntilSet) {
  SyncWorld w;
  Promise<std::string> p(w.sim);
  Future<std::string> f = p.future();
  EXPECT_FALSE(f.ready());
  EXPECT_FALSE(p.fulfilled());
  std::vector<std::pair<TimeNs, std::string>> got;
  for (int i = 0; i < 2; ++i) {
    w.sim.spawn(w.proc, "getter", [&, f]() mutable {
      auto [r, v] = f.get();
      ASSERT_EQ(r, WaitResult::kOk);
      got.emplace_back(w.sim.now(), *v);
    });
  }
  w.sim.schedule_at(milliseconds(9), kNoProcess, [&] { p.set("value"); });
  w.sim.run_until_idle();
  EXPECT_TRUE(f.ready());
  EXPECT_TRUE(p.fulfilled());
  EXPECT_EQ(got, (std::vector<std::pair<TimeNs, std::string>>{{milliseconds(9), "value"},
                                                              {milliseconds(9), "value"}}));
}

TEST(Promise, GetAfterSetReturnsAtOnce) {
  SyncWorld w;
  Promise<int> p(w.sim);
  p.set(5);
  Future<int> f = p.future();  // a future taken after the value is set sees it too
  std::optional<Woke> woke;
  std::optional<int> value;
  w.sim.spawn(w.proc, "getter", [&] {
    w.sim.sleep(milliseconds(2));
    auto [r, v] = f.get(0);
    value = v;
    woke = Woke{"getter", r, w.sim.now()};
  });
  w.sim.run_until_idle();
  EXPECT_EQ(value, std::optional<int>(5));
  EXPECT_EQ(*woke, (Woke{"getter", WaitResult::kOk, milliseconds(2)}));
}

TEST(Promise, GetTimesOutThenSucceedsOnceSet) {
  SyncWorld w;
  Promise<int> p(w.sim);
  Future<int> f = p.future();
  std::vector<Woke> log;
  std::optional<int> value;
  w.sim.spawn(w.proc, "getter", [&] {
    auto [r1, v1] = f.get(milliseconds(10));
    EXPECT_FALSE(v1.has_value());
    log.push_back({"first", r1, w.sim.now()});
    auto [r2, v2] = f.get(milliseconds(100));
    value = v2;
    log.push_back({"second", r2, w.sim.now()});
  });
  w.sim.schedule_at(milliseconds(30), kNoProcess, [&] { p.set(7); });
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"first", WaitResult::kTimeout, milliseconds(10)},
                                    {"second", WaitResult::kOk, milliseconds(30)}}));
  EXPECT_EQ(value, std::optional<int>(7));
}

TEST(Promise, DestroyedUnfulfilledPromiseBreaksTheFuture) {
  SyncWorld w;
  auto p = std::make_unique<Promise<int>>(w.sim);
  Future<int> f = p->future();
  std::vector<Woke> log;
  w.sim.spawn(w.proc, "getter", [&] {
    auto [r, v] = f.get();
    EXPECT_FALSE(v.has_value());
    log.push_back({"blocked", r, w.sim.now()});
    auto [r2, v2] = f.get(seconds(1));  // stays broken, returns at once
    log.push_back({"again", r2, w.sim.now()});
  });
  w.sim.schedule_at(milliseconds(4), kNoProcess, [&] { p.reset(); });
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"blocked", WaitResult::kClosed, milliseconds(4)},
                                    {"again", WaitResult::kClosed, milliseconds(4)}}));
  EXPECT_FALSE(f.ready());
}

TEST(Promise, FutureOutlivesFulfilledPromise) {
  SyncWorld w;
  std::optional<Future<std::string>> f;
  {
    Promise<std::string> p(w.sim);
    f = p.future();
    p.set("kept");
  }
  std::optional<std::string> value;
  WaitResult r = WaitResult::kTimeout;
  w.sim.spawn(w.proc, "getter", [&] { std::tie(r, value) = f->get(); });
  w.sim.run_until_idle();
  EXPECT_EQ(r, WaitResult::kOk);
  EXPECT_EQ(value, std::optional<std::string>("kept"));
  EXPECT_TRUE(f->ready());
}

TEST(Promise, PromiseOfAKilledProcessBreaksItsFuture) {
  SyncWorld w;
  // The promise lives on the stack of a fiber of p1; the future is awaited by p0.
  std::optional<Future<int>> f;
  w.sim.spawn(w.proc2, "producer", [&] {
    Promise<int> p(w.sim);
    f = p.future();
    w.sim.sleep(seconds(100));  // never fulfils it: killed first
    p.set(1);
  });
  std::optional<Woke> woke;
  w.sim.spawn(w.proc, "consumer", [&] {
    w.sim.sleep(milliseconds(1));
    auto [r, v] = f->get();
    woke = Woke{"consumer", r, w.sim.now()};
  });
  w.sim.schedule_at(milliseconds(20), kNoProcess, [&] { w.sim.kill(w.proc2); });
  w.sim.run_until_idle();
  ASSERT_TRUE(woke.has_value());
  EXPECT_EQ(*woke, (Woke{"consumer", WaitResult::kClosed, milliseconds(20)}));
}

TEST(Promise, MovedPromiseStillFulfilsTheFuture) {
  SyncWorld w;
  Promise<int> a(w.sim);
  Future<int> f = a.future();
  Promise<int> b(std::move(a));  // the moved-from promise must not break the future on destruction
  std::optional<int> value;
  WaitResult r = WaitResult::kTimeout;
  w.sim.spawn(w.proc, "getter", [&] { std::tie(r, value) = f.get(); });
  w.sim.schedule_at(milliseconds(1), kNoProcess, [&] {
    { Promise<int> gone(std::move(a)); }  // destroying an empty promise is harmless
    b.set(3);
  });
  w.sim.run_until_idle();
  EXPECT_EQ(r, WaitResult::kOk);
  EXPECT_EQ(value, std::optional<int>(3));
}

TEST(Promise, MoveAssigningOverAnUnfulfilledPromiseBreaksItsFuture) {
  SyncWorld w;
  Promise<int> a(w.sim);
  Future<int> old_future = a.future();
  Promise<int> b(w.sim);
  Future<int> new_future = b.future();
  std::vector<Woke> log;
  w.sim.spawn(w.proc, "old", [&] {
    auto [r, v] = old_future.get();
    log.push_back({"old", r, w.sim.now()});
  });
  w.sim.spawn(w.proc, "new", [&] {
    auto [r, v] = new_future.get();
    EXPECT_EQ(v, std::optional<int>(8));
    log.push_back({"new", r, w.sim.now()});
  });
  w.sim.schedule_at(milliseconds(2), kNoProcess, [&] { a = std::move(b); });  // a's old state is abandoned
  w.sim.schedule_at(milliseconds(5), kNoProcess, [&] { a.set(8); });
  w.sim.run_until_idle();
  EXPECT_EQ(log, (std::vector<Woke>{{"old", WaitResult::kClosed, milliseconds(2)},
                                    {"new", WaitResult::kOk, milliseconds(5)}}));
}

TEST(Promise, CancelledGetterGetsCancelled) {
  SyncWorld w;
  Promise<int> p(w.sim);
  Future<int> f = p.future();
  std::optional<Woke> woke;
  const FiberId getter = w.sim.spawn(w.proc, "getter", [&] {
    auto [r, v] = f.get();
    woke = Woke{"getter", r, w.sim.now()};
  });
  w.sim.schedule_at(milliseconds(3), kNoProcess, [&] { w.sim.cancel(getter); });
  w.sim.run_until_idle();
  ASSERT_TRUE(woke.has_value());
  EXPECT_EQ(*woke, (Woke{"getter", WaitResult::kCancelled, milliseconds(3)}));
  p.set(1);  // fulfilling after the getter left is fine
  EXPECT_TRUE(f.ready());
}

TEST(PromiseDeathTest, FulfillingTwiceIsAnError) {
  EXPECT_DEATH(
      {
        Simulator sim(1);
        Promise<int> p(sim);
        p.set(1);
        p.set(2);
      },
      "promise fulfilled twice");
}

TEST(ChannelDeathTest, ZeroCapacityIsAnError) {
  EXPECT_DEATH(
      {
        Simulator sim(1);
        Channel<int> ch(sim, 0);
      },
      "");
}

}  // namespace
}  // namespace dst::sim
